from django.apps import AppConfig


class ScoringConfig(AppConfig):
    """Trusted scoring and its publication: no models of its own (Celery autodiscovers its tasks)."""

    name = "leaderboard.scoring"
    label = "scoring"
    verbose_name = "Scoring"
