"""A list in a CSV is one cell of `;`-joined values (core/csv.py), never Python's repr of the list (issue 38, finding
11: the device speeds and device board CSVs printed `['0c1e570']` and `[8.0]`)."""
import csv
import io
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from leaderboard.devices.models import DeviceReport
from tests.devices import world
from tests.devices.test_pages import upload

pytestmark = pytest.mark.django_db
REPR = re.compile(r"""\[['"\d]|['"\d.]\]|\{'""")  # ['a'], [8.0], {'k': ...}


@pytest.fixture
def measured(files, post, accounts):
    """A confirmed figure (two people agree) for the measured file on one device."""
    (other,) = accounts(1)
    upload(post, 20.0)
    upload(post, 24.0, client=other)
    return files


def cells(response) -> dict[str, list[str]]:
    """Column -> its cells, read back as a spreadsheet would."""
    header, *rows = csv.reader(io.StringIO(b"".join(response.streaming_content).decode()
                                           if response.streaming else response.content.decode()))
    return {name: [row[i] for row in rows] for i, name in enumerate(header)}


def repr_cells(table: dict) -> list[str]:
    return [f"{name}={cell!r}" for name, column in table.items() for cell in column if REPR.search(cell)]


def test_the_device_csvs_join_lists_with_semicolons(client, measured):
    speeds = cells(client.get("/api/v1/device-reports/speeds/?format=csv"))
    assert speeds["ram_gb"] == ["8.0"] and speeds["chips"] == ["Tensor G3"] and speeds["builds"][0]
    assert not repr_cells(speeds)
    board = cells(client.get("/api/v1/device-reports/board/?format=csv"))
    assert board["file"] and not repr_cells(board)


def _csv_routes():
    """Every API route whose view answers ?format=csv."""
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                view = getattr(p.callback, "cls", None)
                if view and any(r.__name__ == "CSVRenderer" for r in getattr(view, "renderer_classes", ())):
                    yield prefix + str(p.pattern)

    return list(walk(get_resolver().url_patterns))


def test_no_csv_column_prints_a_python_list(client, measured, reporter):
    client.force_login(reporter)  # the submissions CSV is the account's own
    fills = {"<path:hub_id>": world.HUB, "<slug:slug>": "mobile-mmlu",
             "<id:pk>": str(DeviceReport.objects.order_by("pk").first().pk)}  # a device report's detail and samples
    routes = _csv_routes()
    assert len(routes) >= 20  # every app's CSVs, the device ones among them
    found, read = [], 0
    for route in routes:
        path = "/" + re.sub(r"<[^>]+>", lambda m: fills[m.group(0)], route)
        response = client.get(path, {"format": "csv", **({"benchmark": "mobile-mmlu"} if "topics.csv" in path else {})})
        if response.status_code != 200 or not response["Content-Type"].startswith("text/csv"):
            continue
        read += 1
        found += [f"{path}: {cell}" for cell in repr_cells(cells(response))]
    assert read >= len(routes) - 2 and not found, found  # all but MRScore's tables, which need a judge's run
