"""Fixtures of the page tests: scored runs (tests/results), a loopback MRScore judge (tests/mrscore),
many models at once (seed.py), and helpers to read a page's handed-over data and its DOM hooks."""
import html
import json
import re
from html.parser import HTMLParser

import pytest

from tests.mrscore.conftest import judge_server  # noqa: F401  (fixture)
from tests.results.conftest import make_run  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Pages cache their data; each test starts without it."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def page_data(response):
    """The JSON a page hands its script (json_script id="page-data")."""
    match = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', response.content.decode(), re.S)
    assert match, "no page-data on the page"
    return json.loads(match.group(1))


def text(response):
    return html.unescape(response.content.decode())


class Elements(HTMLParser):
    """Start tags as (tag, attrs) in document order: enough to check the DOM hooks the browser tests use."""

    def __init__(self, body):
        super().__init__()
        self.tags = []
        self.feed(body)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def find(self, tag=None, **attrs):
        """Start tags matching attrs (class_=, data_column=...; True: the attribute is present)."""
        wanted = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
        return [a for t, a in self.tags if (tag is None or t == tag)
                and all(name in a if v is True else a.get(name) == v for name, v in wanted.items())]


def elements(response):
    return Elements(response.content.decode())


def assert_charts(response, *names):
    """Each named chart container carries the hooks: id, data-chart, role=img, a label and a summary that exists."""
    dom = elements(response)
    for name in names:
        found = dom.find("div", id=f"chart-{name}")
        assert found, f"no chart-{name}"
        chart = found[0]
        assert chart["data-chart"] == name and chart["role"] == "img" and chart["aria-label"]
        assert dom.find(id=chart["aria-describedby"]), f"chart-{name} has no summary"
