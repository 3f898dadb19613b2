"""A backup made with the documented command (docker/backup.sh: pg_dump -Fc) and restored with the documented
command (docker/restore.sh) into a new database gives back the whole site: every table the same, the same board,
APIs and CSVs, a sealed run scored after the restore with the kept key and published on the grid; runs queued or
running at backup time are picked up again with nothing lost or scored twice; and no dump holds a sealed key or a
sealed answer (docs/operations.md, "Backups and recovery")."""
import base64
import re
import shutil
import subprocess

import pytest
import redis
from django.core.cache import cache
from django.db.models import Count
from django.test import Client

from leaderboard.benchmarks.crypto import sealed_hash_keys
from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.benchmarks.models import Question
from leaderboard.core import api_tokens
from leaderboard.devices.services import report_create
from leaderboard.evaluations import admin_services, lifecycle, services
from leaderboard.evaluations.broker import waiting_run_ids
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.mrscore import services as mrscore
from leaderboard.mrscore.tasks import judge_job
from leaderboard.results.models import RunResult
from leaderboard.scoring import services as scoring
from tests.contamination.conftest import answers, people, score, spread, submit, version  # noqa: F401  (fixtures)
from tests.devices import world as device_world
from tests.evaluations.test_evaluate import CrashAfter
from tests.evaluator.test_engine import RecordingBackend
from tests.mrscore.conftest import judge_server  # noqa: F401  (fixture)
from tests.support.backups import backup, database_url, empty_database, restore, restored_database
from tests.support.db import db_snapshot

# pg_dump reads what is committed: the tests of a world built in the test commit it.
committed = pytest.mark.django_db(transaction=True, serialized_rollback=True)

# The board, its APIs and CSVs, as anyone reads them (routes without arguments), and a model's pages.
PATHS = ["/", "/leaderboard/", "/leaderboard/on-device/", "/leaderboard/on-device/devices/", "/compare/",
         "/mobile-vs-general/", "/topics/", "/mrscore/", "/contamination/", "/queue/",
         "/api/v1/benchmarks/", "/api/v1/leaderboard/", "/api/v1/leaderboard/on-device/",
         "/api/v1/leaderboard/submitted-predictions/", "/api/v1/leaderboard/?format=csv",
         "/api/v1/results/topics.csv?benchmark=mobile-mmlu", "/api/v1/contamination/", "/api/v1/contamination/?format=csv",
         "/api/v1/contamination/history/", "/api/v1/mobile-vs-general/", "/api/v1/mobile-vs-general/correlation/",
         "/api/v1/mrscore/jobs/", "/api/v1/mrscore/distribution/", "/api/v1/device-reports/",
         "/api/v1/device-reports/speeds/", "/api/v1/device-reports/board/"]
PER_REQUEST = re.compile(rb'(nonce|csrfmiddlewaretoken" value|csrf-token" content|data-request-id)="[^"]*"')


@pytest.fixture
def site(demo_loaded, people, submit, judge_server, settings):  # noqa: F811
    """Sealed and open runs with chunks, results, aggregates, Δ points and Ladder decisions, a flag and its audit
    record, an API token, device reports, and an MRScore job."""
    _, first = submit(people["victim"], "org/alpha", {"validation": 300, "test": 260})
    submit(people["victim"], "org/alpha", {"validation": 330, "test": 290}, revision="b" * 40)  # a Ladder decision
    admin_services.run_set_flagged(first["validation"], actor=people["root"], reason="a spike on one topic")
    api_tokens.token_create(user=people["victim"])
    device_world.build()
    report_create(user=people["victim"], llama_bench=device_world.captured(), device=device_world.DEVICE,
                  sha256=device_world.SHA256)
    spec = mrscore.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint)
    job, _ = mrscore.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation"])
    assert judge_job.run(job.pk)["status"] == "succeeded"
    return people


def responses(client) -> dict:
    cache.clear()  # what the database says, not what the cache kept
    out = {}
    for path in PATHS:
        response = client.get(path)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        out[path] = (response.status_code, PER_REQUEST.sub(rb'\1=""', body))
    return out


