"""The adversary test (ARCHITECTURE §6, issue 15 item 6): nobody learns a sealed test count finer than its
published figure, by any combination of endpoints, uploads, flags, δ₀, admin views and rounding.

Method: counterfactual worlds. A world is built through the real services (runs scored by `run_score`, uploads
and admin actions through their HTTP routes) inside a savepoint that is rolled back afterwards, with every
sequence reset, so that two worlds differ only in one sealed count c. In each world an adversary crawls everything
it can fetch (as an anonymous visitor, a signed-in account, or view-only staff); the crawl is normalised for what
truly differs between two builds (timestamps, relative times, csrf tokens) and nothing else. The counts whose
crawl equals the true world's crawl are the adversary's consistent set. Each route asserts:

(a) every count that publishes the same figure (`publish(c0, n).counts()`: its two ends and c0) is consistent —
    the adversary cannot shrink the set below what the published figure allows;
(b) the counts just outside that bin are not consistent — the crawl does see the published figure, so (a) could
    fail.
"""
import io
import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from leaderboard.contamination.models import DeltaOffset, DeltaPoint, LadderDecision
from leaderboard.core.models import AuditRecord
from leaderboard.evaluations import notices
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry, Submission
from tests.contamination.adversary import (BENCH, C0, VICTIM, Worlds, _q, assert_bin_hidden, assert_indistinguishable,
                                           board_urls, difference, fetch, ladder_reason, model_urls, normalise,
                                           page_urls)

pytestmark = pytest.mark.django_db


# --- route 1: rounding, on every surface ---------------------------------------------------------------------------

PEER = "lab/peer"  # a model whose sealed count is fixed at C0: tied with the victim's published figure in the bin


@pytest.fixture
def victim_world(people, submit, score):
    """build(c): the victim's model with two revisions, each measured on both splits: revision a's sealed count
    is c (its first release), revision b's 380 (a real Ladder gain, so its history has a difference); an
    operator's model with sealed count c alone on the test board; and a peer with sealed count C0 (tied with it
    inside the bin: the order of tied rows must not tell which count is higher). Validation 360 (75 %): at 66 %
    the models are not flagged (z = -2.98), at 64 % they are, so the flag sits right at the bin's lower edge."""

    def build(c):
        _, first = submit(people["victim"], VICTIM, {"validation": 360, "test": c}, revision="a" * 40)
        _, second = submit(people["victim"], VICTIM, {"validation": 360, "test": 380}, revision="b" * 40)
        solo = {split: score("lab/solo", split, count) for split, count in (("validation", 360), ("test", c))}
        peer = score(PEER, "test", C0)
        return {"runs": [r.pk for r in (first["validation"], first["test"], second["validation"], second["test"])],
                "solo": [solo["validation"].pk, solo["test"].pk], "peer": [peer.pk],
                "submissions": [first["test"].submission_id, second["test"].submission_id]}

    return build


def victim_urls(context):
    """(role, url) for everything public about the victim, the operator's model and the boards."""
    sorts = [_q(reverse("api-leaderboard"), benchmark=BENCH, split="test", sort=order)
             for order in ("accuracy", "-accuracy", "name")]
    tests = context["runs"][1::2]  # the sealed runs' exports and pages (revision a's: count c; b's: 380)
    urls = [("anonymous", u) for u in board_urls() + sorts + model_urls(VICTIM, tests)
            + model_urls("lab/solo", context["solo"][1:]) + model_urls(PEER, context["peer"])]
    for pk in context["submissions"]:  # status of a submission: anyone may read it
        urls += [("anonymous", reverse("api-submission-detail", args=[pk])),
                 ("anonymous", reverse("submission-status", args=[pk]))]
    urls += [(role, u) for role in ("anonymous", "adversary") for u in page_urls([VICTIM, "lab/solo", PEER])]
    return urls


