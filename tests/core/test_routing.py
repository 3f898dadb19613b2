"""Large models go to GPU workers with enough memory: one Celery queue per size class."""
import pytest
from celery.app.routes import Router, prepare
from django.core.exceptions import ImproperlyConfigured

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.celery import app
from leaderboard.core.routing import gpu_queue_for_params, parse_gpu_queues
from leaderboard.evaluations import lifecycle, services
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.evaluations.routing import gpu_queue_for_run
from leaderboard.submissions.models import ModelEntry, Submission

CLASSES = "gpu-small:14e9,gpu-medium:60000000000,gpu-large"


def test_it_works():
    classes = parse_gpu_queues(CLASSES)
    assert [(c.queue, c.below_params) for c in classes] == [
        ("gpu-small", 14_000_000_000), ("gpu-medium", 60_000_000_000), ("gpu-large", None)]
    assert gpu_queue_for_params(1_500_000_000, classes) == "gpu-small"
    assert gpu_queue_for_params(14_000_000_000, classes) == "gpu-medium"  # bounds are exclusive
    assert gpu_queue_for_params(70_000_000_000, classes) == "gpu-large"
    assert gpu_queue_for_params(None, classes) == "gpu-large"  # unknown size: the biggest GPUs


def test_it_keeps_one_gpu_queue_by_default():
    classes = parse_gpu_queues("")
    assert gpu_queue_for_params(70_000_000_000, classes) == "gpu"


@pytest.mark.parametrize("spec", ["gpu-small,gpu-large", "gpu-small:14e9", "gpu-small:big,gpu-large",
                                  "gpu-small:20e9,gpu-medium:10e9,gpu-large", ":14e9,gpu-large"])
def test_it_refuses_a_malformed_spec(spec):
    with pytest.raises(ImproperlyConfigured, match="GPU_QUEUES="):
        parse_gpu_queues(spec)


@pytest.fixture
def run_of_model(demo_loaded, django_user_model):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    author = django_user_model.objects.create_user("author", password="x")

    def make(hub_id, params, *, with_submission=True):
        model = ModelEntry.objects.create(hub_id=hub_id, namespace=hub_id.split("/")[0], params=params)
        submission = Submission.objects.create(submitter=author, model=model) if with_submission else None
        return services.run_create(version=version, split="validation", model_ref=hub_id, submission=submission)

    return make


@pytest.mark.django_db
def test_it_routes_a_run_by_its_models_size(run_of_model, settings):
    settings.GPU_QUEUE_CLASSES = parse_gpu_queues(CLASSES)
    small = run_of_model("org/small-3b", 3_000_000_000)
    large = run_of_model("org/large-70b", 70_000_000_000, with_submission=False)  # found by hub id
    unknown = run_of_model("org/unknown", None)
    queue = {run: gpu_queue_for_run(run.pk) for run in (small, large, unknown)}
    assert queue == {small: "gpu-small", large: "gpu-large", unknown: "gpu-large"}


def test_a_message_published_without_a_queue_goes_by_its_task():
    """Every publish names its queue; the project's CELERY_TASK_ROUTES only default the task's own queue."""
    from django.conf import settings

    router = Router(prepare(settings.CELERY_TASK_ROUTES), app.amqp.queues, create_missing=True, app=app)
    assert router.route({}, "evaluator.predict_run", args=(1,))["queue"].name == "gpu"
    assert router.route({}, "evaluations.score_run", args=(1,))["queue"].name == "default"


@pytest.mark.django_db  # importing the tasks as a worker does runs the system checks, which read the sealed keys' data
def test_the_prediction_task_keeps_its_name_where_workers_find_it():
    """Autodiscovery (no CELERY_IMPORTS) registers it under the name queued messages and the route carry."""
    from leaderboard.evaluations.tasks import predict_run

    app.loader.import_default_modules()
    assert app.tasks["evaluator.predict_run"] == predict_run  # the registered task (shared_task gives a proxy)
    assert predict_run.acks_late and predict_run.reject_on_worker_lost


@pytest.mark.django_db
def test_it_sends_every_run_to_gpu_without_size_classes(run_of_model, django_assert_num_queries):
    run = run_of_model("org/large-70b", 70_000_000_000)
    with django_assert_num_queries(0):  # no lookup when there is one queue
        assert gpu_queue_for_run(run.pk) == "gpu"


@pytest.mark.django_db
def test_an_enqueued_run_is_published_to_its_size_class(run_of_model, settings, django_capture_on_commit_callbacks):
    import redis

    settings.GPU_QUEUE_CLASSES = parse_gpu_queues(CLASSES)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("gpu-large", "gpu-small", "gpu")
    large = run_of_model("org/large-70b", 70_000_000_000)
    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.run_enqueue(run=large, route=True)
    large.refresh_from_db()
    assert large.queue == "gpu-large"  # stored, so queue positions count the right queue
    assert broker.llen("gpu-large") == 1 and broker.llen("gpu-small") == broker.llen("gpu") == 0
    broker.delete("gpu-large")


@pytest.fixture
def broker(settings):
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queues = ("gpu-large", "gpu-medium", "gpu-small", "gpu")
    client.delete(*queues)
    yield client
    client.delete(*queues)


@pytest.mark.django_db
def test_a_retry_keeps_the_runs_stored_queue(run_of_model, settings, broker, django_capture_on_commit_callbacks):
    """The GPU worker enqueues a retry; it must not route (its role reads no submissions, writes no queue)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.GPU_QUEUE_CLASSES = parse_gpu_queues(CLASSES)
    run = run_of_model("org/large-70b", 70_000_000_000)
    lifecycle.run_enqueue(run=run, route=True)
    assert lifecycle.run_claim_for_worker(run_id=run.pk) is not None
    ModelEntry.objects.filter(hub_id="org/large-70b").update(params=3_000_000_000)  # the router would now differ
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        status = lifecycle.run_attempt_failed(run_id=run.pk, attempt=1, code="EVALUATION_ERROR", excerpt="flaky GPU")
    run.refresh_from_db()
    assert status == RunStatus.QUEUED and run.queue == "gpu-large" and run.attempts == 1
    assert broker.llen("gpu-large") == 1 and broker.llen("gpu-small") == 0
    assert not [q["sql"] for q in queries if "submissions_" in q["sql"] or '"summary"' in q["sql"]]


@pytest.mark.django_db
def test_the_reconciler_routes_only_runs_never_enqueued(run_of_model, settings, broker,
                                                        django_capture_on_commit_callbacks):
    settings.GPU_QUEUE_CLASSES = parse_gpu_queues(CLASSES)
    stale = run_of_model("org/stale-70b", 70_000_000_000)
    fresh = run_of_model("org/never-3b", 3_000_000_000)
    EvaluationRun.objects.filter(pk=stale.pk).update(queue="gpu-medium", enqueued_at="2020-01-01T00:00Z")
    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.reconcile() == 2
    assert dict(EvaluationRun.objects.filter(pk__in=[stale.pk, fresh.pk]).values_list("model_ref", "queue")) == {
        "org/stale-70b": "gpu-medium", "org/never-3b": "gpu-small"}
    assert broker.llen("gpu-small") == 1 and broker.llen("gpu-medium") == 1
