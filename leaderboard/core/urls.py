from django.urls import path

from . import views

# ProbeMiddleware answers these paths first (before host checks); the routes keep them reversible
# and working where that middleware is not installed.
urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
]
