from django.urls import path

from . import apis

urlpatterns = [
    path("leaderboard/on-device/", apis.OnDeviceBoardApi.as_view(), name="api-leaderboard-on-device"),
    path("mobile-vs-general/", apis.MobileVsGeneralApi.as_view(), name="api-mobile-vs-general"),
    path("mobile-vs-general/correlation/", apis.MobileVsGeneralCorrelationApi.as_view(),
         name="api-mobile-vs-general-correlation"),
]
