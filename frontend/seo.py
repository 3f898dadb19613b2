"""What search engines and link previews read of every page: its canonical address (SITE_URL, the site's public
origin, plus the path: never the Host header a request came with, nor its query, so one page has one address).
The description and a model page's Open Graph tags are template blocks (base.html, model_detail.html)."""
from django.conf import settings
from django.utils.encoding import iri_to_uri


def canonical(request) -> dict:
    """Template context processor: {"canonical_url": SITE_URL + the request's path}."""
    return {"canonical_url": settings.SITE_URL.rstrip("/") + iri_to_uri(request.path)}
