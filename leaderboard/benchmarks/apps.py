from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "leaderboard.benchmarks"
    label = "benchmarks"
    verbose_name = "Question bank"
