from django.urls import path

from . import apis

urlpatterns = [
    path("leaderboard/", apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("leaderboard/submitted-predictions/", apis.SubmittedPredictionsApi.as_view(),
         name="api-submitted-predictions"),
    path("results/topics.csv", apis.TopicsCsvApi.as_view(), name="api-results-topics-csv"),
    path("runs/<id:run_id>/lm-eval.json", apis.RunLmEvalApi.as_view(), name="api-run-lm-eval"),
    path("models/<path:hub_id>/on-device/", apis.ModelOnDeviceApi.as_view(), name="api-model-on-device"),
    path("models/<path:hub_id>/history/", apis.ModelHistoryApi.as_view(), name="api-model-history"),
    path("models/<path:hub_id>/", apis.ModelDetailApi.as_view(), name="api-model-detail"),
]
