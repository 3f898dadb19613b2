"""The bench/ scripts run outside the suite, so a rename in the code would break them unnoticed: every name
they import from the project (function-local imports included) must exist."""
import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("leaderboard", "evaluator", "frontend", "tests", "bench")


def _project_imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] in PROJECT:
            yield node.lineno, node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT:
                    yield node.lineno, alias.name, []


def _missing(module: str, name: str) -> bool:
    if hasattr(importlib.import_module(module), name):
        return False
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule imported by name
    except ImportError:
        return True
    return False


@pytest.mark.parametrize("script", sorted((ROOT / "bench").glob("*.py")), ids=lambda p: p.name)
def test_a_bench_imports_only_what_the_code_has(script):
    broken = [f"{script.name}:{line} {module}.{name}" for line, module, names in _project_imports(script)
              for name in names if _missing(module, name)]
    assert not broken, "bench imports names the code no longer has: " + ", ".join(broken)


# --- bench/lighthouse_bench.py: its wiring, without running Lighthouse (minutes of Chromium per page) -------------

def _lighthouse_bench():
    import importlib.util
    import sys

    if "lighthouse_bench" not in sys.modules:  # registered first: its dataclass looks its module up
        spec = importlib.util.spec_from_file_location("lighthouse_bench", ROOT / "bench" / "lighthouse_bench.py")
        sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules["lighthouse_bench"]


def test_the_lighthouse_bench_starts_and_says_how_to_run_it():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(ROOT / "bench" / "lighthouse_bench.py"), "--help"], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    for option in ("--models", "--pages", "--no-inp", "--cache-url"):
        assert option in out


def test_the_lighthouse_bench_measures_every_page_of_frontend_urls():
    from django.urls import URLPattern, resolve

    import frontend.urls
    from tests.browser.harness import AUTH_PAGES, SiteIds

    pages = _lighthouse_bench().site_pages(SiteIds(hub_id="demo/tiny-random", benchmark="mobile-mmlu",
                                                   topic="travel-planning", submission=1, run=1))
    named = {p.name for p in frontend.urls.urlpatterns if isinstance(p, URLPattern) and p.name}
    assert {p.label for p in pages} == named | set(AUTH_PAGES)
    for page in pages:  # each filled in and served by the page it names
        assert resolve(page.path).url_name == page.label, page


def test_the_lighthouse_bench_reads_scores_metrics_and_script_bytes_from_the_report():
    lhr = {"categories": {"performance": {"score": 0.93}, "accessibility": {"score": 1}, "seo": {"score": 0.9},
                          "best-practices": {"score": None}},
           "audits": {"largest-contentful-paint": {"numericValue": 2412.5}, "total-blocking-time": {"numericValue": 180},
                      "cumulative-layout-shift": {"numericValue": 0.02},
                      "resource-summary": {"details": {"items": [{"resourceType": "total", "transferSize": 90_000},
                                                                 {"resourceType": "script", "transferSize": 51_200}]}}},
           "finalDisplayedUrl": "http://127.0.0.1:8000/"}
    bench = _lighthouse_bench()
    f = bench.figures(lhr)
    assert (f["performance"], f["accessibility"], f["seo"], f["best-practices"]) == (93, 100, 90, None)
    assert (f["lcp"], f["tbt"], f["cls"], f["js"]) == (2412.5, 180, 0.02, 51_200)
    # Each page beside the trivial page measured at the start and the end of the same run.
    base = {**f, "performance": 100, "lcp": 603.1, "tbt": 20, "js": 0}
    lines = bench.table({"baseline (start)": base, "submit": f, "baseline (end)": base},
                        [bench.Page("submit", "/submit/", signed_in=True)]).splitlines()
    assert lines[1].split()[:3] == ["baseline", "(start)", "100"]
    assert lines[2].split() == ["/submit/", "(signed", "in)", "93", "100", "90", "2.4", "4.0", "180", "+160",
                                "0.020", "50.0"]


def test_lighthouse_comes_pinned_with_a_lock_and_its_modules_stay_out_of_git():
    import json

    folder = ROOT / "bench" / "lighthouse"
    wanted = json.loads((folder / "package.json").read_text())["dependencies"]
    lock = json.loads((folder / "package-lock.json").read_text())["packages"]
    assert wanted["lighthouse"] == lock["node_modules/lighthouse"]["version"] == "12.2.3"
    assert all(lock[f"node_modules/{name}"]["version"] == version for name, version in wanted.items())
    assert "node_modules/" in (folder / ".gitignore").read_text().split()
