from django.apps import AppConfig


class MRScoreConfig(AppConfig):
    name = "leaderboard.mrscore"
    label = "mrscore"
    verbose_name = "Mobile Relevance Score"
