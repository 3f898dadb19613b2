"""The leaderboard with many models, and what its page weighs on the wire.

Shared by tests/browser/test_page_weight.py and bench/page_weight_bench.py.

`many_models_seed` bulk-inserts what scoring would have written for N models (ModelEntry, a succeeded
EvaluationRun, its RunResult and ResultAggregate rows with the real taxonomy's population sizes),
the way leaderboard/results/services.py writes them, without predicting or scoring anything.

`page_weight` lists what a browser downloads for a page, nothing left out: the first view (the HTML and every
same-origin request it makes before a reader scrolls: its own JS and CSS, any data it fetches) and then the charts
(what the page fetches as each chart comes near the viewport: the chart library). Each with its raw size and its
size as production sends it: a static file brotli-compressed as WhiteNoise writes it at collectstatic, a page
gzip-compressed as Django's gzip_page sends it. With a Chromium browser the list is what the page really requested on
a phone's screen (served in-process through Django's test client, no server needed); without one, it is the HTML's
<script src> and <link rel=stylesheet> tags, and the chart library charts.js's tag names.
"""
from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

# Compressed, as production sends them (issue 7, issue 39):
FIRST_VIEW_BYTES = 300 * 1000  # the first view: HTML, data, CSS and JS
FIRST_VIEW_JS_BYTES = 60 * 1000  # the first view's JS
CHART_LIBRARY_BYTES = 400 * 1000  # the chart library, fetched when a chart is near
ORIGIN = "http://leaderboard.test"
CHART_LIBRARY = re.compile(r"/vendor/plotly-[^/]*\.js$")
FIRST_VIEW, CHARTS = "first view", "charts"
ALL_LEVELS = ("overall", "category", "subcategory", "topic")


# --- seeding ----------------------------------------------------------------------------------------------------

def many_models_seed(n_models=1000, *, benchmark="mobile-mmlu", levels=ALL_LEVELS, seed=7):
    """N models with one scored validation run each (original variant), inserted in bulk. Needs an imported
    version of `benchmark` (load_demo). Returns the hub ids."""
    from django.utils import timezone

    from leaderboard.benchmarks import selectors as bench_selectors
    from leaderboard.benchmarks.models import Topic
    from leaderboard.evaluations.models import EvaluationRun, RunStatus
    from leaderboard.results.models import ResultAggregate, RunResult
    from leaderboard.submissions.models import ModelEntry

    rng = random.Random(seed)
    bench = bench_selectors.benchmark_get(slug=benchmark)
    version = bench_selectors.version_current(benchmark=bench)
    topics = list(Topic.objects.filter(benchmark=bench).select_related("subcategory__category").order_by("order"))
    now = timezone.now()
    types, precisions = ("pretrained", "instruct", "reasoning"), ("bfloat16", "bfloat16", "float16", "int8", "awq-4bit")

    entries = []
    for i in range(n_models):
        org = f"org-{i % 97:02d}"
        params = int(10 ** rng.uniform(8, 11.3))  # 100M .. 200B, log-uniform
        entries.append(ModelEntry(hub_id=f"{org}/model-{i:04d}-{rng.choice(['chat', 'base', 'it', 'r1'])}",
                                  namespace=org, params=params, model_type=types[i % 3], flagged=i % 53 == 0,
                                  license="apache-2.0", architecture="LlamaForCausalLM"))
    entries = ModelEntry.objects.bulk_create(entries, batch_size=1000)
    runs = EvaluationRun.objects.bulk_create([
        EvaluationRun(benchmark_version=version, split="validation", model_ref=e.hub_id,
                      model_revision=f"{i:040x}", precision=precisions[i % len(precisions)], variants=["original"],
                      status=RunStatus.SUCCEEDED, template_hash="f" * 64, seed=1234,
                      dataset_hash=version.split_hashes.get("validation", ""), progress_done=1, progress_total=1,
                      started_at=now, finished_at=now)
        for i, e in enumerate(entries)], batch_size=1000)
    results = RunResult.objects.bulk_create([
        RunResult(run=run, model=e, hub_id=e.hub_id, revision=run.model_revision, precision=run.precision,
                  benchmark=bench, benchmark_version=version, split="validation", shots=0,
                  primary_variant="original", scored_at=now)
        for run, e in zip(runs, entries)], batch_size=1000)

    aggregates = []
    for result in results:
        skill = rng.uniform(0.25, 0.85)
        cells = {}  # (level, key) -> [name, n, correct]
        for t in topics:
            n = t.published_population or 100
            correct = min(n, max(0, round(n * rng.gauss(skill, 0.06))))
            sub, cat = t.subcategory, t.subcategory.category
            for level, key, name in (("overall", "", ""), ("category", cat.slug, cat.name),
                                     ("subcategory", f"{cat.slug}/{sub.slug}", sub.name), ("topic", t.slug, t.name)):
                if level in levels:
                    cell = cells.setdefault((level, key), [name, 0, 0])
                    cell[1] += n
                    cell[2] += correct
        aggregates += [ResultAggregate(result=result, variant="original", level=level, key=key, name=name, n=n,
                                       correct=correct) for (level, key), (name, n, correct) in cells.items()]
    ResultAggregate.objects.bulk_create(aggregates, batch_size=5000)
    _results_changed()
    return [e.hub_id for e in entries]


