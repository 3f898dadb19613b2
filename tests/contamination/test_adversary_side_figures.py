"""The adversary suite's method (tests/contamination/test_adversary.py) on two side measurements that used to
publish sealed figures of their own (issue 22, findings 4 and 6).

(a) The memorization probe: worlds that differ only in the sealed split's probe outcome (how many sealed masked
    options the model reproduces, and which of the seed-chosen options are wrong, a fact about the answer key)
    crawl identically for anonymous visitors, a signed-in adversary and view-only staff; a world with another
    validation outcome does not, so the crawl sees the probe.
(b) MRScore: worlds that differ only in one sealed question's judge verdict (its score, its method, the judge's
    probability mass) crawl identically over every MRScore surface; a world where an open question's score changes
    does not.
"""
import io

import pytest
from django.contrib.auth.models import Permission
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from evaluator.judges import PROMPT_VERSION
from leaderboard.benchmarks.models import Question
from leaderboard.contamination.models import DeltaPoint
from leaderboard.evaluations import notices
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.mrscore import services as mrscore_services
from leaderboard.mrscore.models import JobStatus, MRScoreChunk, MRScoreJob
from tests.contamination.adversary import (BENCH, VICTIM, Worlds, _q, assert_indistinguishable, board_urls, fetch,
                                           model_urls, normalise, page_urls)

pytestmark = pytest.mark.django_db


def _admin(name, *args, **params):
    return _q(reverse(f"admin:{name}", args=args), **params)


# --- (a) the memorization probe ---------------------------------------------------------------------------------

# A sealed outcome: (how many of the first questions get the right option masked — those are not counted, so this
# is which seed-chosen options are wrong; how many masked options the model reproduces word for word).
SEALED_PROBES = ((0, 0), (0, 120), (120, 0), (120, 60), (300, 180))


def _probe_rows(version, split, *, right_masked, exact):
    key = run_selectors.answer_key(version=version, split=split)
    rows = []
    for i, (uid, options) in enumerate(version.questions.filter(split=split).order_by("position")
                                       .values_list("uid", "options")):
        letters = "ABCDEFGHIJ"[:len(options)]
        masked = sorted(key[uid])[0] if i < right_masked else next(L for L in letters if L not in key[uid])
        rows.append({"question_id": uid, "masked": masked, "exact": i < exact})
    return rows


@pytest.fixture
def probe_world(people, make_run, version):
    """build(sealed, validation): the victim's model measured on both splits with the probe asked for, its sealed
    run's probe rows built from `sealed` (they reach the trusted side as a GPU worker would have stored them), and
    its validation run's from `validation`; the author's notice of the sealed run is sent."""

    def build(sealed, validation=(0, 240)):
        mail.outbox.clear()
        val = make_run(VICTIM, "validation", 360, submitter=people["victim"],
                       probe_rows=_probe_rows(version, "validation", right_masked=validation[0], exact=validation[1]))
        test = make_run(VICTIM, "test", 316, submitter=people["victim"],
                        probe_rows=_probe_rows(version, "test", right_masked=sealed[0], exact=sealed[1]))
        notices.run_notify(run_id=test.pk)
        assert DeltaPoint.objects.filter(hub_id=VICTIM).count() == 1
        return {"runs": [val.pk, test.pk], "point": DeltaPoint.objects.get().pk,
                "submissions": [val.submission_id, test.submission_id]}

    return build


def probe_crawl(people, context) -> dict:
    """Everything about the victim's model anyone can fetch (contamination API JSON and CSV, the model's
    contamination view, pages, exports, submission status), what view-only staff see in the admin (lists, the Δ
    point and the runs, lookups on the stored probe figures), and the author's e-mail."""
    val, test = context["runs"]
    urls = [("anonymous", u) for u in board_urls() + model_urls(VICTIM, context["runs"])]
    urls += [(role, u) for role in ("anonymous", "adversary") for u in page_urls([VICTIM])]
    for pk in context["submissions"]:
        urls += [("anonymous", reverse("api-submission-detail", args=[pk])),
                 ("anonymous", reverse("submission-status", args=[pk]))]
    urls += [("staff", u) for u in (
        _admin("index"), _admin("contamination_deltapoint_changelist"),
        _admin("contamination_deltapoint_change", context["point"]),
        _admin("contamination_deltapoint_changelist", probe__test__exact="0"),
        _admin("contamination_deltapoint_changelist", probe__test__n__gte="400"),
        _admin("evaluations_evaluationrun_changelist"), _admin("evaluations_evaluationrun_change", test),
        _admin("evaluations_evaluationrun_changelist", summary__probe__exact="0"))]
    seen = fetch(people["clients"], urls)
    for i, message in enumerate(mail.outbox):
        seen[("victim", f"e-mail {i}")] = (None, message.subject, ",".join(message.to), normalise(message.body))
    return seen


def test_the_sealed_probe_outcome_is_not_published(people, probe_world):
    worlds = Worlds()

    def observe(sealed, validation=(0, 240)):
        return worlds.observe(lambda: probe_world(sealed, validation), lambda ctx: probe_crawl(people, ctx))

    seen = {sealed: observe(sealed) for sealed in SEALED_PROBES}
    assert_indistinguishable(seen)
    # The crawl sees the probe: the validation rate is published, and a world with another one looks different.
    board = seen[SEALED_PROBES[0]][("anonymous", _q(reverse("api-contamination"), benchmark=BENCH))][3]
    assert '"probe":{"validation":{"n":480,"exact":240,"rate":50.0' in board
    assert observe(SEALED_PROBES[0], validation=(0, 300)) != seen[SEALED_PROBES[0]]


