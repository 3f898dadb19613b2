"""API tokens move from DRF's authtoken table (plain keys) to django-rest-knox's (SHA-512 digests only).

Each existing key keeps working: its digest and lookup prefix are stored as knox makes them, with knox's expiry from
now. Then the plain-key table is dropped, so reading the database no longer gives anyone's token.
"""
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone
from knox.crypto import hash_token
from knox.settings import CONSTANTS

LEGACY_TABLE = "authtoken_token"


def tokens_to_digests(apps, schema_editor):
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return  # a database that never had DRF's tokens
    AuthToken = apps.get_model("knox", "AuthToken")
    expiry = timezone.now() + timedelta(days=settings.API_TOKEN_DAYS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {LEGACY_TABLE}")
        rows = cursor.fetchall()
    for key, user_id, created in rows:
        digest = hash_token(key)
        AuthToken(digest=digest, token_key=key[:CONSTANTS.TOKEN_KEY_LENGTH], user_id=user_id, expiry=expiry).save()
        AuthToken.objects.filter(pk=digest).update(created=created)  # auto_now_add set it to now
    schema_editor.execute(f"DROP TABLE {LEGACY_TABLE}")
    schema_editor.execute("DELETE FROM django_migrations WHERE app = 'authtoken'")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [migrations.RunPython(tokens_to_digests, migrations.RunPython.noop, elidable=True)]
