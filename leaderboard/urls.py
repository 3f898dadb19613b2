from django.contrib import admin
from django.urls import include, path

from leaderboard.api_urls import schema_urlpatterns

handler404 = "leaderboard.api_errors.not_found"  # JSON under /api/, the usual page elsewhere

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("leaderboard.core.urls")),
    path("api/v1/", include("leaderboard.api_urls")),
    path("", include("frontend.urls")),
    *schema_urlpatterns,
]
