from django.urls import path

from . import apis

urlpatterns = [
    path("mrscore/jobs/", apis.JobListApi.as_view(), name="api-mrscore-jobs"),
    path("mrscore/jobs/<id:job_id>/", apis.JobDetailApi.as_view(), name="api-mrscore-job"),
    path("mrscore/distribution/", apis.DistributionApi.as_view(), name="api-mrscore-distribution"),
    path("mrscore/benchmarks/<slug:slug>/topics/", apis.TopicScoresApi.as_view(), name="api-mrscore-topics"),
    path("mrscore/benchmarks/<slug:slug>/questions/", apis.QuestionScoresApi.as_view(),
         name="api-mrscore-questions"),
]
