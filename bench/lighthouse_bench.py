"""Lighthouse's mobile profile on every page of frontend/urls.py, served as production serves it, beside a trivial page.

    python bench/lighthouse_bench.py [--models 1000] [--pages home,compare,...] [--no-inp] [--keep DIR]
                                     [--cache-url redis://127.0.0.1:6394/0]

Needs Lighthouse from bench/lighthouse/ (pinned with its lock: `cd bench/lighthouse && npm ci --ignore-scripts`;
no browser is downloaded) and Debian's Chromium (CHROME_PATH, else /usr/bin/chromium).

1. Seeds a throw-away PostgreSQL database with the demo as `./dev.sh serve` loads it (load_demo: the demo question
   bank and models, each model evaluated on the same boards), a demo account with a queued submission (made through
   the real submission path against the tests' fake hub, as the network is closed), and with --models N, N more
   scored models (tests/browser/page_weight.py's many_models_seed, as bench/page_weight_bench.py does).
2. Builds the static files as production does: collectstatic under the production settings (WhiteNoise's
   compressed manifest storage: hashed names, .gz and, where brotli is installed, .br files) into a temporary
   STATIC_ROOT, and writes the trivial baseline page there.
3. Serves it with gunicorn under leaderboard.settings.production (DEBUG off, docker/gunicorn.conf.py, 2 workers) on
   127.0.0.1 only, the cache on --cache-url (else a file cache in the temporary folder), cleared before serving.
4. Runs `lighthouse URL --form-factor=mobile` (its default mobile profile: a Moto G Power, simulated throttling:
   4x CPU slowdown, 150 ms RTT, 1.6 Mbps) on each page, after one warming GET (the board's rows cached, as for every
   reader but the first after a result: bench/page_weight_bench.py times the cold board). Pages an anonymous
   visitor is sent away from are measured signed in as the demo account (a session cookie header).
5. INP: a Lighthouse user-flow timespan (devtools throttling: the same 4x CPU slowdown) over a sort (a click on a
   column header) and a filter (typing in the search field) on the board, and over a click and typing on the
   baseline page (bench/lighthouse/flow.mjs, puppeteer-core driving the same Chromium).

Prints, per page, the performance, accessibility and SEO scores, LCP, TBT, CLS and the JavaScript transferred, with
the baseline page measured at the start and at the end of the same run (a busy host moves every figure: the ratios
and differences against it are what carry over between machines), and the load average. Asserts nothing.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from _django import bench_database, database_url, free_port, gunicorn_server  # noqa: E402

DB_NAME = "leaderboard_lighthouse_bench"  # -> test_leaderboard_lighthouse_bench
LIGHTHOUSE_DIR = REPO / "bench" / "lighthouse"
LIGHTHOUSE = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# What `./dev.sh serve` evaluates for each demo model (its serve()): the same boards, so the pages show what a
# newcomer's demo shows.
DEMO_BOARDS = (("mobile-mmlu", "validation"), ("mobile-mmlu", "test"), ("mobile-mmlu-pro", "validation"),
               ("mmlu-pro", "validation"))
BASELINE_FILE = "lighthouse-baseline.html"
# The trivial page: what any page of the site costs at least on this host (no script, no stylesheet, no image);
# a field and a button for the INP baseline.
BASELINE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Baseline page</title>
<meta name="description" content="A trivial page served by the same server in the same run: the baseline that the
leaderboard's pages are measured against.">
</head><body><main><h1>Baseline page</h1><p>Text only: no script, no stylesheet, no image.</p>
<label>Search models <input type="search" name="search"></label> <button type="button" id="sort">Sort</button>
</main></body></html>
"""
# The board's interactions (frontend/templates/frontend/partials/board.html and leaderboard.html): sort by a column
# header, then filter by typing a name in the search field.
BOARD_STEPS = "click table#leaderboard-table thead th[data-sort]:nth-child(3) a;type input[name=search] tiny"
BASELINE_STEPS = "click #sort;type input[name=search] tiny"


@dataclass
class Page:
    label: str
    path: str
    signed_in: bool = False


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min) on {os.cpu_count()} CPUs"


