from django.urls import include, path

from .views import (about, api_tokens, benchmarks, compare, contamination, device_reports, leaderboard, mobile_general,
                    model_detail, mrscore, ondevice, questions, submissions, submitted_predictions, topics)

urlpatterns = [
    path("", leaderboard.home, name="home"),
    path("leaderboard/", leaderboard.leaderboard, name="leaderboard"),
    path("leaderboard/submitted-predictions/", submitted_predictions.page, name="submitted-predictions"),
    path("leaderboard/on-device/", ondevice.page, name="leaderboard-on-device"),
    path("leaderboard/on-device/devices/", device_reports.what_runs_well, name="device-board"),
    path("device-reports/new/", device_reports.upload, name="device-report-upload"),
    path("models/<hub_id:hub_id>/questions/", questions.model_questions, name="model-questions"),
    path("models/<path:hub_id>/", model_detail.model_detail, name="model-detail"),
    path("compare/", compare.compare, name="compare"),
    path("mobile-vs-general/", mobile_general.mobile_vs_general, name="mobile-vs-general"),
    path("topics/", topics.topic_list, name="topics"),
    path("topics/<slug:slug>/", topics.topic_detail, name="topic-detail"),
    path("mrscore/", mrscore.mrscore, name="mrscore"),
    path("contamination/", contamination.contamination, name="contamination"),
    path("about/", about.about, name="about"),
    path("benchmarks/<slug:slug>/", benchmarks.benchmark_detail, name="benchmark-detail"),
    path("submit/", submissions.submit, name="submit"),
    path("submissions/<id:pk>/", submissions.submission_status, name="submission-status"),
    path("submissions/mine/", submissions.my_submissions, name="my-submissions"),
    path("queue/", submissions.queue, name="queue"),
    path("api-tokens/", api_tokens.api_tokens_page, name="api-tokens"),
    path("accounts/", include("frontend.account_urls")),
]
