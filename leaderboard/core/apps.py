from django.apps import AppConfig

from . import converters  # noqa: F401  registers the <id:...> path converter before any URLconf is loaded


class CoreConfig(AppConfig):
    name = "leaderboard.core"
    label = "core"
    verbose_name = "Core"
