"""Search engines and link previews: every page says what it is (a meta description of its own words) and has one
address (a canonical link to SITE_URL + its path, whatever host or query it was opened with); a model page shared as
a link shows the model's score (Open Graph)."""
import html
import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from tests.browser.harness import AUTH_PAGES, frontend_routes, page_url
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db

META = re.compile(r'<meta\s+(?:name|property)="([^"]+)"\s+content="([^"]*)"')
CANONICAL = re.compile(r'<link rel="canonical" href="([^"]*)">')


def _head(response):
    page = response.content.decode()
    return page[:page.index("</head>")]


def test_every_page_has_a_description_and_one_canonical_address(client, site, author):
    seen = {}
    # The account pages as a visitor sees them, then every other page signed in (the submit page shows its form).
    for route in sorted(frontend_routes(), key=lambda r: r.name not in AUTH_PAGES):
        if route.name not in AUTH_PAGES:
            client.force_login(author)
        url = page_url(route, site)
        response = client.get(url + ("&" if "?" in url else "?") + "utm_source=x", HTTP_HOST="127.0.0.1")
        assert response.status_code == 200, route.label
        head = _head(response)
        metas = META.findall(head)
        descriptions = [html.unescape(c) for n, c in metas if n == "description"]
        assert len(descriptions) == 1, f"{route.label}: {len(descriptions)} meta descriptions"
        description = " ".join(descriptions[0].split())
        assert 50 <= len(description) <= 320 and "{" not in description, f"{route.label}: {description!r}"
        canonical = CANONICAL.findall(head)
        assert len(canonical) == 1, route.label
        assert canonical[0] == settings.SITE_URL.rstrip("/") + urlsplit(url).path, route.label
        assert_no_sealed_content(head)
        seen[route.label] = description
    # Descriptions say what each page is: the main pages do not share one text.
    own = {seen[name] for name in ("compare", "topics", "mrscore", "contamination", "about") if name in seen}
    assert len(own) == len([n for n in ("compare", "topics", "mrscore", "contamination", "about") if n in seen])


def test_a_shared_model_page_shows_its_score(client, site):
    route = next(r for r in frontend_routes() if r.name == "model-detail")
    head = _head(client.get(page_url(route, site)))
    tags = dict(META.findall(head))
    assert site.hub_id in html.unescape(tags["og:title"])
    assert re.search(r"\d+\.\d% on ", html.unescape(tags["og:title"])), tags["og:title"]
    assert re.search(r"\d+\.\d% on .* validation", html.unescape(tags["og:description"]))
    assert tags["og:url"] == CANONICAL.findall(head)[0]
    assert html.unescape(tags["description"]).startswith(site.hub_id)