def chrome_path() -> str:
    path = os.environ.get("CHROME_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        sys.exit(f"no Chromium at {path}: install Debian's chromium (apt-get install chromium) or set CHROME_PATH")
    return path


# --- the site ------------------------------------------------------------------------------------------------

def seed(models: int, tmp: Path):
    """The demo as ./dev.sh serve loads it, a demo account with a queued submission, and `models` more models."""
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from leaderboard.benchmarks.demo import DEMO_MODELS, demo_models_dir
    from leaderboard.hub.ids import ModelRef
    from leaderboard.submissions.services import submission_create
    from tests.browser.page_weight import many_models_seed
    from tests.support.fake_hub import fake_hub_session, files_from_folder

    quiet = io.StringIO()  # their progress lines; a failure still raises
    call_command("load_demo", verbosity=0, stdout=quiet)
    for name in DEMO_MODELS:
        for benchmark, split in DEMO_BOARDS:
            call_command("evaluate", model=f"demo/{name}", benchmark=benchmark, split=split, skip_if_done=True,
                         line=True, verbosity=0, stdout=quiet)
    user = User.objects.create_user("lighthouse-demo", "lighthouse-demo@example.com", secrets.token_urlsafe())
    with fake_hub_session(tmp / "hf-home") as hub:  # the submission path asks the hub about the model
        files = files_from_folder(demo_models_dir() / DEMO_MODELS[0])
        files["README.md"] = b"---\nlicense: mit\n---\n# demo model\n"
        hub.add_repo("demo-org/tiny", repo_type="model", files=files, license="mit")
        submission = submission_create(user=user, ref=ModelRef("demo-org/tiny"))
    if models:
        many_models_seed(models)
    return user, submission


def site_ids(submission):
    """Real rows for the pages' parameters: the first demo model, one of its topics, the demo account's submission."""
    from leaderboard.benchmarks.demo import DEMO_MODELS
    from leaderboard.results.models import ResultAggregate
    from tests.browser.harness import SiteIds

    hub_id = f"demo/{DEMO_MODELS[0]}"
    topic = (ResultAggregate.objects.filter(result__hub_id=hub_id, level="topic").order_by("key")
             .values_list("key", flat=True).first())
    return SiteIds(hub_id=hub_id, benchmark="mobile-mmlu", topic=topic, submission=submission.pk,
                   run=submission.runs.order_by("pk").first().pk)


def site_pages(ids) -> list[Page]:
    """Every page of frontend/urls.py (tests/browser/harness.py's walk, as the browser tests open them), filled."""
    from tests.browser.harness import frontend_routes, page_url

    return [Page(route.label, page_url(route, ids)) for route in frontend_routes()]


def production_env(tmp: Path, db_name: str, cache_url: str, port: int) -> dict:
    """The environment leaderboard.settings.production requires, for a server on 127.0.0.1:port only."""
    from django.conf import settings

    return {
        "DJANGO_SETTINGS_MODULE": "leaderboard.settings.production", "DATABASE_URL": database_url(db_name),
        "SECRET_KEY": secrets.token_urlsafe(60), "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": f"http://127.0.0.1:{port}",  # canonical links on the address Lighthouse opens
        "SECURE_SSL_REDIRECT": "false",  # plain HTTP on the loopback: there is no TLS proxy in front
        "CACHE_URL": cache_url,
        # Pages queue nothing; production only needs the broker elsewhere than the cache.
        "CELERY_BROKER_URL": "memory://", "CELERY_RESULT_BACKEND": "cache+memory://",
        "METRICS_TOKEN": secrets.token_urlsafe(32),
        "SEALED_ANSWER_KEYS": ",".join(settings.SEALED_ANSWER_KEYS),  # the keys the seeded rows were sealed with
        "STATIC_ROOT": str(tmp / "static"),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp / "prometheus"),  # as docker/start-web.sh sets it
        "WEB_CONCURRENCY": "2",
        "ACCESS_LOG": "false", "LOG_LEVEL": "ERROR",  # no line per 404 (robots.txt, favicon.ico)
    }


def collectstatic(env: dict):
    start = time.perf_counter()
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"], cwd=REPO, check=True,
                   env={**os.environ, **env})
    root = Path(env["STATIC_ROOT"])
    kinds = {ext: sum(1 for _ in root.rglob(f"*.{ext}")) for ext in ("js", "gz", "br")}
    (root / BASELINE_FILE).write_text(BASELINE_HTML)
    print(f"collectstatic (production storage) in {time.perf_counter() - start:.0f} s: {kinds['js']} .js files, "
          f"{kinds['gz']} .gz, {kinds['br']} .br")


