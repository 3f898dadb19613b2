from django.urls import path

from . import apis

urlpatterns = [
    path("device-reports/", apis.DeviceReportListCreateApi.as_view(), name="api-device-reports"),
    path("device-reports/speeds/", apis.DeviceSpeedsApi.as_view(), name="api-device-speeds"),
    path("device-reports/<id:pk>/", apis.DeviceReportDetailApi.as_view(), name="api-device-report"),
    path("device-reports/<id:pk>/samples/", apis.DeviceReportSamplesApi.as_view(), name="api-device-report-samples"),
    path("device-reports/board/", apis.DeviceBoardApi.as_view(), name="api-device-board"),
]