def test_rounding_every_surface_says_no_more_than_the_published_figure(people, victim_world):
    worlds = Worlds()

    def build(c):
        context = victim_world(c)
        # The world is what we meant: revision a published (first), revision b a real gain over it.
        assert [ladder_reason(pk) for pk in context["runs"][1::2]] == ["first", "gain"]
        assert DeltaPoint.objects.count() == 3
        return context

    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: build(c),
                                                      lambda ctx: fetch(people["clients"], victim_urls(ctx))))
    # What the adversary sees is the published figure, with its grid, on every surface that shows the run.
    board = seen[C0][("anonymous", _q(reverse("api-leaderboard"), benchmark=BENCH, split="test"))][3]
    assert re.search(r'"accuracy":66\.0,[^{}]*"grid":2\.0,[^{}]*"rank":2,"tied":true,[^{}]*"hub_id":"lab/peer"', board)
    history = seen[C0][("anonymous", reverse("api-model-history", args=[VICTIM]))][3]
    assert '"accuracy_change":14.0' in history  # 80 − 66, both as published


# --- route 2: δ₀ from reference models -------------------------------------------------------------------------

def set_delta0_from(point, root):
    """The admin action on DeltaPoint, as a superuser would use it."""
    admin = Client()
    admin.force_login(root)
    response = admin.post(reverse("admin:contamination_deltapoint_changelist"), {
        "action": "set_delta0_from_reference", "_selected_action": [point.pk], "apply": "1",
        "reason": "the victim as the reference model"}, follow=True)
    assert "is now in force" in response.content.decode(), response.content.decode()[:3000]
    return DeltaOffset.objects.get()


def test_delta0_from_the_victim_as_reference_says_no_more_than_its_published_figure(people, submit, score):
    """An admin sets δ₀ from the victim's point as the single reference model; another model's z, q and flag, the
    δ₀ row (staff) and its audit record then depend on the victim's count, but only through its published
    figure."""
    worlds = Worlds()
    judged = "other-org/judged"

    def build(c):
        submit(people["victim"], VICTIM, {"validation": 360, "test": c})
        score(judged, "validation", 360)
        score(judged, "test", 300)  # 62.5 %, published as 62
        offset = set_delta0_from(DeltaPoint.objects.get(hub_id=VICTIM), people["root"])
        assert offset.reference_models == [f"{VICTIM}@{'a' * 40}"]
        return {"offset": offset.pk, "audit": AuditRecord.objects.get(action="set-delta0").pk}

    own = [reverse("api-contamination-model", args=[judged]),
           _q(reverse("api-leaderboard"), benchmark=BENCH, split="validation", search="judged"),
           reverse("admin:contamination_deltaoffset_changelist")]

    def crawl(context):
        urls = [("anonymous", u) for u in board_urls() + own[:2] + page_urls()]
        urls += [("staff", own[2]), ("staff", reverse("admin:core_auditrecord_change", args=[context["audit"]])),
                 ("staff", reverse("admin:contamination_deltaoffset_change", args=[context["offset"]])),
                 ("staff", reverse("admin:contamination_deltapoint_changelist"))]
        return fetch(people["clients"], urls)

    # Outside the bin the other model's own contamination row (its δ₀ and z) changes: δ₀ carries the figure.
    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: build(c), crawl), keys={("anonymous", own[0])})
    row = re.search(r'"delta0":(-?[\d.]+)', seen[C0][("anonymous", own[0])][3])
    assert row and float(row.group(1)) == -9.0  # δ₀ = the victim's published Δ: 66 − 75


# --- route 3: withheld runs and the flag ----------------------------------------------------------------------------

WITHHELD = (40, 150, 260)


@pytest.fixture
def adversary_world(people, submit):
    """build(c_w): the adversary's released model (revision 0: sealed 300, published) and a later revision whose
    validation is 100 % right and whose sealed count c_w is below 300 (no gain: withheld); then the same model under
    another spelling of its hub id and another revision (`MALLORY/Cheat`, route 6): the same Ladder family and
    model, withheld too."""
    mallory = people["mallory"]

    def build(c_w):
        mail.outbox.clear()
        submit(mallory, "mallory/cheat", {"validation": 300, "test": 300}, revision="0" * 40)
        cheat, runs = submit(mallory, "mallory/cheat", {"validation": 480, "test": c_w})
        again, more = submit(mallory, "MALLORY/Cheat", {"validation": 480, "test": c_w}, revision="b" * 40)
        for run in (runs["test"], more["test"]):  # the notice the author gets when the submission has finished
            notices.run_notify(run_id=run.pk)
        assert len(mail.outbox) == 2
        return {"submissions": [cheat.pk, again.pk], "tests": [runs["test"].pk, more["test"].pk],
                "runs": [runs["validation"].pk, runs["test"].pk, more["validation"].pk, more["test"].pk]}

    return build


