from django.http import JsonResponse


def healthz(request):
    """Process is up. (Readiness with database/broker checks belongs to /readyz.)"""
    return JsonResponse({"status": "ok"})
