"""JSON error pages for /api/ URLs that match no route (Django's default is an HTML page, which an API
client, or the OpenAPI schema's `application/json` error responses, do not expect)."""
from django.http import JsonResponse
from django.views import defaults


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found: no such API endpoint or object."}, status=404)
    return defaults.page_not_found(request, exception)
