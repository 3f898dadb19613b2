from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "leaderboard.benchmarks"
    label = "benchmarks"
    verbose_name = "Question bank"

    def ready(self):
        from . import checks  # noqa: F401  (registers the sealed-key start-up check)
