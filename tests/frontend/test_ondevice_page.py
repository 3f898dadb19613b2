"""The On-device board page (/leaderboard/on-device/): the board's On-device column set, a row per GGUF file with its
figures and the cost profile's label, the quantization and "fits in N GB" filters, the two Pareto charts' data and
their summaries naming the frontier, the links to compare a file with its 16-bit model, and the open-split note."""
import re

import pytest
from django.urls import reverse

from tests.boards import ondevice_world as world
from tests.frontend.conftest import assert_charts, page_data, text

pytestmark = pytest.mark.django_db
URL = reverse("leaderboard-on-device")


@pytest.fixture
def files(demo_loaded):
    return world.build()


def table_rows(body):
    table = re.search(r'<table class="data" id="ondevice-table">.*?</table>', body, re.S).group(0)
    return re.findall(r'<tr data-hub-id="([^"]+)"', table)


def test_a_row_per_file_with_the_on_device_columns(client, files):
    response = client.get(URL)
    body = text(response)
    assert table_rows(body) == [world.MADE, world.hub_of("Q8_0"), world.hub_of("Q4_K_M"), world.hub_of("Q4_0")]
    for header in ("File", "Quantization", "Size (GB)", "Accuracy (95% CI)", "Change vs 16-bit (pt)", "Flip rate (%)",
                   "Prompt tokens/s", "Generation tokens/s", "Time to first token (s)", "Peak memory (GB)"):
        assert f">{header}</a></th>" in body, header
    row = re.search(r'<tr data-hub-id="org/tiny-GGUF/tiny-Q4_K_M.gguf".*?</tr>', body, re.S).group(0)
    cells = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row))
    # size 0.60 GB, accuracy 58.33%, change −4.17 points, flips 4.2%, pp 260, tg 35, ttft 0.6 s, 0.80 GB peak
    for figure in ("Q4_K_M", "0.60", "58.33", "-4.17", "4.2", "260.0", "35.0", "0.600", "0.80"):
        assert f" {figure} " in cells, (figure, cells)
    assert f'title="{world.LABEL}"' in row  # every profile figure carries its label
    assert "no cost profile yet" in re.search(r'<tr data-hub-id="org/tiny@F16".*?</tr>', body, re.S).group(0)
    assert world.LABEL in re.search(r'id="profile-labels".*?</p>', body, re.S).group(0)
    assert "open validation split only" in body and "(10⁹ bytes)" in body and "Showing 4 files." in body
    assert_charts(response, "pareto-size", "pareto-speed")


def test_the_charts_data_and_summaries_name_the_frontier(client, files):
    response = client.get(URL)
    chart = page_data(response)["chart"]
    by_index = [p["quant"] for p in chart["points"]]
    assert [by_index[i] for i in chart["size"]] == ["Q4_0", "Q4_K_M", "Q8_0", "F16"]
    assert [by_index[i] for i in chart["speed"]] == ["Q4_K_M", "Q8_0"]
    assert chart["size_note"] == "Pareto frontier: no file is both smaller and more accurate"
    assert chart["labels"] == [world.LABEL]
    body = text(response)
    assert "Pareto frontier: no file is both faster and more accurate: tiny-Q4_K_M.gguf (35.0 tokens/s" in body
    assert "1 file has no cost profile and is not placed" in body


def test_filters(client, files):
    body = text(client.get(URL, {"quantization": "Q4_K_M,q8_0"}))
    assert table_rows(body) == [world.hub_of("Q8_0"), world.hub_of("Q4_K_M")]
    assert 'value="Q4_K_M" checked' in body and 'value="Q4_0">' in body  # the types on the board offered
    response = client.get(URL, {"fits_gb": "0.6"})
    assert table_rows(text(response)) == [world.hub_of("Q4_K_M"), world.hub_of("Q4_0")]
    assert "fits_gb=0.6" in text(response)  # the CSV link keeps the filters
    body = text(client.get(URL, {"fits_gb": "0.1"}))
    assert table_rows(body) == [] and "No file matches these filters." in body
    assert client.get(URL, {"quantization": "Q5_K_M"}).status_code == 404
    assert client.get(URL, {"fits_gb": "-2"}).status_code == 404
    assert client.get(URL, {"fits_gb": "lots"}).status_code == 404


def test_sorting_and_the_csv_link(client, files):
    body = text(client.get(URL, {"sort": "size"}))
    assert table_rows(body) == [world.hub_of("Q4_0"), world.hub_of("Q4_K_M"), world.hub_of("Q8_0"), world.MADE]
    link = re.search(r'<a class="csv-link" href="([^"]+)"', body).group(1)
    assert link.startswith(reverse("api-leaderboard-on-device")) and "format=csv" in link and "sort=size" in link
    csv = client.get(link)
    assert csv.status_code == 200 and b"".join(csv.streaming_content).decode().splitlines()[1].startswith(
        world.hub_of("Q4_0"))


def test_compare_links(client, files):
    body = text(client.get(URL))
    row = re.search(r'<tr data-hub-id="org/tiny-GGUF/tiny-Q8_0.gguf".*?</tr>', body, re.S).group(0)
    assert "/compare/?models=org%2Ftiny-GGUF%2Ftiny-Q8_0.gguf%2Corg%2Ftiny" in row
    assert re.search(r'id="compare-files" href="/compare/\?models=org%2Ftiny%40F16%2C', body)


def test_the_board_links_its_on_device_column_set_and_back(client, files):
    board = text(client.get(reverse("leaderboard"), {"shots": "0"}))
    assert f'href="{URL}?benchmark=mobile-mmlu&shots=0" id="ondevice-columns"' in board
    redirected = client.get(reverse("leaderboard"), {"columns": "ondevice", "shots": "0", "split": "test"})
    assert redirected.status_code == 302 and redirected["Location"] == f"{URL}?benchmark=mobile-mmlu&shots=0"
    body = text(client.get(URL))
    nav = re.search(r'<nav class="presets".*?</nav>', body, re.S).group(0)
    assert 'href="/leaderboard/?columns=robustness"' in nav and 'aria-current="true">On-device' in nav


def test_an_empty_board_says_so_instead_of_drawing(client, demo_loaded):
    body = text(client.get(URL))
    assert "No GGUF file has been evaluated on this board yet" in body
    assert 'id="chart-pareto-size"' not in body and 'id="summary-pareto-size"' in body


def test_file_sizes_read_to_the_hundredth_and_tiny_files_are_not_zero():
    from frontend.payloads.ondevice import gb_text

    assert (gb_text(2_310_000_000), gb_text(600_000_000), gb_text(593_888), gb_text(None)) == (
        "2.31", "0.60", "0.000594", "–")
