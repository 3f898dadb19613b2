from django.apps import AppConfig


class ContaminationConfig(AppConfig):
    name = "leaderboard.contamination"
    verbose_name = "Contamination monitor"
