from django.apps import AppConfig


class EvaluationsConfig(AppConfig):
    name = "leaderboard.evaluations"
    label = "evaluations"
    verbose_name = "Evaluations"

    def ready(self):
        from leaderboard.core.metrics import register_collector

        from .metrics import RunCollector

        register_collector(RunCollector())
