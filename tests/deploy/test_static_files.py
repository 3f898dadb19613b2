"""Static files as production collects them: WhiteNoise's storage (the base settings' STORAGES, which production
keeps) writes a brotli (.br) and a gzip (.gz) copy beside each file it compresses, under its hashed name too.

Collected from frontend/static without the chart library, into a temporary STATIC_ROOT: brotli's best quality takes
seconds on the 1.2 MB library (twice: its plain and hashed names), a few milliseconds on the page scripts; WhiteNoise
treats every .js file alike."""
import pytest
from django.core.management import call_command
from django.test import override_settings

from leaderboard.settings import base
from tests.deploy.compose import REPO

OWN_STATIC = REPO / "frontend" / "static"


@pytest.fixture
def collected(tmp_path):
    with override_settings(STORAGES=base.STORAGES, STATIC_ROOT=tmp_path,
                           STATICFILES_DIRS=[OWN_STATIC], STATICFILES_FINDERS=[
                               "django.contrib.staticfiles.finders.FileSystemFinder"]):
        call_command("collectstatic", "--no-input", "-v", "0", "-i", "plotly-*")
    return tmp_path


def test_a_production_collectstatic_writes_brotli_beside_gzip(collected):
    scripts = sorted(p for p in (collected / "frontend").rglob("*.js"))
    assert any(p.name.startswith("charts.") and p.name != "charts.js" for p in scripts), "no hashed names written"
    missing = [p.relative_to(collected).as_posix() for p in scripts
               if not (p.with_name(p.name + ".br").is_file() and p.with_name(p.name + ".gz").is_file())]
    assert len(scripts) >= 4 and not missing, f"without a .br and a .gz beside them: {missing}"

