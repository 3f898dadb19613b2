import uuid

import pytest
from django.core.management import call_command
from django.db import connection


@pytest.fixture
def gpu_login_role(db):
    """A login role granted exactly what production's GPU worker role gets (manage.py grant_worker_role);
    yields the DATABASE_URL the GPU worker connects with."""
    name, password = f"gpu_e2e_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE \"{name}\" LOGIN PASSWORD '{password}'")
    call_command("grant_worker_role", name)
    s = connection.settings_dict
    yield f"postgresql://{name}:{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP OWNED BY "{name}"')
        cursor.execute(f'DROP ROLE "{name}"')
