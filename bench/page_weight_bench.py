"""The board with many models: page weight, first rows without the chart library, and server time, in one run.

    python bench/page_weight_bench.py [--models 10000] [--requests 100] [--cold-requests 20] [--gunicorn]
                                      [--no-browser] [--keep-database]

1. Seeds a throw-away PostgreSQL database: the demo question bank (load_demo), then N models with a scored
   validation run each, bulk-inserted as scoring writes them (ModelEntry, EvaluationRun, RunResult, and
   ResultAggregate rows for overall / 9 categories / 27 subcategories / 80 topics with the real taxonomy's
   population sizes), then ANALYZE (see tests/browser/page_weight.py).
2. Weight: everything a browser downloads for the leaderboard on a phone's screen, compressed as production sends it
   (tests/browser/page_weight.py): the first view (HTML with its first page of rows, the page's own JS and CSS,
   anything it fetches) against issue 7's 300 KB and issue 39's 60 KB of JS, then the chart library fetched once the
   chart is scrolled near, against issue 39's 400 KB.
3. First rows without the chart library (Chromium, every request answered in-process): the leaderboard loaded
   (a) as it is and (b) with every request for Plotly held unanswered for good. Times from navigation start:
   first contentful paint, the first table row in the document, DOMContentLoaded, load, when Plotly was asked
   for and when the chart was drawn (in (a) the chart is scrolled to as soon as the page has loaded); against the
   sign-in page's first paint in the same run. (b)/(a) near 1 means the rows never wait for the chart library.
4. Server time: p50/p95 of GETs through Django's WSGI handler in this process (the whole middleware stack, no
   network; timed until the body is out, as a WSGI server sends it, so what runs after the response, a board's
   recompute, is not counted: it is not a visitor's wait) against baselines measured in the same run (/healthz
   and the sign-in page, a trivial template page): the board warm (its rows cached per board state), filtered,
   sorted, a later page, the fragment the page script swaps in, cold after a published run and cold after a hide
   (a new epoch: every row read again within the request); the leaderboard API the same way; a topic page and a
   model page. "Cold after a result" is both readers a published run meets: a new results generation, then its first
   reader (served the previous board, marked as updating; the board is recomputed after that response) and the next one
   (the recomputed board's first reader), each round with a warm request of the same URL before it (interleaved, so
   a slow moment of a busy machine meets warm and cold alike). Then the cold p95 (the worse of the two readers)
   against that warm p95, for the board and the API, with the number of models and the questions each was scored on.
   --gunicorn repeats the board, the API and the baselines over HTTP against a local gunicorn (1 sync worker; DRF's
   anonymous throttle raised for it), cold as above, each request once the worker is free again (/healthz).
   --keep-database keeps the seeded database for the next run with the same --models.

Prints sizes, times and ratios; asserts nothing about times (machines differ).
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from _django import bench_database, gunicorn_server  # noqa: E402

DB_NAME = "leaderboard_page_weight_bench"  # -> test_leaderboard_page_weight_bench
HOST = "localhost"
ROWS = "table#leaderboard-table tbody tr[data-hub-id]"
LOADS = 9  # browser loads per page, median reported


def percentiles(samples):
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]
    return statistics.median(ordered), p95


def time_requests(get, n, before_each=None, warm_up=3):
    for _ in range(warm_up):  # connections, template loading, first cache fill
        get()
    samples = []
    for _ in range(n):
        if before_each:
            before_each()
        start = time.perf_counter()
        status = get()
        elapsed = (time.perf_counter() - start) * 1000
        if isinstance(status, tuple):  # (status, ms until the body was out): what ran after it is not counted
            status, elapsed = status
        samples.append(elapsed)
        assert status == 200, status
    return percentiles(samples)


def time_cold(get, n, change, free=None):
    """(warm, first, next): p50/p95 of n rounds of three requests, interleaved so that a slow moment of the machine
    meets all three alike: a warm one, then after `change()` (a published run) the first (served the previous board;
    its recompute runs after the response, untimed) and the one after it (the recomputed board's first reader).
    free(): waits until the server is free again (a sync worker still recomputing)."""
    get()  # warm-up
    rounds = {"warm": [], "first": [], "next": []}
    for _ in range(n):
        for kind, samples in rounds.items():
            if free:
                free()
            if kind == "first":
                change()
            start = time.perf_counter()
            status = get()
            elapsed = (time.perf_counter() - start) * 1000
            if isinstance(status, tuple):  # (status, ms until the body was out)
                status, elapsed = status
            assert status == 200, status
            samples.append(elapsed)
    return tuple(percentiles(samples) for samples in rounds.values())


def data_blocks(html: str):
    """Sizes of the page's json_script blocks (the data handed to its JS)."""
    import gzip

    blocks = re.findall(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', html, re.S)
    raw = sum(len(b.encode()) for b in blocks)
    return len(blocks), raw, len(gzip.compress("".join(blocks).encode(), compresslevel=6))


# --- first rows in Chromium -------------------------------------------------------------------------------------

# Runs in the page before its own scripts: notes when the first board row is in the document and when the chart
# holds Plotly's drawing.
WATCH = """
(() => {
  const marks = window.__marks = {};
  const check = () => {
    if (!marks.row && document.querySelector(%r)) marks.row = performance.now();
    const chart = document.getElementById('chart-leaderboard');
    if (!marks.chart && chart && chart.classList.contains('js-plotly-plot')) marks.chart = performance.now();
    if (!marks.chart) requestAnimationFrame(check);
  };
  new MutationObserver(check).observe(document, {childList: true, subtree: true});
  requestAnimationFrame(check);
})();
""" % ROWS


def browser_timings(client, browser, path, *, hold_plotly, wait_chart):
    """Load `path` with every request answered in-process; with hold_plotly, Plotly's requests are never answered."""
    from tests.browser.harness import thread_connections, use_connections
    from tests.browser.page_weight import ORIGIN, fetch

    own = thread_connections()
    asked, held = [], []

    def handle(route):
        use_connections(own)
        request = route.request
        parts = urllib.parse.urlsplit(request.url)
        if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
            return route.abort()
        if "plotly" in parts.path:
            asked.append(time.perf_counter())
            if hold_plotly:
                held.append(route)  # not answered while the page is measured: it must not need it
                return None
        status, body, content_type = fetch(client, parts.path + (f"?{parts.query}" if parts.query else ""))
        return route.fulfill(status=status, body=body, content_type=content_type or None)

    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    try:
        page = context.new_page()
        page.add_init_script(WATCH)
        page.route("**/*", handle)
        started = time.perf_counter()
        page.goto(ORIGIN + path, wait_until="load")
        if wait_chart:  # scrolled to at once, as a reader would: charts.js draws a chart once it is near
            page.locator("#chart-leaderboard").scroll_into_view_if_needed()
            page.wait_for_function("() => window.__marks && window.__marks.chart", timeout=30_000)
        else:
            page.wait_for_timeout(500)
        marks = page.evaluate("""() => {
            const nav = performance.getEntriesByType('navigation')[0];
            const fcp = performance.getEntriesByName('first-contentful-paint')[0];
            const rows = document.querySelectorAll(%r);
            const first = rows[0] && rows[0].getBoundingClientRect();
            const plotly = performance.getEntriesByType('resource').find((e) => e.name.includes('plotly'));
            return {plotly_start: plotly ? plotly.startTime : null, fcp: fcp ? fcp.startTime : null,
                    dcl: nav.domContentLoadedEventStart, load: nav.loadEventStart,
                    row: (window.__marks || {}).row || null, chart: (window.__marks || {}).chart || null,
                    rows: rows.length, first_row_on_screen: !!first && first.top < innerHeight && first.height > 0};
        }""" % ROWS)
        # When the page asked for Plotly: from its resource timing (on the page's clock), else (held, never
        # answered) from when the request reached us.
        marks["plotly_asked"] = marks.pop("plotly_start") or (
            round((min(asked) - started) * 1000, 1) if asked else None)
        return marks
    finally:
        for route in held:
            route.abort()
        context.close()


def first_rows_report(client, path):
    from tests.browser.harness import CHROMIUM, chromium

    if not CHROMIUM:
        print("\n== first rows without the chart library: skipped (no chromium binary) ==")
        return
    from django.urls import reverse

    def median_of(loads):
        out = {}
        for name in loads[0]:
            values = [m[name] for m in loads if m[name] is not None]
            if values and isinstance(values[0], bool):
                out[name] = all(values)
            else:
                out[name] = statistics.median(values) if values else None
        return out

    with chromium() as browser:
        for _ in range(2):  # warm-up: caches on the server, Chromium's own start-up
            browser_timings(client, browser, path, hold_plotly=False, wait_chart=False)
        kinds = {"sign-in page (baseline)": (reverse("login"), False, False), "board": (path, False, True),
                 "board, Plotly never answered": (path, True, False)}
        loads = {label: [] for label in kinds}
        for i in range(LOADS):  # interleaved in turns, so a slow moment of the machine hits all three alike
            labels = list(kinds)
            for label in labels[i % 3:] + labels[:i % 3]:
                url, hold, chart = kinds[label]
                loads[label].append(browser_timings(client, browser, url, hold_plotly=hold, wait_chart=chart))
                time.sleep(0.3)  # let the previous page's work (a drawn chart) settle
    runs = {label: median_of(values) for label, values in loads.items()}
    after_load = all(m["plotly_asked"] is not None and m["plotly_asked"] >= m["load"] for m in loads["board"])
    normal, held = runs["board"], runs["board, Plotly never answered"]
    print(f"\n== first rows without the chart library (Chromium 390 px, in-process, median of {LOADS} loads, "
          "ms from navigation) ==")
    print(f"{'':<32}{'FCP':>8}{'1st row':>9}{'DCL':>8}{'load':>8}{'Plotly asked':>14}{'chart':>8}{'rows':>6}")
    for label, m in runs.items():
        cells = [m["fcp"], m["row"], m["dcl"], m["load"], m["plotly_asked"], m["chart"]]
        print(f"{label:<32}" + "".join(f"{c:>{w}.0f}" if c is not None else f"{'–':>{w}}"
                                       for c, w in zip(cells, (8, 9, 8, 8, 14, 8))) + f"{m['rows']:>6}")
    base = runs["sign-in page (baseline)"]["fcp"]
    print(f"board FCP = {normal['fcp'] / base:.2f} x the sign-in page's; with Plotly held: "
          f"{held['fcp'] / base:.2f} x (held / normal = {held['fcp'] / normal['fcp']:.2f}); first row on screen "
          f"with Plotly held: {held['first_row_on_screen']} ({held['rows']} rows); Plotly asked for after the "
          f"load event in every load: {after_load}")


# --- server time -------------------------------------------------------------------------------------------------

def wsgi_getter(url):
    """GET url through Django's WSGI handler as a WSGI server does: (status, ms until the body was out), then the
    response closed (request_finished: a recompute taken on by this request runs there, untimed)."""
    import io

    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()
    path, _, query = url.partition("?")

    def get():
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query, "SCRIPT_NAME": "",
                   "SERVER_NAME": HOST, "SERVER_PORT": "80", "HTTP_HOST": HOST, "REMOTE_ADDR": "127.0.0.1",
                   "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr,
                   "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": False,
                   "wsgi.multiprocess": False, "wsgi.run_once": False}
        status = []
        start = time.perf_counter()
        body = handler(environ, lambda line, headers, exc_info=None: status.append(int(line.split()[0])))
        for _ in body:
            pass
        elapsed = (time.perf_counter() - start) * 1000
        body.close()
        return status[0], elapsed

    return get


def gunicorn_timings(paths, n, db_name, cold=(), cold_requests=0):
    """Warm p50/p95 of each of `paths` ({label: path}) over HTTP, and of `cold` ({label: path}) after published runs
    (time_cold: first and next reader, each once the one worker is free)."""
    from leaderboard.core.cache_generation import results_changed

    # DRF's anonymous throttle (120/min) would answer this many API requests from one address with 429s.
    with gunicorn_server(db_name, env={"API_THROTTLE_ANON": "1000000/min"}) as base:
        def getter(path):
            def get():
                request = urllib.request.Request(base + path, headers={"Host": HOST})
                with urllib.request.urlopen(request, timeout=60) as response:
                    response.read()
                    return response.status
            return get

        rows = {label: time_requests(getter(path), n) for label, path in paths.items()}
        for label, path in dict(cold).items():
            rows.update(zip(cold_labels(label), time_cold(getter(path), cold_requests,
                                                           lambda: results_changed(stale_ok=True),
                                                           free=getter("/healthz"))))
        return rows


def cold_labels(name):
    return f"{name} warm, between results", f"{name} cold: 1st reader", f"{name} cold: next reader"


def cold_ratio(rows, name):
    """The line comparing a page's cold p95 after a published run (the worse of its two readers) with its warm p95
    measured between them."""
    warm95 = rows[cold_labels(name)[0]][1]
    first, then = rows[f"{name} cold: 1st reader"][1], rows[f"{name} cold: next reader"][1]
    return (f"{name}: cold p95 after a result {max(first, then):.1f} ms (1st reader {first:.1f}, next {then:.1f}) "
            f"= {max(first, then) / warm95:.1f} x the warm p95 between them ({warm95:.1f} ms; target <= 3 x)")


def print_times(rows, baseline):
    base50, base95 = rows[baseline]
    print(f"{'':<34}{'p50':>9}{'p95':>9}{'p50 / sign-in':>15}{'p95 / sign-in':>15}")
    for label, (p50, p95) in rows.items():
        print(f"{label:<34}{p50:>9.1f}{p95:>9.1f}{p50 / base50:>15.1f}{p95 / base95:>15.1f}")


def seed(connection, models):
    """The demo bank and `models` scored models, unless a kept database already holds exactly them."""
    from leaderboard.benchmarks.demo import demo_import
    from leaderboard.submissions.models import ModelEntry
    from tests.browser.page_weight import many_models_seed

    seeded = ModelEntry.objects.filter(hub_id__startswith="org-").count()
    if seeded == models:
        print(f"reusing the kept database's demo bank and {models:,} scored models")
        return
    if seeded:
        raise SystemExit(f"the kept database holds {seeded:,} models, not {models:,}: run without --keep-database "
                         "once (it is dropped after), or with the same --models")
    start = time.perf_counter()
    demo_import()
    many_models_seed(models)
    with connection.cursor() as cursor:  # planner statistics, as autovacuum keeps them on a live database
        cursor.execute("ANALYZE")
    print(f"seeded the demo bank and {models:,} scored models in {time.perf_counter() - start:.1f} s (then ANALYZE)")


def board_size(models) -> str:
    """The board's size as its ranking sees it: models, and the questions each one's accuracy counts."""
    from leaderboard.results.models import ResultAggregate

    questions = (ResultAggregate.objects.filter(level="overall", result__hub_id__startswith="org-")
                 .values_list("n", flat=True).first())
    return f"{models:,} models, each scored on {questions:,} questions (prompts)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--cold-requests", type=int, default=20,
                        help="results changes timed (a p95 of 5 would be their maximum)")
    parser.add_argument("--gunicorn", action="store_true", help="also time over HTTP against a local gunicorn")
    parser.add_argument("--no-browser", action="store_true", help="weigh from the HTML's tags, without Chromium")
    parser.add_argument("--keep-database", action="store_true",
                        help=f"keep test_{DB_NAME} after the run and reuse it when it holds --models models")
    args = parser.parse_args()

    with bench_database(DB_NAME, keep=args.keep_database) as connection:
        from django.core.cache import cache
        from django.test import Client
        from django.urls import reverse

        from leaderboard.core.cache_generation import results_changed
        from tests.browser.harness import CHROMIUM, chromium, leaderboard_path
        from tests.browser.page_weight import budget_problems, page_weight, report

        cache.clear()
        seed(connection, args.models)
        size = board_size(args.models)

        client = Client(HTTP_HOST=HOST)
        path = leaderboard_path()
        results_changed()  # the next request reads every row, as after a new result
        start = time.perf_counter()
        html = client.get(path).content.decode()
        first = (time.perf_counter() - start) * 1000
        shown = len(re.findall(r'<tr data-hub-id="', html))
        blocks, data_raw, data_gzip = data_blocks(html)
        print(f"\nleaderboard page {path}: first request {first:,.0f} ms (reads every row); {shown} rows in the "
              f"HTML of {args.models:,} models; {blocks} json_script block(s), {data_raw:,} B raw / {data_gzip:,} "
              "B gzip")

        use_browser = CHROMIUM and not args.no_browser
        if use_browser:
            with chromium() as browser:
                transfers = page_weight(client, path, browser=browser)
        else:
            transfers = page_weight(client, path)
        how = "requests Chromium made" if use_browser else "the HTML's script/stylesheet tags (no Chromium)"
        print(f"\n== transfer size ({how}) ==")
        print(report(transfers))
        problems = budget_problems(transfers)
        print("-> within every budget" if not problems else "-> OVER BUDGET: " + "; ".join(problems))

        if use_browser:
            first_rows_report(client, path)

        login, api = reverse("login"), reverse("api-leaderboard")
        sep = "&" if "?" in path else "?"
        topic = reverse("topic-detail", args=["travel-planning"])
        from leaderboard.submissions.models import ModelEntry  # a model from the middle of the board: its own page
        model = reverse("model-detail", args=[ModelEntry.objects.order_by("pk").values_list("hub_id", flat=True)[
            ModelEntry.objects.count() // 2]])
        print(f"\n== server time with {size}, Django's WSGI handler in-process (ms; {args.requests} requests each, "
              f"{args.cold_requests} results changes for cold) ==")
        # Server time, not DRF's per-IP throttle (120/min anonymous), which this many API requests would meet.
        from rest_framework.throttling import SimpleRateThrottle
        SimpleRateThrottle.allow_request = lambda *a: True
        get = wsgi_getter

        def published():
            results_changed(stale_ok=True)  # as run_results_write does

        n, cold = args.requests, args.cold_requests
        rows = {
            "baseline /healthz": time_requests(get("/healthz"), n),
            f"baseline {login}": time_requests(get(login), n),
            "board warm": time_requests(get(path), n),
            "board filtered (mini, search)": time_requests(get(f"{path}{sep}size_class=mini&search=org-1"), n),
            "board sorted by params, desc": time_requests(get(f"{path}{sep}sort=-params"), n),
            "board page 50, flagged shown": time_requests(get(f"{path}{sep}page=50&flagged=show"), n),
            "board categories columns": time_requests(get(f"{path}{sep}columns=categories"), n),
            "board fragment (script swap)": time_requests(get(f"{path}{sep}fragment=board&size_class=small"), n),
            **dict(zip(cold_labels("board"), time_cold(get(path), cold, published))),
            "board cold after a hide": time_requests(get(path), cold, before_each=results_changed, warm_up=1),
            "API JSON warm (cached)": time_requests(get(f"{api}?flagged=false"), n),
            **dict(zip(cold_labels("API JSON"), time_cold(get(f"{api}?flagged=false"), cold, published))),
            "API JSON cold after a hide": time_requests(get(f"{api}?flagged=false"), cold,
                                                        before_each=results_changed, warm_up=1),
            "topic page warm": time_requests(get(topic), n),
            "model page warm": time_requests(get(model), n),
        }
        print_times(rows, f"baseline {login}")
        worst = max(p95 for label, (_, p95) in rows.items() if label.startswith("board") and "cold" not in label)
        print(f"board p95, worst warm variant: {worst:.1f} ms")
        print(f"at {size}:")
        for name in ("board", "API JSON"):
            hide, warm = rows[f"{name} cold after a hide"][1], rows[cold_labels(name)[0]][1]
            print(f"  {cold_ratio(rows, name)}; after a hide {hide:.1f} ms = {hide / warm:.1f} x (recomputed in the "
                  "request: never stale)")

        if args.gunicorn:
            print(f"\n== server time over HTTP, local gunicorn (1 sync worker), {args.requests} requests (ms) ==")
            timings = gunicorn_timings({"baseline /healthz": "/healthz", f"baseline {login}": login,
                                        "board": path,
                                        "board fragment": f"{path}{sep}fragment=board&size_class=small"},
                                       args.requests, connection.settings_dict["NAME"],
                                       cold={"board": path, "API JSON": f"{api}?flagged=false"}, cold_requests=cold)
            print_times(timings, f"baseline {login}")
            print(f"gunicorn at {size}:")
            for name in ("board", "API JSON"):
                print(f"  {cold_ratio(timings, name)}")


if __name__ == "__main__":
    main()