@committed
@pytest.mark.slow
def test_a_restored_backup_is_the_same_site(site, tmp_path, score):  # noqa: F811
    before, pages = db_snapshot(), responses(Client())
    full = {table for table, (count, _) in before.items() if count}
    assert {"evaluations_predictionchunk", "results_resultaggregate", "contamination_deltapoint",
            "contamination_ladderdecision", "core_auditrecord", "devices_devicereport", "mrscore_topicmrscore",
            "knox_authtoken", "benchmarks_question"} <= full, "the world lacks a kind of record"
    assert all(status == 200 for status, _ in pages.values()), {p: s for p, (s, _) in pages.items() if s != 200}

    dump = backup(tmp_path)
    with restored_database(dump):
        assert db_snapshot() == before  # every table, row for row
        assert responses(Client()) == pages  # the same board, APIs and CSVs

        # The kept key scores a new sealed run, and the board publishes it on the grid.
        run = score("org/gamma", "test", 240)
        assert run.status == RunStatus.SUCCEEDED
        cache.clear()
        response = Client().get("/api/v1/leaderboard/?split=test")
        assert response.status_code == 200, response.content
        rows = response.json()["results"]
        (row,) = [row for row in rows if row["hub_id"] == "org/gamma"]
        published = publish(240, row["n"])
        assert (row["correct"], row["accuracy"], row["grid"]) == (None, published.percent, published.grid_points)
    assert db_snapshot() == before  # the test database itself was never touched


@committed
@pytest.mark.slow
def test_a_dump_holds_no_sealed_key_and_no_sealed_answer(demo_loaded, tmp_path, settings):
    dump = backup(tmp_path)
    sql = subprocess.run(["pg_restore", "--file=-", str(dump)], capture_output=True, check=True).stdout
    assert b"benchmarks_question" in sql and len(sql) > 100_000  # the dump does hold the question bank
    for key in settings.SEALED_ANSWER_KEYS:
        raw = base64.urlsafe_b64decode(key)
        forms = [key.encode(), raw, raw.hex().encode(), base64.b64encode(raw), raw[:16].hex().encode(),
                 raw[16:].hex().encode()]
        assert not [form for form in forms if form in sql], "a sealed key is in the dump"
    for derived in sealed_hash_keys():
        assert derived.hex().encode() not in sql
    # The sealed split's rows keep their answer column empty: the answers are there only as ciphertext.
    sealed = list(Question.objects.filter(split="test").values_list("uid", flat=True))
    assert sealed
    rows = [line.split(b"\t") for line in copy_rows(sql, "benchmarks_question")]
    columns = copy_columns(sql, "benchmarks_question")
    answer, split, uid = columns.index(b"answer"), columns.index(b"split"), columns.index(b"uid")
    stored = {row[uid].decode(): row[answer] for row in rows if row[split] == b"test"}
    assert set(stored) == set(sealed) and set(stored.values()) == {b""}


def copy_columns(sql: bytes, table: str) -> list[bytes]:
    head = re.search(rb"^COPY public\." + table.encode() + rb" \(([^)]*)\) FROM stdin;$", sql, re.M)
    return [c.strip().strip(b'"') for c in head.group(1).split(b",")]


def copy_rows(sql: bytes, table: str) -> list[bytes]:
    start = re.search(rb"^COPY public\." + table.encode() + rb" .*FROM stdin;\n", sql, re.M).end()
    return sql[start:sql.index(b"\n\\.\n", start)].split(b"\n")


