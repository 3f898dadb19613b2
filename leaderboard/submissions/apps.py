from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "leaderboard.submissions"
    label = "submissions"
    verbose_name = "Submissions"

    def ready(self):
        # Hooks are registered once the apps are loaded (ARCHITECTURE §7): every save of a user keeps its name's
        # canonical form (account_names.py).
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save, pre_save

        from . import account_names

        pre_save.connect(account_names.refuse_taken, sender=get_user_model(), dispatch_uid="account_name_refuse")
        post_save.connect(account_names.keep_in_step, sender=get_user_model(), dispatch_uid="account_name_keep")
