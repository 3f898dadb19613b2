"""Per-topic naming as a threshold oracle (issue 22, finding 9), played with the adversary suite's method
(tests/contamination/test_adversary.py): counterfactual worlds that differ only in the secret, here one unit's
sealed count.

The attack. Validation answers are public, so a crafted model chooses its validation count in any unit (a topic,
or small topics pooled). Weights are fixed per revision, but the model can tell the run's settings apart from its
prompt (chat template on or off, log-probabilities or generation), and every submission of one pinned (model,
revision, precision) with other settings gets a validation run of its own that pairs with the one sealed run of
that revision (contamination.services._counterpart keys the pair by model, revision, precision, benchmark
version and shots; submissions.services._queue_runs makes the sealed run once). So one sealed run is probed with a
validation count per setting, and after each the adversary reads which units are named, on every surface. If the
validation count from which a unit is named moves with the unit's sealed count (the old rule: Fisher's exact test
on the exact counts), the names pin the unit's sealed count, finer than anything published about the split.

The rule must make the names a function of public inputs only. Each world's unit count c_u keeps the run's total
inside one published bin, so every world here publishes the same figure, and nothing the adversary reads may
differ between them.
"""
import pytest
from django.urls import reverse

from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.contamination import selectors
from leaderboard.contamination.models import DeltaPoint
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.hub.ids import ModelRef
from leaderboard.submissions.models import ModelType
from leaderboard.submissions.services import submission_create
from tests.contamination.adversary import BENCH, N_TEST, Worlds, _q, assert_bin_hidden, fetch, ladder_reason

pytestmark = pytest.mark.django_db

HUB = "demo-org/tiny"  # the adversary's crafted model (any hub model may be submitted by anyone)
UNIT = "business-career/personal-business"  # a subcategory of 4 demo topics: 24 validation, 24 test questions
REST_T = 306  # the sealed run's count outside the unit: with 6 to 15 inside it, the run publishes 66 (312–321)
C0 = REST_T + 10
# What the model answers right in the unit on validation, by the run's settings (mode, chat template): the
# probes. Elsewhere it answers every validation question right, so it is flagged overall (99 % against 66).
PROBES = {("logprobs", False): 18, ("logprobs", True): 20, ("generate", False): 22, ("generate", True): 23}


def _round_robin(questions, topics):
    """uid -> rank among `topics`' questions, dealt round-robin over the topics (each topic's k-th question
    before any topic's (k+1)-th): the c lowest ranks spread a count c evenly."""
    order, seen = [], {}
    for uid, _, slug in questions:
        if slug in topics:
            seen[slug] = seen.get(slug, -1) + 1
            order.append(((seen[slug], sorted(topics).index(slug)), uid))
    return {uid: rank for rank, (_, uid) in enumerate(sorted(order))}


@pytest.fixture
def intake(people, hub_model, settings):
    """The adversary submits one pinned revision once per setting: model type (pretrained, instruct, reasoning:
    log-probabilities or generation) × chat template. Returns the one sealed run and the validation runs."""
    settings.SUBMISSION_VALIDATION_VARIANTS = ["original"]
    settings.SUBMISSION_QUOTA = 6  # the quota (5 a week) paces the attack, it does not stop it
    submissions = [submission_create(user=people["mallory"], ref=ModelRef(HUB), model_type=kind,
                                     use_chat_template=chat)
                   for kind in (ModelType.PRETRAINED, ModelType.INSTRUCT, ModelType.REASONING) for chat in (False, True)]
    runs = EvaluationRun.objects.filter(submission__in=submissions).order_by("pk")
    sealed = runs.get(split="test")  # one per pinned revision, whatever the settings
    validation = list(runs.filter(split="validation"))
    assert len(validation) == 6 and {(r.mode, r.use_chat_template) for r in validation} == set(PROBES)
    return sealed, validation


@pytest.fixture
def oracle_world(people, make_run, questions, intake):
    """build(c): the sealed run gets c right (c − REST_T of them in the unit), then each validation run is
    scored in turn with its setting's probe, and the adversary crawls after each: the board shows a model
    revision's latest point, so each probe is read before the next replaces it."""
    sealed, validation = intake
    tree = selectors.topic_tree(benchmark=sealed.benchmark_version.benchmark)
    unit = {slug for slug, branch in tree.items() if branch[0] == UNIT}
    assert len(unit) == 4
    rest = {slug for _, _, slug in questions["test"]} - unit
    test_in, test_out = _round_robin(questions["test"], unit), _round_robin(questions["test"], rest)
    val_in = _round_robin(questions["validation"], unit)

    def build(c):
        make_run(HUB, "test", lambda i, uid, slug: (test_in[uid] < c - REST_T) if slug in unit
                 else test_out[uid] < REST_T, run=sealed)
        assert ladder_reason(sealed.pk) == "first"  # published: its figure, Δ and flag are public
        seen = {}
        for step, run in enumerate(validation):
            probe = PROBES[(run.mode, run.use_chat_template)]
            make_run(HUB, "validation", lambda i, uid, slug, probe=probe: slug not in unit or val_in[uid] < probe,
                     run=run)
            point = DeltaPoint.objects.get(validation_run=run)
            assert point.test_run_id == sealed.pk  # every setting pairs with the one sealed run
            seen.update({(step, *key): view for key, view in fetch(people["clients"], crawl_urls(point)).items()})
        return seen

    return build


def crawl_urls(point):
    """Everything that shows the model's per-topic evidence after `point`, to everyone who can fetch it: the
    contamination API (JSON and CSV: the board, its history, the model's view), the contamination page, the model
    page, and the staff admin of Δ points (the list, and the new point)."""
    model = reverse("api-contamination-model", args=[HUB])
    urls = [_q(reverse(name), benchmark=BENCH) for name in ("api-contamination", "api-contamination-history")]
    urls = [u + suffix for u in urls for suffix in ("", "&format=csv")]
    urls += [model, model + "?format=csv", _q(reverse("contamination"), benchmark=BENCH),
             reverse("model-detail", args=[HUB])]
    staff = [reverse("admin:contamination_deltapoint_changelist"),
             reverse("admin:contamination_deltapoint_change", args=[point.pk])]
    return [("anonymous", u) for u in urls] + [("staff", u) for u in staff]


def named(seen) -> list[bool]:
    """The adversary's read-out: after each probe, is the unit named on the contamination board?"""
    board = _q(reverse("api-contamination"), benchmark=BENCH)
    steps = sorted({key[0] for key in seen})
    return [f'"topic_slug":"{UNIT}"' in seen[(step, "anonymous", board)][3] for step in steps]


def test_the_names_of_units_narrow_no_sealed_count(people, oracle_world):
    """The unit's sealed count c − 306 is 6, 10 or 15 of 24 (the run publishes 66 each time) or, just outside the
    bin, 5 or 16. The old rule named the unit from validation count 16, 20 and 23 respectively: its four probes
    (18, 20, 22, 23) told the three apart."""
    worlds = Worlds()
    assert publish(C0, N_TEST).counts() == range(REST_T + 6, REST_T + 16)  # the unit's 6 to 15 of 24
    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: oracle_world(c), lambda crawl: crawl), c0=C0)
    # The oracle answers: the probes name the unit from some validation count on, so the names would carry the
    # secret if the rule read it.
    assert named(seen[C0]) == [False] * 5 + [True], named(seen[C0])  # probes 18, 20, 18, 20, 22, 23
