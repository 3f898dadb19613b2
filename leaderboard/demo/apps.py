from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo data of `./dev.sh serve` (load_demo): no models of its own."""

    name = "leaderboard.demo"
    label = "demo"
    verbose_name = "Demo data"
