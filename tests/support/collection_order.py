"""`-p tests.support.collection_order` with --collect-only: prints each collected test's pytest-django group and
whether it is long, in collection order (tests/deploy/test_test_order.py reads it)."""


def pytest_collection_finish(session):
    from tests.conftest import _django_group, _long

    print("ORDER " + " ".join(f"{_django_group(item)}{int(_long(item))}" for item in session.items))
