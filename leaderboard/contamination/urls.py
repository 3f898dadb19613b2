from django.urls import path

from . import apis

urlpatterns = [
    path("contamination/", apis.BoardApi.as_view(), name="api-contamination"),
    path("contamination/history/", apis.BoardHistoryApi.as_view(), name="api-contamination-history"),
    path("contamination/models/<path:hub_id>/", apis.ModelContaminationApi.as_view(),
         name="api-contamination-model"),
]
