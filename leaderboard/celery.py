"""The Celery application. Configuration lives in Django settings (CELERY_*)."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings.local")

app = Celery("leaderboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