@committed
@pytest.mark.slow
def test_interrupted_runs_resume_after_a_restore(demo_loaded, tmp_path, score, settings, redis_broker):  # noqa: F811
    """Queued and half-predicted runs at backup time: on the new host (its broker empty) the sweeper and the
    reconciler put them back on the queue once each, the half-predicted one resumes from its stored chunks, and a
    run scored before the backup is not scored again."""
    from leaderboard.benchmarks.models import BenchmarkVersion

    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")  # noqa: F811
    done = score("org/done", "validation", 300)
    queued = services.run_create(version=version, split="validation", model_ref="org/queued")
    half = services.run_create(version=version, split="validation", model_ref="org/half", chunk_size=100)
    lifecycle.run_enqueue(run=queued, route=True)
    lifecycle.run_enqueue(run=half, route=True)
    services.run_claim(run=half)
    with pytest.raises(RuntimeError, match="worker lost"):
        services.run_predict(run=half, backend=CrashAfter(RecordingBackend(), 2), measure=False)
    assert PredictionChunk.objects.filter(run=half).count() == 2
    result_before = RunResult.objects.filter(run=done).values_list("pk", "scored_at").get()

    dump = backup(tmp_path)
    redis.Redis.from_url(redis_broker).flushdb()  # the new host's broker holds nothing
    with restored_database(dump):
        settings.RECONCILE_AFTER_SECONDS = 0
        # Time passed while the site was down: the dead worker's lease has run out.
        EvaluationRun.objects.filter(pk=half.pk).update(lease_expires_at="2000-01-01T00:00:00Z")
        lifecycle.sweep()
        assert lifecycle.reconcile() >= 1
        assert lifecycle.reconcile() == 0  # published once: the second pass finds them waiting
        assert waiting_run_ids({"gpu"}) == {queued.pk, half.pk}

        # The GPU worker takes the half-predicted run: only the missing chunks are predicted.
        claimed = lifecycle.run_claim_for_worker(run_id=half.pk)
        backend = RecordingBackend()
        services.run_predict(run=claimed, backend=backend, measure=False)
        assert len(backend.prompts) == claimed.progress_total - 200
        scoring.run_score(run=claimed)
        assert EvaluationRun.objects.get(pk=half.pk).status == RunStatus.SUCCEEDED
        chunks = PredictionChunk.objects.filter(run=half).values("index").annotate(n=Count("pk"))
        assert sorted((c["index"], c["n"]) for c in chunks) == [(i, 1) for i in range(5)]
        # Nothing scored twice: the run scored before the backup keeps its one result.
        assert scoring.run_score(run=EvaluationRun.objects.get(pk=done.pk)).status == RunStatus.SUCCEEDED
        assert list(RunResult.objects.filter(run=done).values_list("pk", "scored_at")) == [result_before]
        assert RunResult.objects.filter(run_id=half.pk).count() == 1



@pytest.mark.skipif(shutil.which("age") is None, reason="age is not installed (Debian package `age`; the backup image "
                                                        "has it)")
def test_an_encrypted_backup_restores_only_with_its_private_key(db, tmp_path):
    identity = tmp_path / "backup-key.txt"
    made = subprocess.run(["age-keygen", "-o", identity], capture_output=True, text=True, check=True)
    recipient = re.search(r"age1[0-9a-z]+", made.stderr).group(0)
    dump = backup(tmp_path / "backups", BACKUP_AGE_RECIPIENTS=recipient)
    assert dump.name.endswith(".dump.age")
    assert subprocess.run(["pg_restore", "--list", dump], capture_output=True).returncode != 0  # ciphertext only
    with empty_database("restored") as name:
        refused = restore(dump, name)
        assert refused.returncode != 0 and "BACKUP_AGE_IDENTITY" in refused.stderr
        restored = restore(dump, name, BACKUP_AGE_IDENTITY=str(identity))
        assert restored.returncode == 0, restored.stderr
        assert table_count(name) == table_count()


def test_the_restore_command_refuses_what_it_cannot_restore_whole(db, tmp_path):
    dump = backup(tmp_path)
    with empty_database("restored") as name:
        assert restore(dump, name).returncode == 0
        again = restore(dump, name)  # into a database that is not empty
        assert again.returncode == 2 and "already holds" in again.stderr
    with empty_database("restored") as name:
        with dump.open("ab") as damaged:
            damaged.write(b"x")
        refused = restore(dump, name)
        assert refused.returncode == 2 and "does not match its .sha256" in refused.stderr
        assert table_count(name) == 0
        missing = restore(tmp_path / "nothing.dump", name)
        assert missing.returncode == 2 and "no such backup file" in missing.stderr


def test_it_keeps_the_newest_backups_only(db, tmp_path):
    old = [tmp_path / f"leaderboard-2020010{day}T030000Z.dump" for day in range(1, 4)]
    for path in old:
        path.write_bytes(b"an old dump")
        path.with_name(path.name + ".sha256").write_text("x")
    other = tmp_path / "notes.txt"
    other.write_text("not a backup")
    dump = backup(tmp_path, BACKUP_KEEP="2")
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted([old[2].name, old[2].name + ".sha256", dump.name, dump.name + ".sha256", "notes.txt"])


def table_count(name=None) -> int:
    query = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    return int(subprocess.run(["psql", database_url(name), "-X", "-A", "-t", "-c", query], capture_output=True,
                              text=True, check=True).stdout)
