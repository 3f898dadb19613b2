"""One identity for names (issue 31, findings 1 and 4; ARCHITECTURE §9): a user name and a namespace are compared in
one canonical form (submissions.identity: NFKC, casefold), stored unique (AccountName) and kept in step on every path
that makes or renames an account; new names keep to the hub's rules. On PostgreSQL, whose UPPER() folds 'ı' to 'I'."""
import sys
import threading
import unicodedata

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.urls import reverse

from leaderboard.submissions.identity import canonical_name
from leaderboard.submissions.models import AccountName, HubAccount, HubNamespace, ModelEntry, NamespaceGrant
from leaderboard.submissions.selectors import namespace_owners, owns_namespace
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
PASS = "a long pass phrase"
ONE_NAME = [("alice", "ALICE"), ("alice", "Alice"), ("alice", "ａｌｉｃｅ"), ("strasse", "STRAßE"), ("weiss", "weiß"),
            ("office", "OﬃCE"), ("office", "ｏｆｆｉｃｅ")]
LOOK_ALIKES = ["alıce", "alİce", "ALİCE", "AlIce\u0307"]  # dotless ı, dotted İ, a combining dot: not 'alice'


def sign_up(client, username, email):
    return client.post(reverse("signup"), {"username": username, "email": email, "password1": PASS,
                                           "password2": PASS})


def test_the_canonical_form():
    assert {canonical_name(b) for _, b in ONE_NAME} == {a for a, _ in ONE_NAME}
    assert {canonical_name(name) for name in LOOK_ALIKES}.isdisjoint({"alice"})
    assert canonical_name("mıcrosoft") != "microsoft"  # PostgreSQL: UPPER('mıcrosoft') = 'MICROSOFT'
    everything = "".join(chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) != "Cs")
    assert canonical_name(canonical_name(everything)) == canonical_name(everything)  # idempotent


@pytest.mark.parametrize("first,second", ONE_NAME)
def test_one_canonical_form_is_one_account_whatever_the_path(first, second):
    holder = User.objects.create_user(first, "a@example.com", "pw")
    with pytest.raises(IntegrityError), transaction.atomic():  # made by the ORM, as createsuperuser does
        User.objects.create_user(second, "b@example.com", "pw")
    other = User.objects.create_user("bob", "c@example.com", "pw")
    other.username = second
    with pytest.raises(IntegrityError), transaction.atomic():  # renamed
        other.save()
    assert list(AccountName.objects.filter(canonical=first).values_list("user", flat=True)) == [holder.pk]
    with pytest.raises(IntegrityError), transaction.atomic():  # the index itself, under any check
        AccountName.objects.filter(user=other).update(canonical=first)


def test_a_rename_moves_the_name_and_frees_the_old_one():
    bob = User.objects.create_user("bob", "b@example.com", "pw")
    bob.username = "Robert"
    bob.save()
    assert AccountName.objects.get(user=bob).canonical == "robert"
    User.objects.create_user("BOB", "c@example.com", "pw")  # free again


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_sign_ups_of_one_name_cannot_both_win():
    """The second one's checks run before the first commits; the unique index decides."""
    first_saved, outcome = threading.Event(), {}

    def first():
        try:
            with transaction.atomic():
                User.objects.create_user("bob", "b1@example.com", "pw")
                first_saved.set()
                threading.Event().wait(0.5)  # the second is now waiting on the index
        finally:
            connection.close()

    def second():
        first_saved.wait(10)
        try:
            with transaction.atomic():
                User.objects.create_user("BOB", "b2@example.com", "pw")
            outcome["second"] = "won"
        except IntegrityError:
            outcome["second"] = "refused"
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcome == {"second": "refused"}
    assert list(User.objects.values_list("username", flat=True)) == ["bob"]
    assert list(AccountName.objects.values_list("canonical", flat=True)) == ["bob"]


@pytest.mark.parametrize("name", LOOK_ALIKES + ["ａｌｉｃｅ", "ALICE", "al ice", "alice@home"])
def test_sign_up_refuses_every_other_spelling_of_a_name(client, name, snapshot):
    User.objects.create_user("alice", "alice@example.com", "pw")
    before = snapshot()
    page = text(sign_up(client, name, "mallory@evil.example"))
    assert "A user with that username already exists" in page or "cannot be a user name" in page
    assert snapshot() == before


