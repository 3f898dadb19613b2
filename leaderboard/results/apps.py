from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "leaderboard.results"
    label = "results"
    verbose_name = "Results"
