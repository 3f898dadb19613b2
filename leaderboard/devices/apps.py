from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "leaderboard.devices"
    verbose_name = "Device reports"
