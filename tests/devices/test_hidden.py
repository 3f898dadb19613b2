"""Hidden means hidden (issue 31, finding 11): once an admin hides the file's run, its submission or its model entry,
the file's device reports leave every API (JSON and CSV), the device board, the file's model page and "what runs well
on my phone"; they come back when it is shown again."""
import csv

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.evaluations.admin_services import run_set_hidden
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.core.cache_generation import results_changed
from leaderboard.submissions.models import ModelEntry, Submission
from tests.devices import world
from tests.devices.conftest import URL

pytestmark = pytest.mark.django_db


def _hide_run(run, admin):
    run_set_hidden(run, actor=admin, reason="a broken run")


def _hide_submission(run, admin):
    Submission.objects.filter(pk=run.submission_id).update(hidden=True)
    results_changed()


def _hide_model(run, admin):
    ModelEntry.objects.filter(hub_id=world.HUB).update(hidden=True)
    results_changed()


def _csv_rows(url, **params):
    content = b"".join(APIClient().get(url, {**params, "format": "csv"}).streaming_content).decode()
    return list(csv.reader(content.splitlines()))[1:]


def shown(client):
    """Where the file's device figures appear."""
    model_page = client.get(reverse("model-detail", args=[world.HUB]))
    return {
        "reports": [r["id"] for r in APIClient().get(URL).json()["results"]],
        "reports csv": len(_csv_rows(URL)),
        "speeds": [r["hub_id"] for r in APIClient().get(URL + "speeds/").json()["results"]],
        "speeds csv": len(_csv_rows(URL + "speeds/")),
        "board": [r["hub_id"] for r in APIClient().get(URL + "board/").json()["results"]],
        "board csv": len(_csv_rows(URL + "board/")),
        "model page": model_page.status_code == 200 and "Google Pixel 8" in model_page.content.decode(),
        "what runs well": "Google Pixel 8" in client.get(reverse("device-board")).content.decode(),
    }


@pytest.mark.parametrize("hide", [_hide_run, _hide_submission, _hide_model], ids=["run", "submission", "model"])
def test_a_hidden_file_has_no_device_figure_anywhere(client, files, post, accounts, hide):
    other, = accounts(1)
    ids = [post(world.body(world.with_speeds(tg)), client=who).json()["id"] for tg, who in ((20.0, None), (22.0, other))]
    before = shown(client)
    assert before == {"reports": ids[::-1], "reports csv": 2, "speeds": [world.HUB], "speeds csv": 1,
                      "board": [world.HUB], "board csv": 1, "model page": True, "what runs well": True}
    hide(EvaluationRun.objects.get(pk=files["captured"].pk), User.objects.create_superuser("admin", "a@x.org", "pw"))
    assert shown(client) == {"reports": [], "reports csv": 0, "speeds": [], "speeds csv": 0, "board": [],
                             "board csv": 0, "model page": False, "what runs well": False}


def test_a_shown_again_run_brings_its_reports_back(client, files, post, accounts):
    admin = User.objects.create_superuser("admin", "a@x.org", "pw")
    post(world.body())
    run = EvaluationRun.objects.get(pk=files["captured"].pk)
    run_set_hidden(run, actor=admin, reason="checking")
    assert APIClient().get(URL).json()["results"] == []
    run_set_hidden(run, actor=admin, reason="fine after all", hidden=False)
    assert len(APIClient().get(URL).json()["results"]) == 1
