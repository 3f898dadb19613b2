"""The line every page shows while SITE_STATUS_FILE exists (./dev.sh serve: while the demo's on-device variants are on
their way), gone as soon as the file is."""
import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_board_says_what_the_status_file_says_while_it_exists(client, settings, tmp_path):
    settings.SITE_STATUS_FILE = str(tmp_path / "site-status.txt")
    assert 'class="site-status"' not in client.get(reverse("leaderboard")).content.decode()
    (tmp_path / "site-status.txt").write_text("On-device variants <b>are on their way</b>.\n", encoding="utf-8")
    for name in ("leaderboard", "about"):
        page = client.get(reverse(name)).content.decode()
        assert '<p class="site-status" role="status">On-device variants &lt;b&gt;are on their way&lt;/b&gt;.</p>' in page
    (tmp_path / "site-status.txt").unlink()
    assert 'class="site-status"' not in client.get(reverse("leaderboard")).content.decode()
