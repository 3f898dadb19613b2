"""The leaderboard with many models, and what its page weighs on the wire.

Shared by tests/browser/test_page_weight.py and bench/page_weight_bench.py.

`many_models_seed` bulk-inserts what scoring would have written for N models (ModelEntry, a succeeded
EvaluationRun, its RunResult and ResultAggregate rows with the real taxonomy's population sizes),
the way leaderboard/results/services.py writes them, without predicting or scoring anything.

`page_weight` lists what a browser downloads for a page: the HTML and every same-origin request it
makes (its own JS and CSS, any data it fetches), with the gzip and brotli sizes of each. Plotly is
listed but left out of the budget (a shared, cached vendor file). With a Chromium browser the list is
what the page really requested (served in-process through Django's test client, no server needed);
without one, it is the HTML's <script src> and <link rel=stylesheet> tags.
"""
from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

BUDGET_BYTES = 300 * 1000  # issue 7: at most 300 KB compressed (HTML + data + page JS, Plotly excluded)
ORIGIN = "http://leaderboard.test"
EXCLUDED = re.compile(r"/vendor/|plotly", re.I)
ALL_LEVELS = ("overall", "category", "subcategory", "topic")

try:
    import brotli
except ImportError:  # optional: the budget is checked on gzip
    brotli = None


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

@dataclass
class Transfer:
    url: str
    kind: str  # document, script, stylesheet, fetch, ...
    raw: int
    gzip: int
    brotli: int | None
    excluded: bool  # Plotly / vendor files: cached and shared, outside the budget

    @classmethod
    def of(cls, url, kind, body: bytes):
        return cls(url, kind, len(body), len(gzip.compress(body, compresslevel=6)),
                   len(brotli.compress(body, quality=5)) if brotli else None, bool(EXCLUDED.search(url)))


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
        return [Transfer.of(path, "document", html), *_referenced(client, html.decode("utf-8", "replace"))]
    return _requested(client, path, browser)


def _referenced(client, html):
    out = []
    scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', html)
    sheets = re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"', html)
    for kind, url in [("script", u) for u in scripts] + [("stylesheet", u) for u in sheets]:
        if urlsplit(url).netloc:
            continue  # another origin: not ours to weigh (the page should not have any)
        status, body, _ = fetch(client, url)
        out.append(Transfer.of(url, kind, body) if status == 200 else Transfer(url, kind, 0, 0, 0, False))
    return out


def _requested(client, path, browser):
    """Load the page in Chromium with every request answered in-process; record each response."""
    from tests.browser.harness import thread_connections, use_connections

    transfers, own = [], thread_connections()

    def handle(route):
        use_connections(own)
        request = route.request
        parts = urlsplit(request.url)
        if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
            return route.abort()
        local = parts.path + (f"?{parts.query}" if parts.query else "")
        status, body, content_type = fetch(client, local)
        transfers.append(Transfer.of(local, request.resource_type, body))
        route.fulfill(status=status, body=body, content_type=content_type or None)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.route("**/*", handle)
        page.goto(ORIGIN + path, wait_until="networkidle")
    finally:
        context.close()
    return transfers


def budget_total(transfers, field="gzip"):
    return sum(getattr(t, field) or 0 for t in transfers if not t.excluded)


def report(transfers) -> str:
    lines = [f"{'':2}{'kind':<11}{'raw':>10}{'gzip':>10}{'brotli':>10}  url"]
    for t in transfers:
        lines.append(f"{'x ' if t.excluded else '  '}{t.kind:<11}{t.raw:>10,}{t.gzip:>10,}"
                     f"{t.brotli if t.brotli is not None else '-':>10}  {t.url}")
    lines.append(f"  {'in budget':<11}{sum(t.raw for t in transfers if not t.excluded):>10,}"
                 f"{budget_total(transfers):>10,}{budget_total(transfers, 'brotli') if brotli else '-':>10}"
                 "  (x = Plotly/vendor, excluded)")
    return "\n".join(lines)
