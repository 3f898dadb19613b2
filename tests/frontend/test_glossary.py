"""Explain in place: every statistic and variant name links to its methodology section with a one-line
explanation; timestamps read as people read them."""
import re
from datetime import date, datetime, timedelta, timezone

import pytest
from django.urls import reverse

from frontend.glossary import TERMS
from frontend.templatetags.frontend import term, when
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db


def test_every_term_points_at_a_section_of_the_methodology_page(client, demo_loaded):
    about = client.get(reverse("about")).content.decode()
    ids = set(re.findall(r'\bid="([^"]+)"', about))
    for key, t in TERMS.items():
        assert t.anchor in ids, f"{key}: no #{t.anchor} on the methodology page"
        link = str(term(key))
        assert f'href="/about/#{t.anchor}"' in link and f'title="{t.label}: ' in link and 'class="term"' in link


def test_the_statistics_are_explained_where_they_appear(client, make_run):
    make_run("org/m", 470)
    make_run("org/m", 120, split="test")
    contamination = client.get(reverse("contamination")).content.decode()
    model = client.get(reverse("model-detail", args=["org/m"])).content.decode()
    for key in ("delta", "delta0", "se", "z", "q", "ci"):
        assert f'href="/about/#{TERMS[key].anchor}"' in contamination, key
    for key in ("delta", "z", "ci"):
        assert f'href="/about/#{TERMS[key].anchor}"' in model, key
    assert 'href="/about/#mrscore"' in text(client.get(reverse("mrscore")))


def test_timestamps_read_as_people_read_them():
    now = datetime.now(timezone.utc)
    recent = str(when(now - timedelta(minutes=5)))
    assert "5\xa0minutes ago" in recent and 'datetime="' in recent and "UTC" in recent  # exact time in the tooltip
    old = str(when(datetime(2026, 3, 4, 14, 5, tzinfo=timezone.utc)))
    assert ">4 Mar 2026, 14:05 UTC</time>" in old
    assert ">4 Mar 2026</time>" in str(when(date(2026, 3, 4)))
    assert when(None) == "–"
