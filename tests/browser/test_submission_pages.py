"""Submitting in a real browser: the server's refusal shows inline, and the status page's progress bar moves
while a real Celery worker evaluates the demo model from the fake hub."""

import pytest

from leaderboard.evaluations.models import TERMINAL_STATUSES, EvaluationRun
from leaderboard.hub.ids import HubIdError, validate_hub_id
from leaderboard.submissions.models import Submission
from tests.browser.harness import DESKTOP, needs_chromium, new_page, session_cookie_for
from tests.support.busy import Deadline
from tests.support.lifecycle import start_worker

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
FAST = dict(RUN_CHUNK_SIZE=48, RUN_LEASE_SECONDS=3, RUN_RETRY_DELAY_SECONDS=0, RUN_BATCH_SIZE=16, RUN_TORCH_THREADS=1)


@pytest.fixture
def signed_in_page(browser, live_server, author):
    page, problems = new_page(browser, live_server.url, DESKTOP, session_cookie=session_cookie_for(author))
    yield page, problems
    page.context.close()


def submit(page, hub_id):
    from django.urls import reverse

    page.goto(reverse("submit"))
    page.fill("form#submit-form [name=hub_id]", hub_id)
    with page.expect_navigation():
        page.click("form#submit-form [type=submit]")


def test_submit_form_shows_the_servers_validation_error(signed_in_page, demo_loaded, fake_hub):
    page, problems = signed_in_page
    with pytest.raises(HubIdError) as refusal:
        validate_hub_id("demo-org/ti..ny")
    submit(page, "demo-org/ti..ny")
    error = page.locator(".field-error").first
    error.wait_for()
    assert str(refusal.value) in error.inner_text()
    assert page.input_value("form#submit-form [name=hub_id]") == "demo-org/ti..ny"  # kept for correcting
    assert not Submission.objects.exists()
    assert not problems.items, problems.items


def _bars(page):
    """{progress id: (value, max)} of the page's run progress bars; None while the page reloads."""
    from playwright.sync_api import Error

    try:
        return {b[0]: (b[1], b[2]) for b in page.eval_on_selector_all(
            "progress[id^='run-progress-']", "bars => bars.map(b => [b.id, b.value, b.max])")}
    except Error:
        return None


@pytest.mark.slow
def test_status_page_progress_bar_advances_during_a_real_run(signed_in_page, demo_loaded, hub_model, redis_broker,
                                                             settings):
    for key, value in FAST.items():
        setattr(settings, key, value)
    settings.SUBMISSION_VALIDATION_VARIANTS = ["all"]  # 9 x 480 predictions: long enough for several polls
    page, problems = signed_in_page
    submit(page, "demo-org/tiny")
    submission = Submission.objects.get()
    assert page.url.endswith(f"/submissions/{submission.pk}/")
    run = EvaluationRun.objects.get(submission=submission, split="validation")
    bar = f"run-progress-{run.pk}"
    page.wait_for_selector(f"progress#{bar}")
    assert "1" in page.inner_text("#queue-position"), "a lone queued submission is first in the queue"
    seen = []  # (value, max) of the validation run's bar, as the page showed it
    with start_worker(**FAST) as worker:
        deadline = Deadline(240)
        while not deadline.passed():
            bars = _bars(page)
            if bars and bar in bars and (not seen or seen[-1] != bars[bar]):
                seen.append(bars[bar])
            if all(r.status in TERMINAL_STATUSES for r in EvaluationRun.objects.filter(submission=submission)):
                break
            page.wait_for_timeout(200)
        else:
            pytest.fail(f"the run did not finish; the bar showed {seen}\n{worker.log[-3000:]}")
    run.refresh_from_db()
    assert run.status == "succeeded", f"{run.status}: {run.failure_reason}\n{worker.log[-3000:]}"
    page.wait_for_function(f"() => {{ const b = document.getElementById('{bar}'); return b && b.value >= b.max; }}",
                           timeout=15_000)
    assert page.locator("#failure-reason").is_hidden()
    partial = [(v, m) for v, m in seen if 0 < v < m]
    values = [v for v, _ in seen]
    assert partial, f"the progress bar never showed a run in progress: {seen}"
    assert values == sorted(values) and values[-1] > values[0], f"the progress bar did not move forward: {seen}"
    assert not problems.items, problems.items  # the page reloads itself when the run ends: nothing else failed
