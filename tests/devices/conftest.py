import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from tests.devices import world
from tests.results.conftest import make_run  # noqa: F401  (fixture)

URL = "/api/v1/device-reports/"


@pytest.fixture
def files(demo_loaded):
    return world.build()


@pytest.fixture
def reporter(db):
    return User.objects.create_user("tester", "tester@example.com", "pw")


@pytest.fixture
def api(reporter):
    """An API client signed in as `reporter`."""
    client = APIClient()
    client.force_authenticate(reporter)
    return client


@pytest.fixture
def post(api):
    def send(data, client=None):
        return (client or api).post(URL, data, format="json")

    return send


@pytest.fixture
def accounts(db):
    """accounts(n): n more signed-in API clients, each its own account (other people reporting), with a confirmed
    address like `reporter`'s: their votes weigh the same (devices/consensus.weight)."""
    made = []

    def make(n):
        clients = []
        for _ in range(n):
            client = APIClient()
            name = f"person{len(made)}"
            client.force_authenticate(User.objects.create_user(name, f"{name}@example.com"))
            made.append(client)
            clients.append(client)
        return clients

    return make
