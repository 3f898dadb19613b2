"""Leak test (ARCHITECTURE §6): a sealed split whose every question id, question, option and correct answer
carries a unique canary goes through the whole service — submissions evaluated by real workers (with the
memorization probe), a failing model, an MRScore job whose judge quotes the questions back — and then every
URL of the OpenAPI schema (real ids filled in), every page, every CSV and every admin list is fetched as an
anonymous user, a signed-in user, staff and a superuser. No response body, log line (web, GPU worker,
scoring worker), task message or Celery task result holds a sealed canary. The open validation split
carries canaries too, and the same search finds those: the search works."""
import csv
import io
import json
import re

import pytest
import redis
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver

from leaderboard.benchmarks.demo import DEMO_DIR
from leaderboard.benchmarks.services import benchmark_import
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.mrscore.models import MRScoreJob
from leaderboard.submissions.models import ModelEntry, Submission
from tests.mrscore.conftest import judge_server  # noqa: F401  (fixture)
from tests.support.fake_hub import files_from_folder
from tests.support.lifecycle import BROKER, flush_broker, start_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
SEALED = re.compile(r"SEALED[IQOA]\d{4}X")
OPEN = re.compile(r"OPEN[IQ]\d{4}X")
FAST = dict(RUN_CHUNK_SIZE=240, RUN_LEASE_SECONDS=60, RUN_RETRY_DELAY_SECONDS=0, RUN_BATCH_SIZE=32,
            RUN_TORCH_THREADS=1)