# --- (b) MRScore ------------------------------------------------------------------------------------------------

def _verdict(position, split):
    """Every other question's verdict: a score that depends on the question alone, the same in every world."""
    return {"score": 1.0 + (7 * position + len(split)) % 9, "method": "logprobs", "raw": "", "mass": 0.9}


# The secret: one sealed question's verdict.
SEALED_VERDICTS = ({"score": 1.0, "method": "logprobs", "raw": "", "mass": 0.9},
                   {"score": 10.0, "method": "logprobs", "raw": "", "mass": 0.2},
                   {"score": 6.5, "method": "parsed", "raw": "6.5"},
                   {"score": None, "method": "unparsable", "raw": "no score"})


@pytest.fixture
def mrscore_world(people, version):
    """build(sealed, open_score): a judge job over every split finalised through the service, whose verdicts are
    fixed except the first sealed question of one topic (`sealed`) and, for the control, the first validation
    question of that topic (`open_score`). View-only staff may view MRScore records too."""
    people["staff"].user_permissions.add(*Permission.objects.filter(codename__startswith="view_",
                                                                     content_type__app_label="mrscore"))
    target = Question.objects.filter(version=version, split="test").order_by("position").first()
    opened = Question.objects.filter(version=version, split="validation", topic=target.topic).order_by("position")[0]

    def build(sealed, open_score=None):
        job = MRScoreJob.objects.create(
            benchmark_version=version, splits=["dev", "validation", "test"], judge_kind="http",
            judge_model="judge-x", judge_revision="r1", judge_endpoint="http://127.0.0.1:9/v1",
            prompt_version=PROMPT_VERSION, prompt_hash="0" * 64, status=JobStatus.RUNNING, chunk_size=10_000)
        rows = []
        for uid, split, position in (Question.objects.filter(version=version).order_by("split", "position")
                                     .values_list("uid", "split", "position")):
            verdict = _verdict(position, split)
            if uid == target.uid:
                verdict = sealed
            elif uid == opened.uid and open_score is not None:
                verdict = {**verdict, "score": open_score}
            rows.append({"uid": uid, **verdict})
        MRScoreChunk.objects.create(job=job, index=0, rows=rows)
        job = mrscore_services.job_finalize(job=job)
        assert job.status == JobStatus.SUCCEEDED
        return {"job": job.pk, "topic": target.topic.slug}

    return build


def mrscore_crawl(people, context) -> dict:
    """Every MRScore surface: the API (topics, questions, distribution, jobs; JSON and CSV), the pages (MRScore,
    the topic's, topics, boards), the admin's job list, lookups on its summary and its page with the topic rows,
    and the `mrscore --show` command's output."""
    job, topic = context["job"], context["topic"]
    api = [reverse("api-mrscore-topics", args=[BENCH]), reverse("api-mrscore-questions", args=[BENCH]),
           reverse("api-mrscore-distribution")]
    urls = [u + suffix for u in api for suffix in ("", "?format=csv")]
    urls += [_q(api[1], topic=topic, limit="5000"), _q(api[1], topic=topic, split="test"),
             reverse("api-mrscore-jobs"), reverse("api-mrscore-job", args=[job]),
             _q(reverse("mrscore"), benchmark=BENCH), _q(reverse("topic-detail", args=[topic]), benchmark=BENCH),
             _q(reverse("topics"), benchmark=BENCH), _q(reverse("benchmark-detail", args=[BENCH]))]
    urls = [(role, u) for role in ("anonymous", "adversary") for u in urls + page_urls()]
    urls += [("staff", u) for u in (
        _admin("mrscore_mrscorejob_changelist"), _admin("mrscore_mrscorejob_change", job),
        _admin("mrscore_mrscorejob_changelist", summary__by_split__test__mean__gte="5"),
        _admin("mrscore_mrscorejob_changelist", summary__n_unparsable="0"))]
    seen = fetch(people["clients"], urls)
    for flags in ((), ("--json",)):
        out = io.StringIO()
        call_command("mrscore", "--show", str(job), *flags, stdout=out)
        seen[("operator", f"mrscore --show {' '.join(flags)}")] = (None, "", "", normalise(out.getvalue()))
    return seen


def test_a_sealed_questions_judge_score_is_not_published(people, mrscore_world):
    worlds = Worlds()

    def observe(sealed, open_score=None):
        return worlds.observe(lambda: mrscore_world(sealed, open_score), lambda ctx: mrscore_crawl(people, ctx))

    seen = {i: observe(verdict) for i, verdict in enumerate(SEALED_VERDICTS)}
    assert_indistinguishable(seen)
    # The crawl sees the scores: the same change to an open question of the topic shows.
    changed = observe(SEALED_VERDICTS[0], open_score=10.0)
    differs = {key for key in seen[0] if seen[0][key] != changed[key]}
    assert ("anonymous", reverse("api-mrscore-topics", args=[BENCH])) in differs
    assert ("anonymous", _q(reverse("mrscore"), benchmark=BENCH)) in differs
