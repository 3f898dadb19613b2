"""Leaderboard page weight and server time with 1,000 models, in one run.

    python bench/page_weight_bench.py [--models 1000] [--requests 200] [--gunicorn] [--no-browser]

1. Seeds a throw-away PostgreSQL database: the demo question bank (load_demo), then N models with a
   scored validation run each, bulk-inserted as scoring writes them (ModelEntry, EvaluationRun,
   RunResult, and ResultAggregate rows for overall / 9 categories / 27 subcategories / 80 topics with
   the real taxonomy's population sizes), then ANALYZE (see tests/browser/page_weight.py).
2. Weight: what a browser downloads for the leaderboard page (HTML with its json_script data, the page's
   own JS and CSS, anything it fetches), each gzip- and brotli-compressed, Plotly excluded; against the
   300 KB budget of issue 7. With Chromium installed the request list is what the page really asked
   for (answered in-process, no server); otherwise the HTML's script and stylesheet tags.
3. Server time: p50/p95 over --requests GETs of the leaderboard page through Django's test client
   (the whole middleware stack, no network): warm (repeated; whatever the app caches), cold (the
   results cache generation bumped before each request, as after a new result), and filtered; against
   baselines measured in the same run: /healthz and the sign-in page (a trivial template page).
   --gunicorn repeats the page and baseline timings over HTTP against a local gunicorn (1 sync worker).

Prints sizes, times and ratios; asserts nothing about times (machines differ).
"""
from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from _django import bench_database  # noqa: E402

DB_NAME = "leaderboard_page_weight_bench"  # -> test_leaderboard_page_weight_bench
HOST = "localhost"


def percentiles(samples):
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]
    return statistics.median(ordered), p95


def time_requests(get, n, before_each=None):
    for _ in range(3):  # warm-up: connections, template loading, first cache fill
        get()
    samples = []
    for _ in range(n):
        if before_each:
            before_each()
        start = time.perf_counter()
        status = get()
        samples.append((time.perf_counter() - start) * 1000)
        assert status == 200, status
    return percentiles(samples)


def data_blocks(html: str):
    """Sizes of the page's json_script blocks (the data handed to its JS)."""
    import gzip

    blocks = re.findall(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', html, re.S)
    raw = sum(len(b.encode()) for b in blocks)
    return len(blocks), raw, len(gzip.compress("".join(blocks).encode(), compresslevel=6))


def gunicorn_timings(paths, n, db_name):
    from django.db import connection

    s = connection.settings_dict
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings.test",
           "DATABASE_URL": f"postgresql://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or 'localhost'}:"
                           f"{s['PORT'] or 5432}/{db_name}"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "leaderboard.wsgi", "-b", f"127.0.0.1:{port}",
                             "-w", "1", "--log-level", "warning"], cwd=REPO, env=env)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)

        def getter(path):
            def get():
                request = urllib.request.Request(base + path, headers={"Host": HOST})
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
                    return response.status
            return get

        return {label: time_requests(getter(path), n) for label, path in paths.items()}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--gunicorn", action="store_true", help="also time over HTTP against a local gunicorn")
    parser.add_argument("--no-browser", action="store_true", help="weigh from the HTML's tags, without Chromium")
    args = parser.parse_args()

    with bench_database(DB_NAME) as connection:
        from django.core.cache import cache
        from django.test import Client
        from django.urls import reverse

        from leaderboard.benchmarks.demo import demo_import
        from leaderboard.results.cache import results_changed
        from tests.browser.harness import CHROMIUM, chromium, leaderboard_path
        from tests.browser.page_weight import (BUDGET_BYTES, brotli, budget_total, many_models_seed, page_weight,
                                               report)

        cache.clear()
        start = time.perf_counter()
        demo_import()
        many_models_seed(args.models)
        # Planner statistics, as autovacuum keeps them on a live database: without them PostgreSQL guesses
        # one row per table for freshly bulk-inserted ones and picks nested loops that scan every run per result.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(f"seeded the demo bank and {args.models:,} scored models in {time.perf_counter() - start:.1f} s "
              "(then ANALYZE)")

        client = Client(HTTP_HOST=HOST)
        path = leaderboard_path()
        html = client.get(path).content.decode()
        shown = len(set(re.findall(r"org-\d\d/model-\d{4}-\w+", html)))
        blocks, data_raw, data_gzip = data_blocks(html)
        print(f"\nleaderboard page {path}: {shown:,} of {args.models:,} models named in the HTML; "
              f"{blocks} json_script block(s), data {data_raw:,} B raw / {data_gzip:,} B gzip")

        use_browser = CHROMIUM and not args.no_browser
        if use_browser:
            with chromium() as browser:
                transfers = page_weight(client, path, browser=browser)
        else:
            transfers = page_weight(client, path)
        how = "requests Chromium made" if use_browser else "the HTML's script/stylesheet tags (no Chromium)"
        print(f"\n== transfer size ({how}) ==")
        print(report(transfers))
        total_gz = budget_total(transfers)
        line = f"gzip {total_gz:,} B = {total_gz / BUDGET_BYTES:.2f} x the {BUDGET_BYTES:,} B budget"
        if brotli:
            total_br = budget_total(transfers, "brotli")
            line += f"; brotli {total_br:,} B = {total_br / BUDGET_BYTES:.2f} x"
        print(line + ("  -> within budget" if total_gz <= BUDGET_BYTES else "  -> OVER BUDGET"))

        login = reverse("login")
        filtered = f"{path}{'&' if '?' in path else '?'}size_class=mini&search=org-1"
        print(f"\n== server time, Django test client, {args.requests} requests each (ms) ==")
        rows = {
            "baseline /healthz": time_requests(lambda: client.get("/healthz").status_code, args.requests),
            f"baseline {login}": time_requests(lambda: client.get(login).status_code, args.requests),
            "leaderboard warm": time_requests(lambda: client.get(path).status_code, args.requests),
            "leaderboard cold": time_requests(lambda: client.get(path).status_code, args.requests,
                                              before_each=results_changed),
            "leaderboard filtered": time_requests(lambda: client.get(filtered).status_code, args.requests),
        }
        base50, base95 = rows[f"baseline {login}"]
        print(f"{'':<24}{'p50':>9}{'p95':>9}{'p50 / sign-in':>15}{'p95 / sign-in':>15}")
        for label, (p50, p95) in rows.items():
            print(f"{label:<24}{p50:>9.1f}{p95:>9.1f}{p50 / base50:>15.1f}{p95 / base95:>15.1f}")
        worst = max(p95 for label, (_, p95) in rows.items() if label.startswith("leaderboard"))
        print(f"leaderboard p95 (worst of the three): {worst:.1f} ms (issue 7: under 100 ms on this machine)")

        if args.gunicorn:
            print(f"\n== server time over HTTP, local gunicorn (1 sync worker), {args.requests} requests (ms) ==")
            timings = gunicorn_timings({"baseline /healthz": "/healthz", f"baseline {login}": login,
                                        "leaderboard": path}, args.requests, connection.settings_dict["NAME"])
            base50, base95 = timings[f"baseline {login}"]
            for label, (p50, p95) in timings.items():
                print(f"{label:<24}{p50:>9.1f}{p95:>9.1f}{p50 / base50:>15.1f}{p95 / base95:>15.1f}")


if __name__ == "__main__":
    main()
