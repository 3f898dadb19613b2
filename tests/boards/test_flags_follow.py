"""Flags follow the model to its files (issue 38, finding 5): a model flagged by the contamination monitor or by an
admin is hidden by default on the boards, and so is every GGUF file made from it or naming it as base model: off the
On-device board (API, CSV, page), off its Pareto frontiers and off the device board, and shown marked (flagged,
possible_contamination, flagged_via) when asked for with the board's own switch."""
import csv
import io

import pytest
from django.urls import reverse

from leaderboard.boards import device_board
from tests.boards import flag_world as world
from tests.boards import ondevice_world

pytestmark = pytest.mark.django_db
URL = "/api/v1/leaderboard/on-device/"


def _json(client, url, **params):
    response = client.get(url, params)
    assert response.status_code == 200, response.content[:500]
    return response.json()["results"]


def _csv(client, url, **params):
    response = client.get(url, {**params, "format": "csv"})
    assert response.status_code == 200, response.content[:500]
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def _page(client, **params):
    response = client.get(reverse("leaderboard-on-device"), params)
    assert response.status_code == 200
    return response.content.decode()


def _hidden_then_shown(client, how):
    """The On-device API: the flagged model's files off the board and its frontiers by default; shown marked (and
    still off the frontiers) when asked for."""
    rows = _json(client, URL)
    assert not {r["hub_id"] for r in rows} & set(world.FLAGGED_FILES)
    assert rows[0]["hub_id"] == "org/tiny@F16"  # the clean world's best file leads, not the memorizer's at 100%
    # the clean world's size frontier, as if the memorizer's smaller files at 100% were not there
    assert {r["hub_id"] for r in rows if r["pareto_size"]} == {"org/tiny@F16", *map(ondevice_world.hub_of, (
        "Q8_0", "Q4_K_M", "Q4_0"))}
    shown = {r["hub_id"]: r for r in _json(client, URL, include_flagged="true")}
    for hub in world.FLAGGED_FILES:
        row = shown[hub]
        assert row["flagged"] and row["flagged_via"] == world.MEMORIZER and row["accuracy"] == 100.0
        assert row["possible_contamination"] is (how == "monitor")
        assert not row["pareto_size"] and not row["pareto_speed"]  # never on a frontier, even shown


def test_the_files_of_a_model_the_monitor_flags_are_hidden_by_default_and_shown_marked_when_asked(client,
                                                                                                 demo_loaded):
    """The example: the memorizer flagged by the contamination monitor; its Q8_0 and Q4_K_M files (made here) and a
    file naming it as base model, on the API, its CSV and the page."""
    world.build("monitor")
    _hidden_then_shown(client, "monitor")
    assert not {r["hub_id"] for r in _csv(client, URL)} & set(world.FLAGGED_FILES)
    page = _page(client)
    assert not any(hub in page for hub in (*world.FLAGGED_FILES, "tiny-val-memorizer-Q8_0.gguf"))
    assert "3 flagged files hidden" in page
    assert {r["hub_id"]: r["flagged"] for r in _csv(client, URL, include_flagged="true")
            if r["hub_id"] in world.FLAGGED_FILES} == dict.fromkeys(world.FLAGGED_FILES, "true")
    page = _page(client, flagged="show")
    for name in ("tiny-val-memorizer-Q8_0.gguf", "tiny-val-memorizer-Q4_K_M.gguf", "memorizer-Q4_0.gguf"):
        row = next(tr for tr in page.split("<tr")[1:] if name in tr)
        assert "⚑" in row and world.MEMORIZER in row


@pytest.mark.parametrize("how", ["admin-model", "admin-run"])
def test_an_admins_flag_follows_the_model_to_its_files_too(client, demo_loaded, how):
    world.build(how)
    _hidden_then_shown(client, how)


def test_a_file_of_a_flagged_model_is_off_the_device_board(demo_loaded, monkeypatch):
    """Every file measured (a confirmed speed each): the memorizer's fastest files are left out, and shown marked
    but off the frontier when asked for."""
    files = world.build("monitor")
    from leaderboard.devices import selectors as device_selectors

    def speeds(reports, by_device):
        return [{**dict.fromkeys(device_board._SPEED), "hub_id": r.hub_id, "file_sha256": sha, "confirmed": True,
                 "tg_median": tg} for r, sha, tg in _measured(files)]
    monkeypatch.setattr(device_selectors, "filtered_reports", lambda **kw: [])
    monkeypatch.setattr(device_selectors, "speed_rows", speeds)
    benchmark = files["base"].benchmark_version.benchmark
    hidden = device_board.board(benchmark=benchmark)
    assert {r["hub_id"] for r in hidden.rows} == {"org/tiny@F16", *map(ondevice_world.hub_of, ondevice_world.FILES)}
    shown = device_board.board(benchmark=benchmark, include_flagged=True)
    flagged = [r for r in shown.rows if r["hub_id"] in world.FLAGGED_FILES]
    assert len(flagged) == 3 and all(r["flagged"] and not r["pareto"] for r in flagged)
    assert shown.frontier == hidden.frontier


def _measured(files):
    from leaderboard.results.models import RunResult
    from leaderboard.results.ondevice_facts import file_columns

    for result in RunResult.objects.filter(run__in=[run for run in files.values() if run.precision == "gguf"]):
        yield result, file_columns(result)["file_sha256"], 100.0 if result.hub_id in world.FLAGGED_FILES else 10.0


# --- the class: every route that lists models or files -------------------------------------------------------------

SKIPPED = ("admin/", "api/schema", "accounts/", "healthz", "readyz", "metrics")  # no board, file or model listed