def adversary_urls(context):
    """Everything the adversary can fetch about its withheld runs, signed in as itself, and the public views."""
    urls = [("anonymous", u) for u in board_urls() + page_urls(["mallory/cheat"])
            + model_urls("mallory/cheat", context["runs"])
            + [reverse("api-contamination-model", args=["mallory/cheat"])]]
    mine = [reverse("my-submissions")]
    for pk in context["submissions"]:
        mine += [reverse("api-submission-detail", args=[pk]), reverse("submission-status", args=[pk])]
    return urls + [("adversary", u) for u in mine + page_urls()]


def adversary_crawl(people, context) -> dict:
    """The crawl, and the e-mails the adversary got about its submissions."""
    seen = fetch(people["clients"], adversary_urls(context))
    for i, message in enumerate(mail.outbox):
        seen[("adversary", f"e-mail {i}")] = (None, message.subject, ",".join(message.to), normalise(message.body))
    return seen


def test_a_withheld_run_publishes_nothing_not_even_a_flag(people, adversary_world):
    worlds = Worlds()

    def build(c_w):
        context = adversary_world(c_w)
        expected = ["no-gain", "no-gain"] if c_w < 300 else ["gain", "no-gain"]
        assert [ladder_reason(pk) for pk in context["tests"]] == expected
        # One family and one model whatever the spelling: no fresh release for `MALLORY/Cheat` (route 6).
        assert set(LadderDecision.objects.values_list("family", flat=True)) == {"mallory/cheat"}
        assert ModelEntry.objects.filter(hub_id__iexact="mallory/cheat").count() == 1
        return context

    seen = {c_w: worlds.observe(lambda c_w=c_w: build(c_w), lambda ctx: adversary_crawl(people, ctx))
            for c_w in WITHHELD + (400,)}
    assert_indistinguishable({c_w: seen[c_w] for c_w in WITHHELD})
    # A gain would have been published (84 on the test board, a flag on validation): the crawl sees that.
    assert seen[400] != seen[WITHHELD[0]]
    details = [view for (role, url), view in seen[WITHHELD[0]].items() if url.startswith("/api/v1/submissions/")]
    assert len(details) == 2
    for status, _, _, body in details:  # the adversary's own status: the withheld test run has no figure
        assert status == 200 and '"split":"test"' in body and '"accuracy":null' in body and "Ladder rule" in body


# --- re-runs: the status of a submission ---------------------------------------------------------------------------

def rerun(run, root, score, count):
    """An admin re-runs a sealed run (the EvaluationRun admin action); the GPU worker's new predictions get
    `count` right and the trusted side scores them."""
    admin = Client()
    admin.force_login(root)
    response = admin.post(reverse("admin:evaluations_evaluationrun_changelist"), {
        "action": "rerun", "_selected_action": [run.pk], "apply": "1", "reason": "the author asked for a re-run"},
        follow=True)
    assert response.status_code == 200 and "Re-run (new run row): 1 done" in response.content.decode()
    new = EvaluationRun.objects.get(rerun_of=run)
    return score(run.model_ref, run.split, count, run=new)


def test_a_rerun_of_a_sealed_run_says_no_more_than_the_published_figures(people, submit, score):
    """The victim's sealed run (count c) is re-run by an admin; the new predictions get 380 right (a real Ladder
    gain: published). Its status, which anyone may read, compares the two runs."""
    worlds = Worlds()

    def build(c):
        submission, runs = submit(people["victim"], VICTIM, {"test": c})
        again = rerun(runs["test"], people["root"], score, 380)
        assert ladder_reason(again.pk) == "gain"
        return submission.pk

    def crawl(pk):
        urls = [(role, u) for role in ("anonymous", "adversary")
                for u in (reverse("api-submission-detail", args=[pk]), reverse("submission-status", args=[pk]))]
        return fetch(people["clients"], urls + [("anonymous", reverse("api-model-history", args=[VICTIM]))])

    assert_bin_hidden(lambda c: worlds.observe(lambda: build(c), crawl))


