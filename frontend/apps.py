from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Frontend"