def _routes(patterns=None, prefix=""):
    """(route, converter names) of every URL pattern, from the URL confs."""
    from django.urls import URLResolver, get_resolver

    for p in (patterns if patterns is not None else get_resolver().url_patterns):
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            yield from _routes(p.url_patterns, route)
        else:
            yield route, tuple(p.pattern.converters)


def _urls(hub_ids):
    """(url, a list?) of every route with no argument (a list: it may take the boards' switch), and of every route
    whose one argument is a hub id (for each of `hub_ids`)."""
    import re

    out = []
    for route, converters in _routes():
        if route.startswith(SKIPPED):
            continue
        if not converters:
            out.append(("/" + route, True))
        elif converters == ("hub_id",):
            out += [("/" + re.sub(r"<[^>]+>", hub, route), False) for hub in hub_ids]
    return out


def _marked_json(node, flagged, where):
    if isinstance(node, dict):
        hub = node.get("hub_id") or node.get("hub")
        rows = any(isinstance(value, list) for value in node.values())  # a model's container: its rows are checked
        if isinstance(hub, str) and hub.lower() in flagged and not rows:
            assert node.get("flagged") or node.get("possible_contamination"), (where, "unmarked", node)
        for value in node.values():
            _marked_json(value, flagged, where)
    elif isinstance(node, list):
        for value in node:
            _marked_json(value, flagged, where)


def _assert_marked(url, response, flagged):
    """No unmarked flagged model or file in what `url` answered: a JSON object or CSV row naming one says flagged, an
    HTML table row naming one carries the ⚑ mark (and so does the page's chart data)."""
    import html
    import json
    import re

    body = (b"".join(response.streaming_content) if response.streaming else response.content).decode()
    kind = response.get("Content-Type", "")
    if "json" in kind:
        _marked_json(json.loads(body), flagged, url)
    elif "csv" in kind:
        for row in csv.DictReader(io.StringIO(body)):
            if (row.get("hub_id") or "").lower() in flagged:
                assert row.get("flagged") in ("true", "True", "1") or row.get("possible_contamination") in (
                    "true", "True", "1"), (url, row)
    elif "html" in kind:
        for tr in re.findall(r"<tr\b.*?</tr>", body, re.S):  # a row is of the model it names first
            named = re.search(r'data-hub-id="([^"]+)"|href="/models/([^"?#]+)/', tr)
            hub = named and html.unescape(named.group(1) or named.group(2)).lower()
            if hub in flagged:
                assert "⚑" in tr, (url, tr[:600])
        for data in re.findall(r'<script id="page-data" type="application/json">(.*?)</script>', body, re.S):
            _marked_json(json.loads(data), flagged, url)


def test_no_route_lists_a_flagged_file_unmarked(client, demo_loaded):
    """Every route of the URL confs that takes no argument or only a hub id (for the memorizer and each of its
    files), fetched as a reader does and with the boards' switch to show flagged rows: wherever a flagged model or
    file appears it is marked."""
    world.build("monitor")
    flagged = {h.lower() for h in (*world.FLAGGED_FILES, world.MEMORIZER)}
    urls = _urls([world.MEMORIZER, world.made_hub("Q8_0"), world.SUBMITTED])  # a base, a file made, one submitted
    assert {"/api/v1/leaderboard/on-device/", "/leaderboard/on-device/", "/compare/", "/api/v1/device-reports/board/",
            "/api/v1/mobile-vs-general/", f"/models/{world.made_hub('Q8_0')}/"} <= {url for url, _ in urls}
    chosen = ",".join([world.made_hub("Q4_K_M"), world.MEMORIZER, ondevice_world.hub_of("Q8_0")])
    fetched = 0
    for url, listing in [*urls, (f"/compare/?models={chosen}", False)]:
        api = url.startswith("/api/")
        asks = ([{}] + ([{"include_flagged": "true"} if api else {"flagged": "show"}] if listing else [])
                + ([{"format": "csv", "include_flagged": "true"}] if api else []))  # the boards' switch to show them
        for params in asks:
            response = client.get(url, params)
            assert response.status_code < 500, (url, params, response.status_code)
            if response.status_code == 200:
                fetched += 1
                _assert_marked(f"{url} {params}", response, flagged)
    assert fetched > 40


def test_a_model_page_reads_the_boards_flags_once_until_results_change(client, demo_loaded, monkeypatch):
    """A model page needs only its own flag and its files' as the default board shows them: the board's flags are
    read once per results generation, not on every view (at 10,000 models that read took 0.8 s of every model page),
    and an admin's flag set after still marks the files at the next view."""
    from django.contrib.auth.models import User

    from leaderboard.boards import selectors
    from leaderboard.submissions import admin as submissions_admin
    from leaderboard.submissions.models import ModelEntry

    ondevice_world.build()
    reads, read = [], selectors._default_board_flags
    monkeypatch.setattr(selectors, "_default_board_flags", lambda: reads.append(1) or read())
    page = reverse("model-detail", args=[ondevice_world.BASE])

    def files_marked():
        body = client.get(page).content.decode()
        rows = [tr for tr in body.split("<tr")[1:] if "tiny-GGUF" in tr or ".gguf" in tr]
        assert rows, body[:500]
        return {"⚑" in tr for tr in rows}

    assert files_marked() == files_marked() == {False} and len(reads) == 1  # the second view reads no board
    admin = User.objects.create_superuser("flagging-admin", "admin@example.com", "pw")
    submissions_admin._flag(ModelEntry.objects.get(hub_id=ondevice_world.BASE), actor=admin, reason="copied")
    assert files_marked() == {True} and len(reads) == 2