def status_of(base: str, path: str, cookie: str = "") -> int:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    request = urllib.request.Request(base + path, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=120) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


# --- Lighthouse ------------------------------------------------------------------------------------------------

def lighthouse(url: str, out: Path, chrome: str, cookie: str = "") -> dict:
    """One Lighthouse run with its default mobile profile; the figures this bench prints, from its JSON."""
    command = [str(LIGHTHOUSE), url, "--form-factor=mobile", "--chrome-flags=--headless=new --no-sandbox",
               f"--only-categories={','.join(CATEGORIES)}", "--output=json", f"--output-path={out}", "--quiet"]
    if cookie:
        headers = out.with_suffix(".headers.json")
        headers.write_text(json.dumps({"Cookie": cookie}))
        command.append(f"--extra-headers={headers}")
    for attempt in (1, 2, 3):  # on a busy host Chromium's trace now and then misses the navigation (NO_NAVSTART)
        done = subprocess.run(command, cwd=LIGHTHOUSE_DIR, env={**os.environ, "CHROME_PATH": chrome}, timeout=600)
        if done.returncode == 0 and not json.loads(out.read_text()).get("runtimeError"):
            return figures(json.loads(out.read_text()))
        print(f"    Lighthouse failed on {url} (attempt {attempt} of 3)", flush=True)
    sys.exit(f"Lighthouse failed 3 times on {url}")


def figures(lhr: dict) -> dict:
    audits = lhr["audits"]
    scripts = next((item for item in audits["resource-summary"]["details"]["items"]
                    if item["resourceType"] == "script"), {"transferSize": 0})

    def score(category):
        value = lhr["categories"].get(category, {}).get("score")
        return None if value is None else round(value * 100)

    return {"performance": score("performance"), "accessibility": score("accessibility"),
            "best-practices": score("best-practices"), "seo": score("seo"),
            "lcp": audits["largest-contentful-paint"]["numericValue"],
            "tbt": audits["total-blocking-time"]["numericValue"],
            "cls": audits["cumulative-layout-shift"]["numericValue"],
            "js": scripts["transferSize"],
            "final_url": lhr.get("finalDisplayedUrl") or lhr.get("finalUrl", ""),
            "warnings": lhr.get("runWarnings", [])}


def inp(url: str, steps: str, out: Path, chrome: str) -> dict:
    subprocess.run(["node", "flow.mjs", url, str(out), steps], check=True, cwd=LIGHTHOUSE_DIR, timeout=600,
                   env={**os.environ, "CHROME_PATH": chrome})
    return json.loads(out.read_text())


def row(label: str, f: dict, base: dict) -> str:
    def cell(value, fmt, width):
        return ("–" if value is None else format(value, fmt)).rjust(width)

    return (f"{label:<44}" + cell(f["performance"], "d", 5) + cell(f["accessibility"], "d", 6)
            + cell(f["seo"], "d", 5) + cell(f["lcp"] / 1000, ".1f", 7) + cell(f["lcp"] / base["lcp"], ".1f", 8)
            + cell(f["tbt"], ",.0f", 8) + cell(f["tbt"] - base["tbt"], "+,.0f", 9) + cell(f["cls"], ".3f", 7)
            + cell(f["js"] / 1024, ",.1f", 9))


HEADER = (f"{'page':<44}{'perf':>5}{'a11y':>6}{'SEO':>5}{'LCP s':>7}{'x base':>8}{'TBT ms':>8}{'- base':>9}"
          f"{'CLS':>7}{'JS KiB':>9}")


