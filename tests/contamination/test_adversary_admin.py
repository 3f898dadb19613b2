"""The adversary suite, staff routes (issue 22, findings 1 and 2): an admin list's query string is a query on the
model, whatever the list shows. View-only staff (and a superuser, who has an audited view for exact figures) compare
`?correct_t=315` with `?correct_t=316` on the Δ points, or a regex on a run's summary, to read a sealed count; staff
who may view users read a user's API token one character at a time. Each admin answers only the lookups it declares
(leaderboard/core/admin_site.py), with one refusal whatever the field or the guess."""
import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from leaderboard.core import api_tokens
from tests.contamination.adversary import C0, VICTIM, Worlds, assert_bin_hidden, fetch, normalise

pytestmark = pytest.mark.django_db

DELTA_POINTS = "admin:contamination_deltapoint_changelist"
RUNS = "admin:evaluations_evaluationrun_changelist"
LADDER = "admin:contamination_ladderdecision_changelist"


def guesses(c):
    """Lookups an adversary tries for the guess `c` of the victim's sealed count (and of the topic's and the Ladder's
    figures that move with it), each on a model the staff may list."""
    topic = "accounting"
    return [
        (DELTA_POINTS, f"correct_t={c}"), (DELTA_POINTS, f"correct_t__gte={c}"),
        (DELTA_POINTS, f"topic_counts__{topic}__3__regex=^{c % 10}$"), (DELTA_POINTS, "probe__test__exact__gt=0"),
        (DELTA_POINTS, f"test_run__summary__overall__correct={c}"),
        (RUNS, f"summary__overall__correct__regex=^{c}$"), (RUNS, f"summary__overall__correct__lt={c}"),
        (LADDER, f"mean_diff__gt=0.{c}"), (LADDER, f"threshold__lt=0.{c}"), (LADDER, f"sd__gt=0.{c}"),
    ]


@pytest.mark.parametrize("role", ["staff", "superuser"])
def test_list_lookups_on_sealed_figures_say_no_more_than_the_published_figure(people, submit, role):
    """Worlds that differ only in the victim's sealed count c; in each, the adversary tries every guess of the bin's
    counts (and just outside it) on every field that holds a sealed figure. Only the published Δ may tell c apart."""
    worlds = Worlds()
    probes = [(name, query) for g in (C0 - 5, C0, C0 + 6) for name, query in guesses(g)]

    def build(c):
        submit(people["victim"], VICTIM, {"validation": 360, "test": c})
        submit(people["mallory"], "mallory/cheat", {"validation": 300, "test": 300}, revision="0" * 40)
        submit(people["mallory"], "mallory/cheat", {"validation": 480, "test": c - 100})  # withheld by the Ladder
        return None

    def crawl(_):
        urls = [(role, reverse(name)) for name in (DELTA_POINTS, RUNS, LADDER)]
        urls += [(role, f"{reverse(name)}?{query}") for name, query in probes]
        return fetch(people["clients"], urls)

    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: build(c), crawl))
    refusals = {seen[C0][(role, f"{reverse(name)}?{query}")] for name, query in probes}
    assert len(refusals) == 1 and next(iter(refusals))[0] == 400, "a refused lookup looks the same whatever the guess"


def test_every_admin_refuses_lookups_it_does_not_declare(root, client):
    """The class, not the examples: on every registered admin (ours, auth's, knox's, axes'), a lookup on any of the
    model's fields that no declared filter covers is refused with the same 400 whatever the value, and the declared
    filters still work."""
    checked = 0
    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        declared = {item if isinstance(item, str) else item[0] for item in model_admin.get_list_filter(None)
                    if not isinstance(item, type)}
        for field in model._meta.get_fields():
            if field.name in declared or (field.is_relation and field.auto_created and not field.concrete
                                          and not field.one_to_one and not field.one_to_many):
                continue
            bodies = set()
            for value in ("0", "1", "zz"):
                response = client.get(url, {f"{field.name}__startswith": value})
                assert response.status_code == 400, (url, field.name, response.status_code)
                bodies.add(response.content)
            assert len(bodies) == 1, (url, field.name)
            checked += 1
        for path in declared:  # a declared filter is answered (isnull is sent by every field filter)
            assert client.get(url, {f"{path}__isnull": "False"}).status_code in (200, 302), (url, path)
    assert checked > 100


def test_view_users_staff_cannot_read_an_api_token(people, client):
    """Staff allowed to view users tried `?auth_token__key__startswith=4` (DRF's plain-key tokens) one character at a
    time. Tokens are knox digests now, and neither the old nor the new relation filters."""
    token = api_tokens.token_create(user=people["victim"])
    staff = User.objects.create_user("userstaff", "us@example.com", "pw", is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(codename__in=["view_user", "view_authtoken"]))
    client.force_login(staff)
    users = reverse("admin:auth_user_changelist")
    answers = set()
    for lookup in ("auth_token__key__startswith", "auth_token_set__token_key__startswith",
                   "auth_token_set__digest__startswith"):
        for guess in (token[0], "g"):
            response = client.get(users, {"username": "vera", lookup: guess})
            answers.add((response.status_code, response.content))
    assert len(answers) == 1 and next(iter(answers))[0] == 400
    tokens = reverse("admin:knox_authtoken_changelist")
    listed = client.get(tokens).content.decode()
    assert "vera" in listed and token not in listed and token[:8] not in listed
    searched = {normalise(client.get(tokens, {"q": q}).content.decode().replace(q, "<q>")) for q in (token[:8], "ffffffff")}
    assert len(searched) == 1  # searching by the token's start finds nothing it would not find for a wrong guess
    assert Client().get(reverse("api-submissions"), HTTP_AUTHORIZATION=f"Token {token}").status_code == 200