def test_a_rerun_of_a_withheld_run_does_not_publish_the_withheld_count(people, submit, score):
    """The adversary's later revision is withheld (no gain over its released one, at any c_w); an admin re-runs it
    and the new predictions get 400 right (a gain: published). Nothing about c_w may show."""
    worlds = Worlds()

    def build(c_w):
        submit(people["mallory"], "mallory/cheat", {"test": 300}, revision="0" * 40)
        submission, runs = submit(people["mallory"], "mallory/cheat", {"test": c_w})
        assert ladder_reason(runs["test"].pk) == "no-gain"
        again = rerun(runs["test"], people["root"], score, 400)
        assert ladder_reason(again.pk) == "gain"
        return submission.pk

    def crawl(pk):
        return fetch(people["clients"], [("adversary", reverse("api-submission-detail", args=[pk])),
                                         ("adversary", reverse("submission-status", args=[pk])),
                                         ("adversary", reverse("my-submissions"))])

    assert_indistinguishable({c_w: worlds.observe(lambda c_w=c_w: build(c_w), crawl) for c_w in WITHHELD})


# --- route 4: staff with view-only permissions -------------------------------------------------------------------

def test_view_only_staff_see_no_more_than_the_published_figure(people, submit, score):
    """Staff who may view contamination records, audit records and runs, after an admin re-scored the victim's
    sealed run and set δ₀ from it, and with a withheld run of the adversary's on the books."""
    worlds = Worlds()
    root = Client()
    root.force_login(people["root"])

    def build(c):
        _, runs = submit(people["victim"], VICTIM, {"validation": 360, "test": c})
        submit(people["mallory"], "mallory/cheat", {"validation": 300, "test": 300}, revision="0" * 40)
        submit(people["mallory"], "mallory/cheat", {"validation": 480, "test": c - 100})  # withheld
        set_delta0_from(DeltaPoint.objects.get(hub_id=VICTIM), people["root"])
        response = root.post(reverse("admin:evaluations_evaluationrun_changelist"), {
            "action": "rescore", "_selected_action": [runs["test"].pk], "apply": "1", "reason": "a scoring fix"},
            follow=True)
        assert "Re-score from stored predictions: 1 done" in response.content.decode()
        rescore = AuditRecord.objects.get(action="rescore")
        assert rescore.details == {"accuracy_before": None, "accuracy_after": None}
        return {"run": runs["test"].pk,
                "records": {model: list(model.objects.order_by("pk").values_list("pk", flat=True))
                            for model in (DeltaPoint, DeltaOffset, LadderDecision, AuditRecord)}}

    def crawl(context):
        urls = [reverse("admin:index")]
        for name in ("contamination_deltapoint", "contamination_deltaoffset", "contamination_ladderdecision",
                     "core_auditrecord", "evaluations_evaluationrun"):
            urls.append(reverse(f"admin:{name}_changelist"))
        urls.append(reverse("admin:evaluations_evaluationrun_changelist") + "?split__exact=test")
        for model, pks in context["records"].items():
            urls += [reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])
                     for pk in pks]
        urls.append(reverse("admin:evaluations_evaluationrun_change", args=[context["run"]]))
        seen = fetch(people["clients"], [("staff", u) for u in urls])
        exact = people["clients"]["staff"].get(reverse("admin:evaluations_evaluationrun_exact",
                                                       args=[context["run"]]))
        assert exact.status_code == 403  # the exact figures are for superusers only
        return seen

    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: build(c), crawl))
    points = seen[C0][("staff", reverse("admin:contamination_deltapoint_changelist"))][3]
    # The adversary's published revision is listed, its withheld one (revision a…) is not.
    assert "victim-org/model" in points and "mallory/cheat@000000000000" in points
    assert "mallory/cheat@aaaaaaaaaaaa" not in points
    assert "-9.0" in points  # the victim's Δ as published: 66 − 75


def test_exact_figures_are_for_a_superuser_through_an_audited_view(people, submit):
    _, runs = submit(people["victim"], VICTIM, {"validation": 360, "test": C0})
    url = reverse("admin:evaluations_evaluationrun_exact", args=[runs["test"].pk])
    assert people["clients"]["staff"].get(url).status_code == 403
    assert people["clients"]["staff"].post(url, {"reason": "curious"}).status_code == 403
    assert not AuditRecord.objects.filter(action="view-exact-figures").exists()
    root = people["clients"]["superuser"]
    form = root.get(url)
    assert form.status_code == 200 and f">{C0}<" not in form.content.decode().replace(" ", "")
    shown = root.post(url, {"reason": "an author disputes the score"})
    assert shown.status_code == 200 and f">{C0}<" in shown.content.decode().replace(" ", "")
    record = AuditRecord.objects.get(action="view-exact-figures")
    assert record.actor == people["root"] and record.target_id == str(runs["test"].pk)
    assert record.reason == "an author disputes the score" and str(C0) not in str(record.details)


