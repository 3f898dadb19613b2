from django.urls import path

from . import apis

urlpatterns = [
    path("leaderboard/", apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("results/topics.csv", apis.TopicsCsvApi.as_view(), name="api-results-topics-csv"),
    path("models/<path:hub_id>/history/", apis.ModelHistoryApi.as_view(), name="api-model-history"),
    path("models/<path:hub_id>/", apis.ModelDetailApi.as_view(), name="api-model-detail"),
]
