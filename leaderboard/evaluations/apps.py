from django.apps import AppConfig


class EvaluationsConfig(AppConfig):
    name = "leaderboard.evaluations"
    label = "evaluations"
    verbose_name = "Evaluations"
