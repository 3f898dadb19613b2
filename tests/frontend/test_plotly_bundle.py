"""The chart library is plotly.js cut to the trace types the pages draw (frontend/plotly-bundle: entry.js, the npm
lock, build.sh), committed with its recipe; and no page's HTML loads it: charts.js fetches it when a chart is near.

Reads files only: no npm, no network."""
import hashlib
import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.frontend.conftest import elements

REPO = Path(__file__).resolve().parents[2]
BUNDLE = REPO / "frontend" / "plotly-bundle"
STATIC = REPO / "frontend" / "static" / "frontend"
TEMPLATES = REPO / "frontend" / "templates"
# `type: "..."` values in the page scripts that are not trace types: axis types, shape types, error bar types.
NOT_TRACES = {"linear", "log", "date", "category", "multicategory", "line", "rect", "circle", "path", "data",
              "percent", "constant", "sqrt"}


def recipe():
    return json.loads((BUNDLE / "RECIPE.json").read_text())


def drawn_types(script: str) -> set[str]:
    return set(re.findall(r"""\btype\s*:\s*["'](\w+)["']""", script)) - NOT_TRACES


def test_the_committed_bundle_is_the_one_its_recipe_names():
    made = recipe()
    body = (REPO / made["file"]).read_bytes()
    assert hashlib.sha256(body).hexdigest() == made["sha256"] and len(body) == made["bytes"], \
        f"{made['file']} is not the file RECIPE.json records: run {made['rebuild']} and commit both"
    assert (REPO / made["license"]).read_text().startswith("MIT License")
    # Built from the locked packages at the recipe's versions.
    lock = json.loads((BUNDLE / "package-lock.json").read_text())["packages"]
    for name, version in made["packages"].items():
        assert lock[f"node_modules/{name}"]["version"] == version, name
        assert json.loads((BUNDLE / "package.json").read_text())["devDependencies"][name] == version, name
    # The traces: scatter with plotly.js's core, the others registered by entry.js.
    entry = (REPO / made["entry"]).read_text()
    assert "require('plotly.js/lib/core')" in entry
    assert ["scatter", *re.findall(r"require\('plotly\.js/lib/(\w+)'\)", entry.split("register(", 1)[1])] == \
        made["traces"]
    # One chart library: no other Plotly build beside it, and node_modules stays out of git.
    assert sorted(p.name for p in (STATIC / "vendor").glob("plotly-*.js")) == [Path(made["file"]).name]
    assert "node_modules/" in (BUNDLE / ".gitignore").read_text().split()


def test_the_bundle_has_every_trace_type_a_page_draws():
    scripts = [STATIC / "charts.js", *sorted((STATIC / "pages").glob("*.js"))]
    used = {name: drawn_types(path.read_text()) for name, path in ((p.name, p) for p in scripts)}
    missing = {name: sorted(types - set(recipe()["traces"])) for name, types in used.items()
               if types - set(recipe()["traces"])}
    assert not missing, (f"trace types drawn but not in the chart bundle: {missing}; add them to "
                         "frontend/plotly-bundle/entry.js and run frontend/plotly-bundle/build.sh")
    assert set().union(*used.values()) == set(recipe()["traces"]), "the bundle carries a trace no page draws"


def test_the_trace_type_reader_tells_traces_from_axes_and_shapes():
    assert drawn_types('{type: "pie", xaxis: {type: "log"}, error_x: {type: "data"}, shapes: [{type: "line"}]}') \
        == {"pie"}


def test_no_template_loads_the_chart_library():
    offending = [str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html")
                 if re.search(r"""<script[^>]*\bsrc=("[^"]*|'[^']*)plotly""", p.read_text(), re.I)]
    assert not offending, f"templates with a <script src> for Plotly (charts.js loads it on demand): {offending}"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["leaderboard", "topics"])
def test_a_chart_page_names_the_library_for_charts_js_to_fetch(client, demo_loaded, name):
    dom = elements(client.get(reverse(name)))
    scripts = dom.find("script", src=True)
    assert not any("plotly" in s["src"] for s in scripts), "the page's HTML loads Plotly"
    (charts,) = [s for s in scripts if s["src"].endswith("frontend/charts.js")]
    assert charts["data-plotly"].endswith("/" + recipe()["file"].split("static/", 1)[1]), charts
