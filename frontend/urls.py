from django.urls import include, path

from . import submission_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("benchmarks/<slug:slug>/", views.benchmark_detail, name="benchmark-detail"),
    path("submit/", submission_views.submit, name="submit"),
    path("submissions/<int:pk>/", submission_views.submission_status, name="submission-status"),
    path("accounts/", include("django.contrib.auth.urls")),
]
