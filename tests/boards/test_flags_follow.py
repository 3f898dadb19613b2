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


@pytest.mark.parametrize("how", world.HOW)
def test_a_flagged_models_files_are_hidden_by_default_and_shown_marked_when_asked(client, demo_loaded, how):
    world.build(how)
    rows = _json(client, URL)
    assert not {r["hub_id"] for r in rows} & set(world.FLAGGED_FILES)
    assert rows[0]["hub_id"] == "org/tiny@F16"  # the clean world's best file leads, not the memorizer's at 100%
    # the clean world's size frontier, as if the memorizer's smaller files at 100% were not there
    assert {r["hub_id"] for r in rows if r["pareto_size"]} == {"org/tiny@F16", *map(ondevice_world.hub_of, (
        "Q8_0", "Q4_K_M", "Q4_0"))}
    assert not {r["hub_id"] for r in _csv(client, URL)} & set(world.FLAGGED_FILES)
    page = _page(client)
    assert not any(hub in page for hub in (*world.FLAGGED_FILES, "tiny-val-memorizer-Q8_0.gguf"))
    assert "3 flagged files hidden" in page

    shown = {r["hub_id"]: r for r in _json(client, URL, include_flagged="true")}
    for hub in world.FLAGGED_FILES:
        row = shown[hub]
        assert row["flagged"] and row["flagged_via"] == world.MEMORIZER and row["accuracy"] == 100.0
        assert row["possible_contamination"] is (how == "monitor")
        assert not row["pareto_size"] and not row["pareto_speed"]  # never on a frontier, even shown
    assert {r["hub_id"]: r["flagged"] for r in _csv(client, URL, include_flagged="true")
            if r["hub_id"] in world.FLAGGED_FILES} == dict.fromkeys(world.FLAGGED_FILES, "true")
    page = _page(client, flagged="show")
    for name in ("tiny-val-memorizer-Q8_0.gguf", "tiny-val-memorizer-Q4_K_M.gguf", "memorizer-Q4_0.gguf"):
        row = next(tr for tr in page.split("<tr")[1:] if name in tr)
        assert "⚑" in row and world.MEMORIZER in row


def test_a_file_of_a_flagged_model_is_off_the_device_board(demo_loaded, monkeypatch):
    """Every file measured (a confirmed speed each): the memorizer's fastest files are left out, and shown marked
    but off the frontier when asked for."""
    files = world.build("monitor")
    from leaderboard.devices import selectors as device_selectors

    def speeds(reports, by_device):
        return [{"hub_id": r.hub_id, "file_sha256": sha, "confirmed": True, "tg_median": tg,
                 **dict.fromkeys(device_board._SPEED, None), "tg_median": tg}
                for r, sha, tg in _measured(files)]
    monkeypatch.setattr(device_selectors, "filtered_reports", lambda **kw: [])
    monkeypatch.setattr(device_selectors, "speed_rows", speeds)
    benchmark = files["base"].benchmark_version.benchmark
    hidden = device_board.board(benchmark=benchmark)
    assert not {r["hub_id"] for r in hidden.rows} & set(world.FLAGGED_FILES) and hidden.rows
    shown = device_board.board(benchmark=benchmark, include_flagged=True)
    flagged = [r for r in shown.rows if r["hub_id"] in world.FLAGGED_FILES]
    assert len(flagged) == 3 and all(r["flagged"] and not r["pareto"] for r in flagged)
    assert shown.frontier == hidden.frontier


def _measured(files):
    from leaderboard.results.models import RunResult
    from leaderboard.results.ondevice_facts import file_columns

    for result in RunResult.objects.filter(run__in=[run for run in files.values() if run.precision == "gguf"]):
        yield result, file_columns(result)["file_sha256"], 100.0 if result.hub_id in world.FLAGGED_FILES else 10.0
