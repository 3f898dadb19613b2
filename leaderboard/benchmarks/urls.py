from django.urls import path

from . import apis

urlpatterns = [
    path("benchmarks/", apis.BenchmarkListApi.as_view(), name="api-benchmark-list"),
    path("benchmarks/<slug:slug>/", apis.BenchmarkDetailApi.as_view(), name="api-benchmark-detail"),
]
