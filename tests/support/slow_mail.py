"""A mail server that takes its time: Django's file backend (one file per connection, in TEST_MAIL_DIR), after
TEST_MAIL_DELAY seconds a message. Set as EMAIL_BACKEND in a test and in the environment of the worker it starts."""
import os
import time
import uuid

from django.core.mail.backends.filebased import EmailBackend


class SlowFileBackend(EmailBackend):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, file_path=os.environ["TEST_MAIL_DIR"], **kwargs)

    def _get_filename(self):
        # Django names the file for the second and id(self): two connections in one second at one reused address
        # append to one file (a CI run counted 5 files for 7 mails).
        if self._fname is None:
            self._fname = os.path.join(self.file_path, f"{uuid.uuid4().hex}.log")
        return self._fname

    def send_messages(self, email_messages):
        time.sleep(float(os.environ.get("TEST_MAIL_DELAY", "0.3")) * len(email_messages))
        return super().send_messages(email_messages)