def test_sign_up_says_which_characters_a_name_may_hold(client):
    page = text(sign_up(client, "mıcrosoft", "m@example.com"))
    assert "'mıcrosoft' cannot be a user name" in page and "U+0131 LATIN SMALL LETTER DOTLESS I" in page
    assert "ASCII letters, digits, '-', '_' and '.'" in page


@pytest.mark.parametrize("name", LOOK_ALIKES + ["ａｌｉｃｅ", "ALICE"])
def test_the_admin_refuses_them_when_adding_or_renaming(client, root, name):
    User.objects.create_user("alice", "alice@example.com", "pw")
    bob = User.objects.create_user("bob", "bob@example.com", "pw")
    added = client.post(reverse("admin:auth_user_add"), {
        "username": name, "usable_password": "true", "password1": PASS, "password2": PASS})
    renamed = client.post(reverse("admin:auth_user_change", args=[bob.pk]), {
        "username": name, "email": bob.email, "is_active": "on", "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"})
    for page in (added, renamed):
        assert page.status_code == 200
        assert "A user with that username already exists" in text(page) or "cannot be a user name" in text(page)
    assert sorted(User.objects.values_list("username", flat=True)) == ["alice", "bob", "root"]


def test_the_admin_keeps_an_old_name_off_the_hub_rules_and_renames_to_a_free_one(client, root):
    old = User.objects.create_user("olé", "o@example.com", "pw")  # made before the rule
    form = {"email": old.email, "is_active": "on", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
            "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"}
    assert client.post(reverse("admin:auth_user_change", args=[old.pk]), {**form, "username": "olé"}).status_code == 302
    assert client.post(reverse("admin:auth_user_change", args=[old.pk]), {**form, "username": "ole"}).status_code == 302
    assert AccountName.objects.get(user=old).canonical == "ole"


@pytest.mark.parametrize("name,owns", [("MICROSOFT", True), ("ｍｉｃｒｏｓｏｆｔ", True), ("mıcrosoft", False),
                                       ("MıCROSOFT", False), ("mİcrosoft", False), ("MİCROSOFT", False)])
def test_ownership_by_name_is_equality_of_the_canonical_form_and_nothing_else(name, owns):
    user = User.objects.create_user(name, "x@example.com", "pw")  # any path: here the ORM
    assert owns_namespace(user, "microsoft") is owns and owns_namespace(user, "Microsoft") is owns
    assert list(namespace_owners("microsoft")) == ([user] if owns else [])


def test_grants_and_the_hubs_namespaces_are_stored_in_the_canonical_form():
    user = User.objects.create_user("bob", "b@example.com", "pw")
    grant = NamespaceGrant.objects.create(user=user, namespace="Org-X", reason="member")
    assert grant.namespace == "org-x" and owns_namespace(user, "ORG-X")
    with pytest.raises(IntegrityError), transaction.atomic():
        NamespaceGrant.objects.filter(pk=grant.pk).update(namespace="Org-X")
    account = HubAccount.objects.create(user=user, sub="1", username="bob")
    with pytest.raises(IntegrityError), transaction.atomic():
        HubNamespace.objects.create(account=account, namespace="Team-Y", role="write")


def test_a_name_vouched_for_by_the_hub_cannot_be_taken_by_signing_up(client):
    nadia = User.objects.create_user("nadia", "n@example.com", "pw")
    HubNamespace.objects.create(account=HubAccount.objects.create(user=nadia, sub="7", username="nadia"),
                                namespace="nadia-lab", role="write")
    ModelEntry.objects.create(hub_id="Meta-Llama/x", namespace="meta-llama")
    for name in ("Nadia-Lab", "META-LLAMA"):
        page = text(sign_up(client, name, f"{name}@example.com"))
        assert "is the namespace of models on this board" in page
    assert not User.objects.filter(account_name__canonical__in=["nadia-lab", "meta-llama"]).exists()


def test_the_migration_gives_existing_accounts_their_canonical_names():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("leaderboard.submissions.migrations.0009_account_names")
    User.objects.bulk_create([User(username="Carol"), User(username="ｄａｖｅ"), User(username="mıcrosoft")])  # as before

    class Editor:
        connection = connection

    migration.fill_account_names(apps, Editor())
    assert dict(AccountName.objects.values_list("username", "canonical")) == {
        "Carol": "carol", "ｄａｖｅ": "dave", "mıcrosoft": "mıcrosoft"}
    assert [u.username for u in namespace_owners("CAROL")] == ["Carol"] and not namespace_owners("microsoft").exists()
