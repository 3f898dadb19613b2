"""The On-device board's API and CSV (issue 24, section 5) on real scored runs: a row per GGUF file with its file,
sha256, size, type, accuracy ± CI, change vs 16-bit, flip rate, tokens/s, time to first token and peak memory with
the profile's label; the quantization and "fits in N GB" filters; the Pareto frontiers; bad values refused naming the
parameter; nothing of the sealed split; a fixed number of queries whatever the number of files."""
import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.boards.serializers import ONDEVICE_COLUMNS
from leaderboard.core.cache_generation import results_changed
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry
from tests.boards import ondevice_world as world
from tests.results.quantized_runs import questions

pytestmark = pytest.mark.django_db
URL = "/api/v1/leaderboard/on-device/"


@pytest.fixture
def files(demo_loaded):
    return world.build()


def get(client, **params):
    response = client.get(URL, params)
    assert response.status_code == 200, response.content[:500]
    return response.json()["results"]


def by_file(rows):
    return {r["file"]: r for r in rows}


def csv_rows(client, **params):
    response = client.get(URL, {**params, "format": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()
    return text, list(csv.DictReader(io.StringIO(text)))


def test_every_gguf_file_is_a_row_with_the_on_device_columns(client, files):
    n = len(questions())
    rows = get(client)
    assert [r["hub_id"] for r in rows] == [world.MADE, world.hub_of("Q8_0"), world.hub_of("Q4_K_M"),
                                           world.hub_of("Q4_0")]  # most accurate first; the 16-bit model is not one
    row = by_file(rows)["tiny-Q4_K_M.gguf"]
    right, size, tg, pp, ttft, rss = world.FILES["Q4_K_M"]
    assert (row["quantization"], row["file_bytes"], row["file_sha256"]) == ("Q4_K_M", size, world.sha_of("Q4_K_M"))
    assert (row["run_id"], row["n"], row["accuracy"]) == (files["Q4_K_M"].pk, n, round(100 * right / n, 2))
    assert row["ci95_low"] < row["accuracy"] < row["ci95_high"]
    assert (row["compared"], row["base_hub_id"], row["base_run_id"]) == (True, world.BASE, files["base"].pk)
    assert row["accuracy_change"] == round(100 * (right - world.BASE_RIGHT) / n, 2)
    flips = world.BASE_RIGHT - right
    assert (row["flips"], row["flip_rate"]) == (flips, round(100 * flips / n, 2))
    assert row["change_ci95_low"] < row["accuracy_change"] < row["change_ci95_high"] and row["mean_kl"] > 0
    assert (row["gen_tokens_per_s"], row["prompt_tokens_per_s"], row["ttft_s"], row["peak_rss_bytes"]) == (
        tg, pp, ttft, rss)
    assert (row["profile_label"], row["profile_threads"]) == (world.LABEL, world.THREADS)
    assert "a proxy, not a phone" in row["profile_label"]


def test_a_file_made_here_reads_like_a_submitted_one(client, files):
    """<base>@<QUANT>: its size and sha256 from the run's pinned files (recipe beside them), compared with the model
    it was made from; not profiled yet, so no speed and no label rather than made-up figures."""
    row = by_file(get(client))["tiny-F16.gguf"]
    assert (row["hub_id"], row["quantization"], row["file_bytes"], row["file_sha256"]) == (
        world.MADE, "F16", world.MADE_BYTES, "e" * 64)
    assert row["compared"] and row["base_run_id"] == files["base"].pk and row["flips"] == 1
    assert row["gen_tokens_per_s"] is None and row["ttft_s"] is None and row["profile_label"] == ""


def test_the_pareto_frontiers(client, files):
    rows = get(client)
    on_size = {r["quantization"] for r in rows if r["pareto_size"]}
    on_speed = {r["quantization"] for r in rows if r["pareto_speed"]}
    assert on_size == {"Q4_0", "Q4_K_M", "Q8_0", "F16"}  # each smaller file is less accurate
    assert on_speed == {"Q4_K_M", "Q8_0"}  # Q4_0 is slower and less accurate than Q4_K_M; F16 has no speed
    kept = get(client, fits_gb="0.6")  # the frontier of the files the filter keeps
    assert {r["quantization"]: (r["pareto_size"], r["pareto_speed"]) for r in kept} == {
        "Q4_K_M": (True, True), "Q4_0": (True, False)}
    searched = get(client, search="Q4_0")  # a search narrows the rows, not the frontier
    assert [(r["quantization"], r["pareto_speed"]) for r in searched] == [("Q4_0", False)]


def test_filters_and_sorts(client, files):
    assert {r["quantization"] for r in get(client, quantization="q4_k_m,Q8_0")} == {"Q4_K_M", "Q8_0"}
    assert {r["quantization"] for r in get(client, quantization=["Q4_0", "F16"])} == {"Q4_0", "F16"}
    assert [r["quantization"] for r in get(client, fits_gb="1.1")] == ["Q8_0", "Q4_K_M", "Q4_0"]  # 1.1 GB fits 1.1 GB
    assert get(client, fits_gb="0.5") == []
    assert [r["quantization"] for r in get(client, sort="size")] == ["Q4_0", "Q4_K_M", "Q8_0", "F16"]
    assert [r["quantization"] for r in get(client, sort="-gen")] == ["Q4_K_M", "Q4_0", "Q8_0", "F16"]  # none last
    assert [r["quantization"] for r in get(client, sort="change")][0] == "Q4_0"


def test_the_csv_has_every_column_named_with_its_unit(client, files):
    text, rows = csv_rows(client, quantization="Q4_K_M")
    assert text.splitlines()[0].split(",") == ONDEVICE_COLUMNS
    for name in ("file", "file_sha256", "file_bytes", "quantization", "accuracy", "ci95_low", "ci95_high",
                 "accuracy_change", "flip_rate", "mean_kl", "prompt_tokens_per_s", "gen_tokens_per_s", "ttft_s",
                 "peak_rss_bytes", "profile_label", "pareto_size", "pareto_speed"):
        assert name in ONDEVICE_COLUMNS, name
    [row] = rows
    assert (row["file"], row["file_bytes"], row["gen_tokens_per_s"], row["profile_label"]) == (
        "tiny-Q4_K_M.gguf", "600000000", "35.0", world.LABEL)
    assert row["pareto_size"] == "true" and float(row["flip_rate"]) > 0


@pytest.mark.parametrize("params, name, words", [
    ({"quantization": "Q5_K_M"}, "quantization", "allowed values: F16, Q4_0, Q4_K_M, Q8_0"),
    ({"fits_gb": "-1"}, "fits_gb", "greater than or equal to 0"),
    ({"fits_gb": "four"}, "fits_gb", "valid number"),
    ({"fits_gb": "nan"}, "fits_gb", "valid number"),
    ({"fits_gb": "inf"}, "fits_gb", "valid number"),
    ({"split": "test"}, "split", "open validation split only"),
    ({"sort": "speed"}, "sort", "allowed values: accuracy, name"),
    ({"shots": "99"}, "shots", ""),
])
def test_bad_values_are_a_400_naming_the_parameter(client, files, params, name, words):
    response = client.get(URL, params)
    assert response.status_code == 400, response.content
    messages = " ".join(response.json()[name])
    assert words in messages, messages


def test_an_unknown_parameter_is_refused(client, files):
    response = client.get(URL, {"fits_in": "4"})
    assert response.status_code == 400 and response.json()["code"] == "UNKNOWN_PARAMETER"
    assert "fits_gb" in response.json()["hint"]


def test_a_sealed_run_is_never_in_the_view_or_its_csv(client, files):
    """The sealed split has no On-device view: which sealed questions a GGUF file got right changes nothing the API,
    its CSV or the page show (its published figure, the same count both times, is all the board may know), and its sealed run
    is never a row."""
    n_test = len(questions("test"))

    def seen(letters):
        EvaluationRun.objects.filter(split="test").delete()
        sealed = world.file_run("Q4_K_M", split="test", letters=letters)
        results_changed()
        page = client.get(reverse("leaderboard-on-device")).content
        return sealed.pk, get(client), csv_rows(client)[0], page

    half = n_test // 2
    first_id, *first = seen(world.first_right(half, n_test))
    second_id, *second = seen(world.first_right(half, n_test)[::-1])  # the other half right: the same count
    assert first == second
    assert not {first_id, second_id} & {r["run_id"] for r in first[0]}


def test_a_hidden_file_is_not_listed(client, files):
    ModelEntry.objects.filter(hub_id=world.hub_of("Q8_0")).update(hidden=True)
    results_changed()
    rows = get(client)
    assert world.hub_of("Q8_0") not in {r["hub_id"] for r in rows} and len(rows) == 3
    assert {r["quantization"] for r in rows if r["pareto_speed"]} == {"Q4_K_M"}  # its place on the frontier is gone


def test_a_fixed_number_of_queries_whatever_the_number_of_files(client, demo_loaded):
    """The board reads every file's facts, profile and base run at once: no query per row. (Each pair's comparison
    is read from its runs once, then from the cache.)"""
    n = len(questions())
    from tests.results.quantized_runs import letter_run

    letter_run(world.BASE, world.first_right(world.BASE_RIGHT, n))
    world.file_run("Q8_0")

    def queries():
        get(client)  # the pair comparisons cached
        results_changed()  # a new response, the same pairs
        with CaptureQueriesContext(connection) as captured:
            assert get(client)
        return len(captured)

    one = queries()
    world.file_run("Q4_K_M"), world.file_run("Q4_0"), world.made_run()
    assert queries() == one


def test_the_schema_documents_the_board(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"][URL]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert {"quantization", "fits_gb", "split", "sort", "search", "format"} <= set(params)
    assert "the file's size is at most N GB" in params["fits_gb"]["description"]
    row = schema["components"]["schemas"]["OnDeviceBoardRow"]["properties"]
    assert "a proxy, not a phone" in row["profile_label"]["description"]
    assert set(ONDEVICE_COLUMNS) == set(row)
