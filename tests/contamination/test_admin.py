"""δ₀ in the admin: set with a reason and audited; a bad value or a mixed set of reference points is refused
with a message and stores nothing."""
import pytest
from django.urls import reverse

from leaderboard.benchmarks.models import Benchmark
from leaderboard.contamination.models import DeltaOffset, DeltaPoint
from leaderboard.core.models import AuditRecord

pytestmark = pytest.mark.django_db


def test_it_sets_delta0_with_a_reason(client, root, version):
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    response = client.post(reverse("admin:contamination_deltaoffset_add"),
                           {"benchmark": benchmark.pk, "shots": 0, "value": "-0.012", "reason": "reference models"})
    assert response.status_code == 302
    assert DeltaOffset.objects.get().value == -0.012
    assert AuditRecord.objects.filter(action="set-delta0", actor=root).exists()


def test_it_refuses_an_out_of_range_delta0(client, root, version, snapshot):
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    before = snapshot()
    response = client.post(reverse("admin:contamination_deltaoffset_add"),
                           {"benchmark": benchmark.pk, "shots": 0, "value": "-12", "reason": "typed points"})
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors.as_data()
    assert list(errors) == ["value"] and errors["value"][0].code == "DELTA0_OUT_OF_RANGE"
    assert "-12" in errors["value"][0].message and "between -1 and 1" in errors["value"][0].message
    assert snapshot() == before


def test_it_refuses_reference_points_of_two_shot_settings(client, root, make_run, snapshot):
    make_run("ref/a", "validation", 300)
    make_run("ref/a", "test", 290)
    DeltaPoint.objects.create(**{**DeltaPoint.objects.values().get(), "id": None, "shots": 5})
    before = snapshot()
    selected = list(DeltaPoint.objects.values_list("pk", flat=True))
    response = client.post(reverse("admin:contamination_deltapoint_changelist"), {
        "action": "set_delta0_from_reference", "_selected_action": selected, "apply": "1",
        "reason": "two references"}, follow=True)
    assert "several benchmarks or shot settings" in response.content.decode()
    assert "Choose reference points of one benchmark and one shot setting" in response.content.decode()
    assert snapshot() == before
