"""Results API under load: cached and uncached, each against a static file of the same size, in one run.

    python bench/api_bench.py [--models 1000] [--seconds 8] [--connections 50] [--workers 3] [--threads 4]

1. Seeds a throw-away PostgreSQL database: N models x 3 benchmarks (mobile-mmlu, mobile-mmlu-pro and a
   third created through benchmark_create) x 80 topics x 9 variants, one scored validation run per
   (model, benchmark), with RunResult rows and ResultAggregate rows for overall / 9 categories /
   27 subcategories / 80 topics of every variant (bulk inserts; COPY for the 3.2 M aggregates).
2. Serves the app with gunicorn on loopback (gthread workers, keep-alive), twice: with the results cache
   (CACHE_URL, a Redis database) and with the cache disabled (dummy://: every request recomputes).
   The same server also serves, through WhiteNoise, static files holding the same bytes as each target.
3. Drives load from a second process (an asyncio HTTP/1.1 keep-alive client, --connections at once,
   --seconds per target) and prints p50 / p95 latency and requests/s for: the leaderboard JSON (default
   page of 50 rows, ranks over all 1,000 models), a model's JSON (3 runs x 9 variants x 117 cells) and
   the all-models per-topic CSV of a benchmark (80,000 rows, streamed when uncached), each with its
   ratio to the static file of the same size. Aim: cached p95 within 3x of the static file.

Prints figures only; asserts nothing about times (machines differ). DRF's per-IP throttles are off for the
run (one load generator is one client IP).
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

DB_NAME = "leaderboard_api_bench"  # -> test_leaderboard_api_bench
VARIANTS = ["original", "fixed-A", "fixed-B", "fixed-C", "fixed-D", "R1", "R2", "R3", "R4"]
THIRD = "mobile-mmlu-bench"  # the third benchmark, created like any non-built-in one


# --- seeding ---------------------------------------------------------------------------------------------------

def _third_benchmark():
    from leaderboard.benchmarks.creation_services import benchmark_create
    from leaderboard.benchmarks.taxonomy import read_taxonomy

    with tempfile.NamedTemporaryFile("w", suffix=".csv", newline="", delete=False) as handle:
        writer = csv.writer(handle)
        writer.writerow(["topic", "category", "subcategory", "hub_field"])
        for row in read_taxonomy():
            writer.writerow([row["topic"], row["category"], row["subcategory"], row["likely_hub_field"]])
    benchmark_create(slug=THIRD, name="Mobile-MMLU (bench copy)", taxonomy_path=handle.name)
    os.unlink(handle.name)


def seed(n_models: int, rng: random.Random):
    from django.db import connection
    from django.utils import timezone

    from leaderboard.benchmarks.models import Benchmark, BenchmarkVersion, Topic
    from leaderboard.benchmarks.taxonomy import read_taxonomy
    from leaderboard.evaluations.models import EvaluationRun, RunStatus
    from leaderboard.results.models import RunResult
    from leaderboard.submissions.models import ModelEntry

    _third_benchmark()
    population = {row["likely_hub_field"]: int(row["population"]) for row in read_taxonomy()}
    benchmarks = list(Benchmark.objects.filter(slug__in=["mobile-mmlu", "mobile-mmlu-pro", THIRD]).order_by("slug"))
    assert len(benchmarks) == 3, benchmarks
    versions = {b.pk: BenchmarkVersion.objects.create(benchmark=b, number=1, split_hashes={"validation": "b" * 64})
                for b in benchmarks}
    taxonomy = {b.pk: [(t.slug, t.name, t.subcategory.category.slug, t.subcategory.category.name,
                        f"{t.subcategory.category.slug}/{t.subcategory.slug}", t.subcategory.name,
                        population.get(t.hub_field, 200))
                       for t in Topic.objects.filter(benchmark=b).select_related("subcategory__category")]
                for b in benchmarks}
    assert all(len(topics) == 80 for topics in taxonomy.values())

    models = ModelEntry.objects.bulk_create([
        ModelEntry(hub_id=f"bench-org-{i // 100:02d}/model-{i:04d}", namespace=f"bench-org-{i // 100:02d}",
                   params=rng.choice([5e8, 1.5e9, 3e9, 7e9, 1.3e10, 3.4e10, 7e10]),
                   model_type=rng.choice(["pretrained", "instruct"]), license="apache-2.0")
        for i in range(n_models)])
    now = timezone.now()
    runs = EvaluationRun.objects.bulk_create([
        EvaluationRun(benchmark_version=versions[b.pk], split="validation", model_ref=m.hub_id,
                      model_revision=f"{m.pk:040x}", precision="bfloat16", variants=VARIANTS,
                      status=RunStatus.SUCCEEDED, template_hash="f" * 64, seed=1234, dataset_hash="b" * 64,
                      library_versions={"python": "3.11", "torch": "2.6", "transformers": "4.51"},
                      hardware={"gpu": "H100"}, efficiency={"prefill_tokens_per_s": 10000.0},
                      started_at=now, finished_at=now, queue="gpu")
        for m in models for b in benchmarks])
    results = RunResult.objects.bulk_create([
        RunResult(run=run, model=m, hub_id=m.hub_id, revision=run.model_revision, precision="bfloat16",
                  benchmark_id=b.pk, benchmark_version=versions[b.pk], split="validation", shots=0,
                  primary_variant="original", scored_at=now)
        for run, (m, b) in zip(runs, ((m, b) for m in models for b in benchmarks))])

    rows = 0
    with connection.cursor() as cursor:
        with cursor.connection.cursor().copy(
                "COPY results_resultaggregate (result_id, variant, level, key, name, n, correct) FROM STDIN") as copy:
            for result in results:
                skill = rng.uniform(0.3, 0.85)
                lines = []
                for variant in VARIANTS:
                    p_variant = min(0.98, max(0.02, skill + (0 if variant == "original" else rng.uniform(-0.08, 0.02))))
                    sums = {}
                    for slug, name, cat, cat_name, sub, sub_name, n in taxonomy[result.benchmark_id]:
                        correct = min(n, max(0, round(n * (p_variant + rng.uniform(-0.1, 0.1)))))
                        lines.append(f"{result.pk}\t{variant}\ttopic\t{slug}\t{name}\t{n}\t{correct}\n")
                        for key in (("overall", "", ""), ("category", cat, cat_name), ("subcategory", sub, sub_name)):
                            total = sums.setdefault(key, [0, 0])
                            total[0] += n
                            total[1] += correct
                    lines += [f"{result.pk}\t{variant}\t{level}\t{key}\t{name}\t{n}\t{c}\n"
                              for (level, key, name), (n, c) in sums.items()]
                copy.write("".join(lines))
                rows += len(lines)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return len(models), len(results), rows


# --- serving ---------------------------------------------------------------------------------------------------

def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """gunicorn on loopback over the bench database, with a given cache and a static folder."""

    def __init__(self, *, cache_url, static_root, workers, threads):
        from django.db import connection

        s = connection.settings_dict
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # The test settings without DRF's throttles: they limit per client IP (120/min anonymous), and one
        # load generator is one IP; raising the rate instead makes each request (un)pickle its whole history.
        settings_dir = Path(static_root).parent / "settings"
        settings_dir.mkdir(exist_ok=True)
        (settings_dir / "api_bench_settings.py").write_text(
            "from leaderboard.settings.test import *  # noqa\n"
            "REST_FRAMEWORK = {**REST_FRAMEWORK, 'DEFAULT_THROTTLE_CLASSES': []}  # noqa: F405\n")
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "api_bench_settings", "CACHE_URL": cache_url,
               "PYTHONPATH": os.pathsep.join([str(settings_dir), str(REPO)]),
               "STATIC_ROOT": str(static_root), "LOG_LEVEL": "WARNING",
               "DATABASE_URL": f"postgresql://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or 'localhost'}:"
                               f"{s['PORT'] or 5432}/{s['NAME']}"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{self.port}", "-w", str(workers),
             "-k", "gthread", "--threads", str(threads), "--keep-alive", "10", "--timeout", "300",
             "--log-level", "warning"], cwd=REPO, env=env)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not start")

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=600) as response:
            return response.read()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=60)


# --- load generator (the second process) -----------------------------------------------------------------------

async def _read_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    size = 0
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            chunk = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if chunk:
                size += len(await reader.readexactly(chunk))
            await reader.readexactly(2)
            if not chunk:
                break
    else:
        size = len(await reader.readexactly(int(headers.get("content-length", 0))))
    return status, size, headers.get("connection", "").lower() == "close"


async def _connection(port, path, deadline, samples, errors):
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n".encode()
    reader = writer = None
    while time.perf_counter() < deadline:
        if writer is None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2 ** 20)
        start = time.perf_counter()
        writer.write(request)
        try:
            status, size, close = await _read_response(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            errors.append("connection")
            writer.close()
            writer = None
            continue
        samples.append((time.perf_counter() - start, size))
        if status != 200:
            errors.append(status)
        if close:
            writer.close()
            writer = None
    if writer is not None:
        writer.close()


async def _load(port, path, seconds, connections):
    samples, errors = [], []
    start = time.perf_counter()
    await asyncio.gather(*(_connection(port, path, start + seconds, samples, errors) for _ in range(connections)))
    return samples, errors, time.perf_counter() - start


def load_main(port, path, seconds, connections):
    samples, errors, elapsed = asyncio.run(_load(port, path, seconds, connections))
    times = sorted(1000 * t for t, _ in samples)
    p95 = times[min(len(times) - 1, max(0, int(round(0.95 * len(times))) - 1))] if times else None
    print(json.dumps({"n": len(times), "errors": len(errors), "p50": statistics.median(times) if times else None,
                      "p95": p95, "rps": len(times) / elapsed, "bytes": samples[0][1] if samples else 0}))


def drive(port, path, seconds, connections):
    """Run the load generator in a separate process and return its figures."""
    out = subprocess.run([sys.executable, __file__, "--load", str(port), path, str(seconds), str(connections)],
                         capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- main ------------------------------------------------------------------------------------------------------

def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        port, path, seconds, connections = sys.argv[2:6]
        return load_main(int(port), path, float(seconds), int(connections))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=8.0, help="load time per target")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--cache-url", default=os.environ.get("CACHE_URL", "redis://127.0.0.1:6379/14"),
                        help="Redis database for the cached server (flushed by this bench)")
    args = parser.parse_args()
    os.environ["CACHE_URL"] = args.cache_url

    from _django import bench_database

    tmp = tempfile.TemporaryDirectory()
    static_root = Path(tmp.name) / "static"
    static_root.mkdir()
    os.environ["STATIC_ROOT"] = str(static_root)  # WhiteNoise's folder, in this process and the servers
    with tmp, bench_database(DB_NAME):
        from django.core.cache import cache
        from django.test import Client

        start = time.perf_counter()
        models, results, aggregates = seed(args.models, random.Random(7))
        print(f"seeded {models:,} models, {results:,} scored runs, {aggregates:,} aggregate rows "
              f"in {time.perf_counter() - start:.1f} s")
        model = "bench-org-00/model-0000"
        targets = {"leaderboard JSON": "/api/v1/leaderboard/?benchmark=mobile-mmlu",
                   "model JSON": f"/api/v1/models/{model}/",
                   "per-topic CSV (all models)": "/api/v1/results/topics.csv?benchmark=mobile-mmlu"}
        # Static twins: files holding the same bytes as each target, served by WhiteNoise from the same server.
        client = Client(HTTP_HOST="127.0.0.1")
        statics = {}
        for name, path in targets.items():
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            statics[name] = f"bench-{len(statics)}.bin"
            (Path(static_root) / statics[name]).write_bytes(body)
        figures = {}
        for label, cache_url in (("cached", args.cache_url), ("uncached", "dummy://")):
            cache.clear()
            server = Server(cache_url=cache_url, static_root=static_root, workers=args.workers, threads=args.threads)
            try:
                for name, path in targets.items():
                    started = time.perf_counter()
                    size = len(server.get(path))  # cold: computes (and, cached, fills the cache)
                    figures[label, name] = {
                        "first_ms": 1000 * (time.perf_counter() - started), "size": size,
                        "static": drive(server.port, f"/static/{statics[name]}", args.seconds, args.connections),
                        "app": drive(server.port, path, args.seconds, args.connections)}
            finally:
                server.stop()

    print(f"\n{args.connections} connections, {args.seconds:g} s per target, gunicorn {args.workers} workers x "
          f"{args.threads} threads (gthread, keep-alive), load generator in a second process; ms and requests/s")
    header = f"{'':<9}{'target':<28}{'bytes':>11}{'cold':>8}{'p50':>9}{'p95':>9}{'req/s':>8}{'static p50':>12}" \
             f"{'static p95':>12}{'static r/s':>11}{'p95 ratio':>10}{'r/s ratio':>10}{'errors':>7}"
    print(header)
    for (label, name), f in figures.items():
        app, static = f["app"], f["static"]
        print(f"{label:<9}{name:<28}{f['size']:>11,}{f['first_ms']:>8.0f}{app['p50']:>9.1f}{app['p95']:>9.1f}"
              f"{app['rps']:>8.1f}{static['p50']:>12.1f}{static['p95']:>12.1f}{static['rps']:>11.1f}"
              f"{app['p95'] / static['p95']:>9.2f}x{static['rps'] / app['rps']:>9.2f}x"
              f"{app['errors'] + static['errors']:>7}")
    print("\ncold = the first request on a fresh server (cached: a miss that fills the cache). aim: cached p95 "
          "within 3x of the static file's p95 (p95 ratio <= 3); r/s ratio = static requests/s over the target's.")


if __name__ == "__main__":
    main()
