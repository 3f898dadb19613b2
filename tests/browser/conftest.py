import pytest
from django.contrib.auth.models import User

from tests.browser.harness import CHROMIUM, SiteIds, chromium


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module."""
    if not CHROMIUM:
        pytest.skip("no chromium binary on PATH (apt-get install chromium; .ci/run does)")
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def browser_if_any():
    """Chromium when installed, else None (tests that have a fallback without a browser)."""
    if not CHROMIUM:
        yield None
        return
    with chromium() as launched:
        yield launched


@pytest.fixture
def author(db):
    return User.objects.create_user("author", "author@example.com", "pw")


@pytest.fixture
def site(demo_loaded, _captured, author, hub_model, redis_broker) -> SiteIds:
    """Demo questions, six scored models, an MRScore job and a queued submission; the ids pages need."""
    from leaderboard.benchmarks.models import Topic
    from leaderboard.results.models import ResultAggregate
    from leaderboard.hub.ids import ModelRef
    from leaderboard.submissions.services import submission_create
    from tests.browser.site_data import MODEL_WITH_EVERYTHING, site_seed
    from tests.support.demo_snapshot import capture, restore

    # The rows site_seed adds, captured once per process (scoring six models through the real path took 1.1-1.4 s in
    # each of about 30 tests), then inserted; site_seed itself runs where they would not fit.
    if "site" not in _captured:
        _captured["site"] = capture(site_seed)
    restore(_captured["site"], site_seed)
    submission = submission_create(user=author, ref=ModelRef("demo-org/tiny"))
    topic_key = (ResultAggregate.objects.filter(result__hub_id=MODEL_WITH_EVERYTHING, level="topic")
                 .order_by("key").values_list("key", flat=True).first())
    topic = Topic.objects.get(benchmark__slug="mobile-mmlu", slug=topic_key)
    return SiteIds(hub_id=MODEL_WITH_EVERYTHING, benchmark="mobile-mmlu", topic=topic.slug,
                   submission=submission.pk, run=submission.runs.order_by("pk").first().pk)
