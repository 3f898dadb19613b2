from django.urls import path

from . import apis

urlpatterns = [
    path("submissions/", apis.SubmissionListCreateApi.as_view(), name="api-submissions"),
    path("submissions/predictions/", apis.PredictionUploadApi.as_view(), name="api-prediction-upload"),
    path("submissions/<id:pk>/", apis.SubmissionDetailApi.as_view(), name="api-submission-detail"),
]