def _results_changed():
    try:
        from leaderboard.core.cache_generation import results_changed
    except ImportError:  # an older tree without the response cache
        return
    results_changed()


# --- weighing ---------------------------------------------------------------------------------------------------

@lru_cache(maxsize=64)
def _brotli_size(body: bytes) -> int:
    """WhiteNoise's own compression (brotli's default, quality 11), once per file and process: 2 s for the chart
    library."""
    from whitenoise.compress import Compressor

    return len(Compressor.compress_brotli(body))


@dataclass
class Transfer:
    url: str
    kind: str  # document, script, stylesheet, fetch, ...
    phase: str  # FIRST_VIEW or CHARTS
    raw: int
    sent: int  # compressed as production sends it
    how: str  # "br" (a static file, WhiteNoise's .br) or "gzip" (a page, gzip_page)

    @classmethod
    def of(cls, url, kind, phase, body: bytes):
        from django.conf import settings

        if urlsplit(url).path.startswith("/" + settings.STATIC_URL.lstrip("/")):
            return cls(url, kind, phase, len(body), _brotli_size(body), "br")
        return cls(url, kind, phase, len(body), len(gzip.compress(body, compresslevel=6, mtime=0)), "gzip")

    @property
    def is_script(self):
        return self.kind == "script" or urlsplit(self.url).path.endswith(".js")

    @property
    def is_chart_library(self):
        return bool(CHART_LIBRARY.search(urlsplit(self.url).path))


def _static_body(path):
    """A static file as the server would send it (found through the staticfiles finders)."""
    from django.conf import settings
    from django.contrib.staticfiles import finders

    name = path[len("/" + settings.STATIC_URL.lstrip("/")):]
    found = finders.find(name)
    if not found:
        return None
    with open(found, "rb") as handle:
        return handle.read()


def fetch(client, path):
    """(status, body, content type) of a same-origin URL: static files from the finders, the rest through Django."""
    from django.conf import settings

    if urlsplit(path).path.startswith("/" + settings.STATIC_URL.lstrip("/")):
        body = _static_body(urlsplit(path).path)
        kind = "text/css" if path.endswith(".css") else "application/javascript"
        return (200, body, kind) if body is not None else (404, b"", "text/plain")
    response = client.get(path)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, body, response.get("Content-Type", "")


def page_weight(client, path, browser=None) -> list[Transfer]:
    html_status, html, _ = fetch(client, path)
    if html_status != 200:
        raise AssertionError(f"{path} answered {html_status}")
    if browser is None:
        return [Transfer.of(path, "document", FIRST_VIEW, html), *_referenced(client, html.decode("utf-8", "replace"))]
    return _requested(client, path, browser)


def _referenced(client, html):
    out = []
    scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', html)
    sheets = re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"', html)
    charts = re.findall(r'<script[^>]*\bdata-plotly="([^"]+)"', html) if 'class="chart' in html else []
    for kind, phase, url in ([("script", FIRST_VIEW, u) for u in scripts] + [("stylesheet", FIRST_VIEW, u) for u in sheets]
                             + [("script", CHARTS, u) for u in charts]):
        if urlsplit(url).netloc:
            continue  # another origin: not ours to weigh (the page should not have any)
        status, body, _ = fetch(client, url)
        out.append(Transfer.of(url, kind, phase, body) if status == 200 else Transfer(url, kind, phase, 0, 0, "-"))
    return out