def table(results: dict[str, dict], pages: list[Page]) -> str:
    """One line per page (its path; "(signed in)" where an anonymous visitor is sent away), between the baseline's."""
    starts, ends = results["baseline (start)"], results["baseline (end)"]
    base = {key: statistics.mean([starts[key], ends[key]]) for key in ("lcp", "tbt")}
    lines = [HEADER]
    for label, f in results.items():
        page = next((p for p in pages if p.label == label), None)
        shown = label if page is None else page.path + (" (signed in)" if page.signed_in else "")
        lines.append(row(shown[:43], f, base))
        lines += [f"    warning: {warning}" for warning in f["warnings"]]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=0, help="this many more scored models beside the demo's")
    parser.add_argument("--pages", default="", help="comma-separated page names of frontend/urls.py (default: all)")
    parser.add_argument("--no-inp", action="store_true", help="skip the user-flow timespans (INP)")
    parser.add_argument("--cache-url", default="", help="the server's cache (redis://...; default: a file cache in "
                                                        "the temporary folder); cleared before serving")
    parser.add_argument("--keep", default="", help="keep Lighthouse's JSON reports in this folder")
    args = parser.parse_args()

    if not LIGHTHOUSE.exists():
        sys.exit(f"Lighthouse is not installed: cd {LIGHTHOUSE_DIR.relative_to(REPO)} && npm ci --ignore-scripts")
    chrome = chrome_path()
    tmp = Path(tempfile.mkdtemp(prefix="lighthouse-bench-"))
    reports = Path(args.keep) if args.keep else tmp / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    cache_url = args.cache_url or f"file://{tmp / 'cache'}"
    # The seeding process (test settings) writes and clears the same cache, and queues the submission's runs
    # in memory: nothing reaches another process's Redis.
    os.environ["CACHE_URL"] = cache_url
    os.environ.update(CELERY_BROKER_URL="memory://", CELERY_RESULT_BACKEND="cache+memory://")
    print(load() + " at the start")
    try:
        with bench_database(DB_NAME) as connection:
            from django.core.cache import cache

            from tests.browser.harness import session_cookie_for

            start = time.perf_counter()
            user, submission = seed(args.models, tmp)
            with connection.cursor() as cursor:  # planner statistics, as autovacuum keeps them on a live database
                cursor.execute("ANALYZE")
            print(f"seeded the demo (+ {args.models:,} models) in {time.perf_counter() - start:.0f} s")
            pages = site_pages(site_ids(submission))
            if args.pages:
                wanted = set(args.pages.split(","))
                pages = [p for p in pages if p.label in wanted]
                if missing := wanted - {p.label for p in pages}:
                    sys.exit(f"no such page in frontend/urls.py: {', '.join(sorted(missing))}")
            cookie = f"sessionid={session_cookie_for(user)}"
            cache.clear()

            port = free_port()
            env = production_env(tmp, connection.settings_dict["NAME"], cache_url, port)
            Path(env["PROMETHEUS_MULTIPROC_DIR"]).mkdir()
            collectstatic(env)
            with gunicorn_server(connection.settings_dict["NAME"], settings=env["DJANGO_SETTINGS_MODULE"], env=env,
                                 port=port, args=("--config", "docker/gunicorn.conf.py")) as base:
                run(base, pages, cookie, chrome, reports, inp_too=not args.no_inp, models=args.models)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def run(base, pages, cookie, chrome, reports, *, inp_too, models):
    for page in pages:  # who can open it, and its rows cached (one GET), before anything is timed
        if status_of(base, page.path) != 200:
            page.signed_in = True
            if (code := status_of(base, page.path, cookie)) != 200:
                sys.exit(f"{page.label} ({page.path}) answers {code} even signed in")
    baseline_url = f"{base}/static/{BASELINE_FILE}"
    loads = [load()]
    results = {"baseline (start)": lighthouse(baseline_url, reports / "baseline-start.json", chrome)}
    for page in pages:
        name = page.label.replace("/", "_")
        results[page.label] = lighthouse(base + page.path, reports / f"{name}.json", chrome,
                                         cookie if page.signed_in else "")
        print(f"  {page.label}: performance {results[page.label]['performance']}", flush=True)
    results["baseline (end)"] = lighthouse(baseline_url, reports / "baseline-end.json", chrome)
    loads.append(load())

    print(f"\n== Lighthouse 12.2.3, mobile profile (Moto G Power, simulated throttling), {models:,} models beside "
          f"the demo; x base / - base: against the baseline page's mean of start and end ==")
    print(table(results, pages))
    print(f"during: {loads[0]}; after: {loads[1]}")

    if inp_too:
        from tests.browser.harness import leaderboard_path

        board = leaderboard_path()
        print("\n== INP: user-flow timespan (devtools throttling, 4x CPU), a sort then a filter ==")
        for label, url, steps in (("baseline page: a click, then typing", baseline_url, BASELINE_STEPS),
                                  (f"board {board}: sort by a column, then search", base + board, BOARD_STEPS)):
            f = inp(url, steps, reports / f"inp-{label.split()[0]}.json", chrome)
            print(f"{label:<58} INP {f['inp']:>6.0f} ms   TBT {f['tbt']:>6.0f} ms   CLS {f['cls']:.3f}")
        print(load())


if __name__ == "__main__":
    main()
