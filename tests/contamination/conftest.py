"""Scored runs built from constructed predictions and scored by the real trusted path (run_score), and the people
of the adversary suite (tests/contamination/adversary.py) with their clients."""
from collections import Counter

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from leaderboard.benchmarks.models import OPTION_LETTERS, Benchmark
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.submissions.models import ModelEntry, Submission


def _wrong(options, key):
    return next(L for L in OPTION_LETTERS[:len(options)] if L not in key)


@pytest.fixture
def version(demo_loaded):
    return Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()


@pytest.fixture
def questions(version):
    """split -> [(uid, topic hub field, topic slug)] in position order."""
    return {split: list(version.questions.filter(split=split).order_by("position")
                        .values_list("uid", "topic__hub_field", "topic__slug"))
            for split in ("validation", "test")}


@pytest.fixture
def make_run(version):
    """make_run(hub_id, split, correct) — `correct`: the first k questions, or a predicate on (index, uid, topic);
    `submitter`: the account whose submission the run belongs to (none: an operator's run); `run`: play the GPU
    worker for this run (one the intake created) instead of creating one."""

    def make(hub_id, split, correct, *, revision="a" * 40, precision="bfloat16", probe_rows=(), submitter=None,
             run=None):
        key = run_selectors.answer_key(version=version, split=split)
        rows = []
        qs = version.questions.filter(split=split).order_by("position").values_list(
            "uid", "options", "topic__hub_field", "topic__slug")
        for i, (uid, options, topic, slug) in enumerate(qs):
            ok = i < correct if isinstance(correct, int) else correct(i, uid, slug)
            letter = sorted(key[uid])[0] if ok else _wrong(options, key[uid])
            rows.append({"question_id": uid, "variant": "original", "topic": topic, "predicted_original": letter,
                         "predicted": letter})
        if run is not None:
            EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.SCORING)
            run.refresh_from_db()
        else:
            entry = (ModelEntry.objects.filter(hub_id__iexact=hub_id).first()
                     or ModelEntry.objects.create(hub_id=hub_id, namespace=hub_id.split("/")[0].lower(),
                                                  params=1_000_000_000))
            submission = submitter and Submission.objects.create(
                submitter=submitter, model=entry, revision_sha=revision, precision=precision,
                benchmarks=["mobile-mmlu"])
            run = EvaluationRun.objects.create(
                benchmark_version=version, split=split, model_ref=hub_id, model_revision=revision,
                precision=precision, variants=["original"], status=RunStatus.SCORING,
                dataset_hash=version.split_hashes[split], probe=bool(probe_rows), probe_rows=list(probe_rows),
                submission=submission or None)
        PredictionChunk.objects.create(run=run, index=0, rows=rows)
        return scoring.run_score(run=run)

    return make


# --- scored runs --------------------------------------------------------------------------------------------------

@pytest.fixture
def spread(version):
    """split -> question uid -> rank. A count c makes the c lowest-ranked questions right, dealt round-robin over
    the topics (every topic's k-th question before any topic's (k+1)-th), so each topic gets c/80 of them: the
    per-topic evidence never singles a topic out, and a higher count is a superset (a real Ladder gain)."""
    ranks = {}
    for split in ("validation", "test"):
        topics, seen, keyed = {}, Counter(), []
        for uid, slug in version.questions.filter(split=split).order_by("position").values_list("uid", "topic__slug"):
            keyed.append(((seen[slug], topics.setdefault(slug, len(topics))), uid))
            seen[slug] += 1
        ranks[split] = {uid: rank for rank, (_, uid) in enumerate(sorted(keyed))}
    return ranks


@pytest.fixture
def answers(version, spread):
    """answers(split, count) -> [(uid, letter, topic hub field)]: the predictions of a model that gets the `count`
    lowest-ranked questions right and the others wrong (built from the answer key, as the test fixtures do)."""
    questions = {split: list(version.questions.filter(split=split).order_by("position")
                             .values_list("uid", "options", "topic__hub_field"))
                 for split in ("validation", "test")}
    keys = {split: run_selectors.answer_key(version=version, split=split) for split in questions}

    def letters(split, count):
        key, rank = keys[split], spread[split]
        return [(uid, sorted(key[uid])[0] if rank[uid] < count
                 else next(L for L in OPTION_LETTERS[:len(options)] if L not in key[uid]), topic)
                for uid, options, topic in questions[split]]

    return letters


@pytest.fixture
def score(version, answers):
    """score(hub_id, split, count, submission=..., revision=..., precision=...): a run built from constructed
    predictions and scored by the trusted path (scoring.run_score), as tests/contamination/conftest.py does;
    score(..., run=an existing run) plays the GPU worker for that run (a re-run) and scores it. `extra(uid, letter)`:
    what else a question's row holds (a generation's text, whether a letter was read from it); `fields`: the run's
    other fields (backend, protocol, mode...)."""

    def run(hub_id, split, count, *, submission=None, revision="a" * 40, precision="bfloat16", run=None,
            extra=None, **fields):
        if not ModelEntry.objects.filter(hub_id__iexact=hub_id).exists():
            ModelEntry.objects.create(hub_id=hub_id, namespace=hub_id.split("/")[0].lower(), params=1_000_000_000)
        rows = [{"question_id": uid, "variant": "original", "topic": topic, "predicted_original": letter,
                 "predicted": letter, **(extra(uid, letter) if extra else {})}
                for uid, letter, topic in answers(split, count)]
        if run is None:
            run = EvaluationRun.objects.create(
                benchmark_version=version, split=split, model_ref=hub_id, model_revision=revision,
                precision=precision, variants=["original"], status=RunStatus.SCORING,
                dataset_hash=version.split_hashes[split], submission=submission, **fields)
        else:
            EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.SCORING)
            run.refresh_from_db()
        PredictionChunk.objects.create(run=run, index=0, rows=rows)
        return scoring.run_score(run=run)

    return run


@pytest.fixture
def submit(score):
    """submit(user, hub_id, {split: count}, revision=...): one submission of `user` with a scored run per split
    (validation first), as a real submission has; returns the submission and its runs by split."""

    def make(user, hub_id, counts, *, revision="a" * 40, precision="bfloat16"):
        entry = (ModelEntry.objects.filter(hub_id__iexact=hub_id).first()
                 or ModelEntry.objects.create(hub_id=hub_id, namespace=hub_id.split("/")[0].lower(),
                                              params=1_000_000_000))
        submission = Submission.objects.create(submitter=user, model=entry, revision=revision, revision_sha=revision,
                                               precision=precision, benchmarks=["mobile-mmlu"])
        runs = {split: score(hub_id, split, count, submission=submission, revision=revision, precision=precision)
                for split, count in counts.items()}
        return submission, runs

    return make


# --- people and their clients ---------------------------------------------------------------------------------------

@pytest.fixture
def people(db, settings):
    """The victim (a model's submitter), the adversary (a signed-in account), view-only staff and a superuser,
    with a client each (signed in before the first world, so every world has the same sessions)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    victim = User.objects.create_user("vera", "vera@example.com", "pw")
    mallory = User.objects.create_user("mallory", "mallory@example.com", "pw")
    staff = User.objects.create_user("staff", "staff@example.com", "pw", is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(
        codename__startswith="view_", content_type__app_label__in=["contamination", "core", "evaluations"]))
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    clients = {"anonymous": Client()}
    for role, user in (("adversary", mallory), ("staff", staff), ("superuser", root)):
        clients[role] = Client()
        clients[role].force_login(user)
    return {"victim": victim, "mallory": mallory, "staff": staff, "root": root, "clients": clients}
