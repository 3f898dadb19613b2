"""Everything under /api/v1/. Each app contributes its routes here."""
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("", include("leaderboard.benchmarks.urls")),
    path("", include("leaderboard.submissions.urls")),
    path("", include("leaderboard.mrscore.urls")),
    path("", include("leaderboard.results.urls")),
    path("", include("leaderboard.contamination.urls")),
    path("", include("leaderboard.boards.urls")),
    path("", include("leaderboard.devices.urls")),
]
schema_urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), not inline: script-src 'self'.
    path("api/schema/ui/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
