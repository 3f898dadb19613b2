"""`-p tests.support.collection_order` with --collect-only: prints each collected test's pytest-django group and
whether it is long and whether it waits for a shared build, in collection order (tests/deploy/test_test_order.py reads
it)."""


def pytest_collection_finish(session):
    from tests.conftest import _build_waiters, _django_group, _long

    waits = set(_build_waiters(session.items))
    print("ORDER " + " ".join(f"{_django_group(item)}{int(_long(item))}{int(item in waits)}" for item in session.items))