# --- route 5: uploads (and route 6: another spelling) --------------------------------------------------------------

def upload(client, name, rows):
    file = io.BytesIO(("question_id,predicted_answer\n" + "".join(f"{uid},{letter}\n" for uid, letter, _ in rows))
                      .encode())
    file.name = "predictions.csv"
    return client.post(reverse("api-prediction-upload"),
                       {"name": name, "benchmark": BENCH, "split": "validation", "file": file})


def test_uploads_say_nothing_about_a_sealed_figure(people, victim_world, answers):
    """The adversary tries to upload validation predictions under the victim's name (in two spellings): refused,
    nothing stored. Under its own namespace, with chosen predictions: scored, listed under submitted predictions
    only, no Δ point; the victim's views are unchanged, and still identical across the victim's bin."""
    worlds = Worlds()
    adversary = people["clients"]["adversary"]
    mine = "mallory/probe"

    def build(c, uploads=True):
        context = victim_world(c)
        if not uploads:
            return context
        stored = [model.objects.count() for model in (ModelEntry, Submission, EvaluationRun, DeltaPoint)]
        for name in (VICTIM, "VICTIM-ORG/Model"):
            refused = upload(adversary, name, answers("validation", 480))
            assert refused.status_code == 403 and refused.json()["code"] == "NOT_NAMESPACE_OWNER", refused.content
            assert refused.json()["namespace"] == "victim-org"
        assert [model.objects.count() for model in (ModelEntry, Submission, EvaluationRun, DeltaPoint)] == stored
        for count in (480, 240):  # chosen validation figures, as for a bisection
            accepted = upload(adversary, mine, answers("validation", count))
            assert accepted.status_code == 201, accepted.content
        assert not DeltaPoint.objects.filter(hub_id__iexact=mine).exists()
        assert DeltaPoint.objects.count() == stored[3]
        return context

    lists = [("anonymous", _q(reverse(name), benchmark=BENCH)) for name in ("api-submitted-predictions",
                                                                          "api-leaderboard")]

    def crawl(context):
        return fetch(people["clients"], victim_urls(context) + lists)

    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: build(c), crawl))
    without = worlds.observe(lambda: build(C0, uploads=False), crawl)
    victims = [key for key in seen[C0] if key != lists[0]]
    assert [without[key] for key in victims] == [seen[C0][key] for key in victims], (
        "an upload changed what the victim's views show:\n" + difference(without, seen[C0]))
    submitted, measured = (seen[C0][key][3] for key in lists)
    assert mine in submitted and "submitted predictions" in submitted.lower()
    assert mine not in measured and "victim-org/model" in measured
    assert mine not in without[lists[0]][3]


def test_another_spelling_gets_no_fresh_quota_slot_or_model(people, answers, settings):
    """Route 6: `MALLORY/PROBE` is `mallory/probe`: the same model entry and the same quota; the victim's quota is
    untouched by the adversary's refused tries under `VICTIM-ORG/...`."""
    from leaderboard.submissions.models import NamespaceGrant

    settings.SUBMISSION_QUOTA = 2
    adversary = people["clients"]["adversary"]
    for name in ("mallory/probe", "MALLORY/PROBE"):
        response = upload(adversary, name, answers("validation", 240))
        assert response.status_code == 201 and response.json()["hub_id"] == "mallory/probe", response.content
    assert ModelEntry.objects.filter(hub_id__iexact="mallory/probe").count() == 1
    third = upload(adversary, "Mallory/Probe", answers("validation", 300))
    assert third.status_code == 429, third.content  # no fresh slot for a third spelling
    for name in (VICTIM, "VICTIM-ORG/MODEL", "Victim-Org/model"):
        assert upload(adversary, name, answers("validation", 300)).status_code == 403
    NamespaceGrant.objects.create(user=people["victim"], namespace="victim-org", reason="the organisation's owner")
    victim = Client()
    victim.force_login(people["victim"])
    own = upload(victim, "Victim-Org/Model", answers("validation", 300))
    assert own.status_code == 201 and own.json()["hub_id"] == "Victim-Org/Model", own.content
