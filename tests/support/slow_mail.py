"""A mail server that takes its time: Django's file backend (one file per message, in TEST_MAIL_DIR), after
TEST_MAIL_DELAY seconds a message. Set as EMAIL_BACKEND in a test and in the environment of the worker it starts."""
import os
import time

from django.core.mail.backends.filebased import EmailBackend


class SlowFileBackend(EmailBackend):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, file_path=os.environ["TEST_MAIL_DIR"], **kwargs)

    def send_messages(self, email_messages):
        time.sleep(float(os.environ.get("TEST_MAIL_DELAY", "0.3")) * len(email_messages))
        return super().send_messages(email_messages)