def _requested(client, path, browser):
    """Load the page in Chromium on a phone's screen with every request answered in-process and record each
    response: the first view until the network is idle, then the charts as each is scrolled into view."""
    from tests.browser.harness import PHONE, thread_connections, use_connections, wait_for_charts

    transfers, own, phase = [], thread_connections(), [FIRST_VIEW]

    def handle(route):
        use_connections(own)
        request = route.request
        parts = urlsplit(request.url)
        if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
            return route.abort()
        local = parts.path + (f"?{parts.query}" if parts.query else "")
        status, body, content_type = fetch(client, local)
        transfers.append(Transfer.of(local, request.resource_type, phase[0], body))
        route.fulfill(status=status, body=body, content_type=content_type or None)

    context = browser.new_context(viewport={"width": PHONE, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    try:
        page = context.new_page()
        page.route("**/*", handle)
        page.goto(ORIGIN + path, wait_until="networkidle")
        phase[0] = CHARTS
        wait_for_charts(page, timeout=30_000)
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    return transfers


def total(transfers, phase=None, *, scripts=False, library=True):
    return sum(t.sent for t in transfers if (phase is None or t.phase == phase) and (not scripts or t.is_script)
               and (library or not t.is_chart_library))


def budget_problems(transfers) -> list[str]:
    """Each budget the page is over, in words; empty when it keeps them all. The chart library has a budget of its
    own, and fetched in the first view it is a problem of its own."""
    problems = []
    first = total(transfers, FIRST_VIEW, library=False)
    first_js = total(transfers, FIRST_VIEW, scripts=True, library=False)
    if first > FIRST_VIEW_BYTES:
        problems.append(f"the first view sends {first:,} B compressed, over {FIRST_VIEW_BYTES:,} B")
    if first_js > FIRST_VIEW_JS_BYTES:
        problems.append(f"the first view's JS is {first_js:,} B compressed, over {FIRST_VIEW_JS_BYTES:,} B")
    early = [t.url for t in transfers if t.phase == FIRST_VIEW and t.is_chart_library]
    if early:
        problems.append(f"the chart library is in the first view (no chart was near the screen): {early}")
    problems += [f"the chart library {t.url} is {t.sent:,} B compressed, over {CHART_LIBRARY_BYTES:,} B"
                 for t in transfers if t.is_chart_library and t.sent > CHART_LIBRARY_BYTES]
    return problems


def first_view_script_problems(responses) -> list[str]:
    """The budgets of the scripts a page loaded (Playwright responses, as a browser test records them), the chart
    library left out (test_page_weight.py weighs it)."""
    paths = {urlsplit(r.url).path: r for r in responses}
    return budget_problems([Transfer.of(path, "script", FIRST_VIEW, r.body()) for path, r in paths.items()
                            if not CHART_LIBRARY.search(path)])


# In a page: the chart library's requests made before the load event (none: the page is interactive first).
LIBRARY_BEFORE_LOAD = """() => {
    const load = performance.getEntriesByType('navigation')[0].loadEventStart;
    return performance.getEntriesByType('resource')
        .filter((e) => /\\/vendor\\/plotly-[^/]*\\.js$/.test(new URL(e.name).pathname) && e.startTime < load)
        .map((e) => e.name);
}"""


def report(transfers) -> str:
    lines = [f"{'phase':<12}{'kind':<11}{'raw':>11}{'sent':>10}  url"]
    for t in transfers:
        lines.append(f"{t.phase:<12}{t.kind:<11}{t.raw:>11,}{t.sent:>10,} {t.how:<5}{t.url}")
    for phase in (FIRST_VIEW, CHARTS):
        raw = sum(t.raw for t in transfers if t.phase == phase)
        lines.append(f"{phase + ' total':<23}{raw:>11,}{total(transfers, phase):>10,}       "
                     f"(JS {total(transfers, phase, scripts=True):,} B)")
    lines.append(f"{'all':<23}{sum(t.raw for t in transfers):>11,}{total(transfers):>10,}       "
                 f"(budgets: first view {FIRST_VIEW_BYTES:,} B, its JS {FIRST_VIEW_JS_BYTES:,} B, "
                 f"chart library {CHART_LIBRARY_BYTES:,} B)")
    return "\n".join(lines)
