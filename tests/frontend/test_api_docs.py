"""/api/schema/ui/ serves Swagger UI from our own static files (drf-spectacular-sidecar): no CDN, works offline."""
import re
import urllib.request

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import reverse

pytestmark = pytest.mark.django_db


def referenced_urls(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+)"', page) + re.findall(r'url\s*[:=]\s*"([^"]+)"', page)


def test_the_docs_page_references_only_local_static_files(client):
    page = client.get(reverse("api-docs")).content.decode()
    urls = referenced_urls(page)
    static = "/" + settings.STATIC_URL.lstrip("/")
    assert any(u.endswith("swagger-ui-bundle.js") for u in urls), urls
    for url in urls:
        assert not re.match(r"(https?:)?//", url), f"{url} is not on this site"
        if url.startswith(static):
            found = finders.find(url[len(static):])
            assert found, f"{url} is not a static file"
    assert "@latest" not in page and "cdn" not in page.lower()
    # The license travels with the vendored files.
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/LICENSE")


# A live server flushes the database after the test: with serialized_rollback, as every other transactional test
# here, the flush leaves no re-created content types for the next serialized test to collide with.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_each_file_the_docs_page_loads_is_served(live_server):
    with urllib.request.urlopen(live_server.url + reverse("api-docs")) as response:
        page = response.read().decode()
    urls = [u for u in referenced_urls(page) if u.startswith("/")]
    assert len(urls) >= 3, urls  # css, bundle, preset (and the schema the page asks for)
    for url in urls:
        with urllib.request.urlopen(live_server.url + url) as response:
            assert response.status == 200, url