def _write_bank(root):
    """The demo bank with canaries: every sealed id, question, option and answer option; open ids and questions."""
    answers = {}
    for split in ("dev", "validation", "test"):
        with open(DEMO_DIR / "answers" / f"{split}.csv", newline="") as f:
            answers[split] = {row["question_id"]: row["answer"] for row in csv.DictReader(f)}
    n = 0
    for split in ("dev", "validation", "test"):
        (root / split).mkdir(parents=True)
        key_rows = []
        for path in sorted((DEMO_DIR / split).glob("*.csv")):
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                fields, rows = reader.fieldnames, list(reader)
            for row in rows:
                n += 1
                letters = answers[split][row["question_id"]].split(",")
                if split == "test":
                    row["question_id"] = f"SEALEDI{n:04d}X"
                    row["Question"] = f"SEALEDQ{n:04d}X {row['Question']}"
                    for letter in "ABCD":
                        mark = "SEALEDA" if letter in letters else "SEALEDO"
                        row[letter] = f"{mark}{n:04d}X {row[letter]}"
                elif split == "validation":
                    row["question_id"] = f"OPENI{n:04d}X"
                    row["Question"] = f"OPENQ{n:04d}X {row['Question']}"
                key_rows.append((row["question_id"], ",".join(letters)))
            with open(root / split / path.name, "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=fields)
                writer.writeheader()
                writer.writerows(rows)
        (root / "answers").mkdir(exist_ok=True)
        with open(root / "answers" / f"{split}.csv", "w", newline="") as f:
            csv.writer(f).writerows([("question_id", "answer"), *key_rows])


@pytest.fixture
def canary_bank(db, tmp_path):
    _write_bank(tmp_path / "bank")
    for split in ("dev", "validation", "test"):
        benchmark_import(benchmark_slug="mobile-mmlu", split=split, path=tmp_path / "bank" / split,
                         answers_path=tmp_path / "bank" / "answers" / f"{split}.csv", sealed=split == "test")


@pytest.fixture
def people(db):
    author = User.objects.create_user("author", "author@example.com", "pw")
    staff = User.objects.create_user("staff", "staff@example.com", "pw", is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    return {"anonymous": None, "signed-in": author, "staff": staff, "superuser": root}


def _fill(path, ids):
    """Every way of filling the path's parameters with real ids (a product over the few ids of each kind)."""
    names = re.findall(r"\{(\w+)\}|<(?:\w+:)?(\w+)>", path)
    out = [path]
    for brace, angle in names:
        name = brace or angle
        values = ids.get(name) or ids["default"]
        out = [re.sub(r"\{%s\}|<(?:\w+:)?%s>" % (name, name), str(v), p, count=1) for p in out for v in values]
    return out


def _page_paths(patterns=None, prefix=""):
    """Every route of the site outside the admin, as a pattern string with <converters>."""
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(entry.pattern)
        if route.startswith("admin/") or route.startswith("^"):
            continue
        if isinstance(entry, URLResolver):
            yield from _page_paths(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield "/" + route.lstrip("^").rstrip("$")


def _admin_paths(ids_by_model):
    paths = ["/admin/"]
    for model in admin.site._registry:
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        paths += [base, base + "?all=", base + "?split__exact=test", base + "?q=SEALED"]
        paths += [f"{base}{pk}/change/" for pk in ids_by_model.get(model, [])]
    return paths


QUERIES = ["?split=test", "?format=csv", "?split=test&format=csv", "?limit=1000", "?split=validation"]
ROLES = ["anonymous", "signed-in", "staff", "superuser"]  # two apart: one without staff rights and one with


def _sampled(paths, role):
    """What `role` fetches: every path as it is, and each path with each query by two of the four roles, in turn
    anonymous and staff, or signed-in and superuser. Every route, every query on it and every role on it are covered,
    in 14 fetches a path rather than 24 (the crawl was the suite's slowest test)."""
    r = ROLES.index(role)
    for p, path in enumerate(paths):
        yield path
        yield from (path + query for j, query in enumerate(QUERIES) if (p + j) % 2 == r % 2)


def _body(response):
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode("utf-8", "replace")
    return response.content.decode("utf-8", "replace")


def test_no_sealed_canary_leaves_the_server(client, canary_bank, people, fake_hub, tiny_model_dir, judge_server,
                                            settings, caplog, tmp_path):
    caplog.set_level("DEBUG")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    settings.SUBMISSION_VALIDATION_VARIANTS = ["original", "R1"]
    files = files_from_folder(tiny_model_dir)
    files["README.md"] = b"---\nlicense: mit\n---\n"
    fake_hub.add_repo("canary-org/tiny", repo_type="model", files=files, license="mit")
    broken = dict(files, **{"model.safetensors": b"\xff" * 64})
    fake_hub.add_repo("canary-org/broken", repo_type="model", files=broken, safetensors=1_000_000, license="mit")
    flush_broker()

    client.force_login(people["signed-in"])
    for hub_id, probe in (("canary-org/tiny", True), ("canary-org/broken", False)):
        response = client.post("/api/v1/submissions/", {"hub_id": hub_id, "probe": probe},
                               content_type="application/json")
        assert response.status_code == 201, response.content
    # Task messages carry ids only: read the queued messages before any worker takes them.
    broker = redis.Redis.from_url(BROKER)
    messages = [json.loads(m) for m in broker.lrange("gpu", 0, -1)]
    assert len(messages) == 4
    for message in messages:
        assert message["headers"]["task"] == "evaluator.predict_run"
        args, kwargs, _ = json.loads(__import__("base64").b64decode(message["body"]))
        assert len(args) == 1 and isinstance(args[0], int) and kwargs == {}

    runs = EvaluationRun.objects.all()
    with start_worker(queues="gpu", **FAST) as gpu, start_worker(queues="default", **FAST) as scorer:
        wait_until(lambda: all(r.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) for r in runs.all()),
                   timeout=300, interval=0.5, message=lambda: f"the runs\n{gpu.log[-3000:]}\n{scorer.log[-2000:]}")
        wait_until(lambda: Submission.objects.filter(notified_at__isnull=False).count() == 2, timeout=60,
                   message=lambda: f"the notices\n{scorer.log[-2000:]}")
    statuses = {(r.model_ref, r.split): r.status for r in runs}
    assert statuses[("canary-org/tiny", "test")] == RunStatus.SUCCEEDED
    assert statuses[("canary-org/broken", "test")] == RunStatus.FAILED
    tiny_test = runs.get(model_ref="canary-org/tiny", split="test")
    tiny_validation = runs.get(model_ref="canary-org/tiny", split="validation")
    assert tiny_validation.summary["probe"]["generated"] > 0  # the probe ran, on the open split only
    assert "probe" not in tiny_test.summary and not tiny_test.probe_rows and not tiny_test.probe

    # A judge that quotes every question back in its reply, over every split (the sealed one included).
    judge_server.reply = lambda question: f"{question[:40]} ... 7"
    call_command("mrscore", "--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
                 "--revision", "r1", "--concurrency", "8", "--chunk-size", "256", "--verbosity", "0",
                 stdout=io.StringIO(), stderr=io.StringIO())

    results = [key for key in broker.keys("celery-task-meta-*")]
    backend = [broker.get(key).decode() for key in results]
    assert len(backend) >= 4, "the result backend holds no task results: this check would prove nothing"

    ids = {"hub_id": list(ModelEntry.objects.values_list("hub_id", flat=True)), "slug": ["mobile-mmlu"],
           "run_id": list(runs.values_list("pk", flat=True)),
           "job_id": list(MRScoreJob.objects.values_list("pk", flat=True)),
           "pk": list(Submission.objects.values_list("pk", flat=True)),
           "id": list(Submission.objects.values_list("pk", flat=True)),
           "topic_slug": ["first-aid"], "default": ["1"]}
    ids["submission_id"] = ids["pk"]
    schema = client.get("/api/schema/", {"format": "json"}).json()
    api_paths = [p for p, ops in schema["paths"].items() if "get" in ops]
    assert len(api_paths) >= 10
    paths = sorted({path for p in api_paths + list(_page_paths()) for path in _fill(p, ids)})
    admin_ids = {model: list(model.objects.order_by("-pk").values_list("pk", flat=True)[:3])
                 for model in admin.site._registry}
    admin_urls = set(_admin_paths(admin_ids))

    sealed_hits, open_hits, fetched, errors = [], set(), 0, []
    for who, user in people.items():
        client.logout()
        if user is not None:
            client.force_login(user)
        for url in sorted(set(_sampled(paths, who)) | (admin_urls if user is not None and user.is_staff else set())):
            if "logout" in url:
                continue
            response = client.get(url)
            fetched += 1
            if response.status_code >= 500:
                errors.append((who, url, response.status_code))
            body = _body(response)
            sealed_hits += [(who, url, m) for m in SEALED.findall(body)]
            open_hits.update(OPEN.findall(body))
    assert not errors, errors[:10]
    assert not sealed_hits, f"sealed canaries leaked: {sealed_hits[:10]}"
    assert fetched > 500 and len(open_hits) > 100, (fetched, len(open_hits))  # the search does find open text

    logs = {"web": caplog.text, "gpu worker": gpu.log, "scoring worker": scorer.log,
            "result backend": "\n".join(backend)}
    for where, text in logs.items():
        assert not SEALED.findall(text), f"sealed canaries in the {where}: {SEALED.findall(text)[:5]}"
    flush_broker()
