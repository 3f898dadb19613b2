import hmac

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache

from . import health
from .metrics import metrics_render


@never_cache
def healthz(request):
    """The process is up and serving; checks no dependency (that is /readyz)."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request):
    """200 when the database, broker and cache answer and every migration is applied; else 503 naming
    what is down and how to fix it."""
    checks = health.readiness()
    down = [c.name for c in checks if not c.ok]
    body = {"status": "unavailable" if down else "ready", "down": down,
            "checks": {c.name: c.as_dict() for c in checks}}
    return JsonResponse(body, status=503 if down else 200)


@never_cache
def metrics(request):
    """Prometheus text format. With METRICS_TOKEN set, only `Authorization: Bearer <token>` may read it."""
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            response = JsonResponse({"detail": "metrics need Authorization: Bearer <METRICS_TOKEN>"}, status=401)
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return response
    body, content_type = metrics_render()
    return HttpResponse(body, content_type=content_type)
