from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "Frontend"

    def ready(self):
        from django.conf import settings
        from django.db.models.signals import post_save

        from .accounts import revoke_tokens_on_new_password

        post_save.connect(revoke_tokens_on_new_password, sender=settings.AUTH_USER_MODEL,
                          dispatch_uid="frontend.revoke_tokens_on_new_password")
