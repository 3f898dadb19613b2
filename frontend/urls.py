from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("benchmarks/<slug:slug>/", views.benchmark_detail, name="benchmark-detail"),
]
