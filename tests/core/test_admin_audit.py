"""Admin edits of models, questions, topics and categories leave audit records (who, when, what changed, why),
and a question of a version that a run has used is read-only: its content never changes under its hash."""
import json

import pytest
from django.contrib.admin.sites import site
from django.test import RequestFactory
from django.urls import reverse

from leaderboard.benchmarks.models import BenchmarkVersion, Category, Question, Topic
from leaderboard.benchmarks.content_hashes import split_content_hash, stored_questions
from leaderboard.core.models import AuditRecord
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry

pytestmark = pytest.mark.django_db


def records(target):
    return list(AuditRecord.objects.filter(target_type=target._meta.model_name, target_id=str(target.pk))
                .order_by("pk"))


def question_form(question, **changes):
    return {"topic": question.topic_id, "text": question.text, "options": json.dumps(question.options),
            "answer": question.answer, "mrscore": question.mrscore or "", "difficulty": question.difficulty or "",
            **changes}


def open_question():
    return Question.objects.filter(split="validation").order_by("pk").first()


def pin(version):
    return EvaluationRun.objects.create(benchmark_version=version, split="validation", model_ref="org/m")


# --- audit records -------------------------------------------------------------------------------------------

def test_a_model_edit_is_audited(client, root):
    model = ModelEntry.objects.create(hub_id="org/spam", namespace="org", params=1000)
    response = client.post(reverse("admin:submissions_modelentry_change", args=[model.pk]), {
        "hub_id": "org/spam", "namespace": "org", "params": 2000, "model_type": "pretrained", "hidden": "on",
        "flag_reason": "", "audit_reason": "spam submission, hidden"})
    assert response.status_code == 302, response.content[:2000]
    (record,) = records(model)
    assert record.actor == root and record.action == "admin_change" and record.reason == "spam submission, hidden"
    assert record.details["changed"] == {"hidden": {"old": False, "new": True}, "params": {"old": 1000, "new": 2000}}
    assert record.created_at is not None and record.details["object"] == "org/spam"


def test_a_model_deletion_is_audited(client, root):
    model = ModelEntry.objects.create(hub_id="org/gone", namespace="org")
    pk = model.pk
    response = client.post(reverse("admin:submissions_modelentry_changelist"),
                           {"action": "delete_selected", "_selected_action": [pk], "post": "yes"})
    assert response.status_code == 302 and not ModelEntry.objects.filter(pk=pk).exists()
    (record,) = AuditRecord.objects.filter(target_type="modelentry", target_id=str(pk))
    assert record.action == "admin_delete" and record.actor == root and record.details["values"]["hub_id"] == "org/gone"


def test_topic_and_category_edits_are_audited(client, root, demo_loaded):
    topic = Topic.objects.order_by("pk").first()
    response = client.post(reverse("admin:benchmarks_topic_change", args=[topic.pk]), {
        "subcategory": topic.subcategory_id, "name": "Renamed topic", "slug": topic.slug, "order": topic.order,
        "published_population": topic.published_population or "", "published_mrscore": topic.published_mrscore or ""})
    assert response.status_code == 302, response.content[:3000]
    (record,) = records(topic)
    assert record.action == "admin_change" and record.actor == root
    assert record.details["changed"]["name"]["new"] == "Renamed topic" and "name" in record.reason
    topic.refresh_from_db()
    assert topic.hub_field and topic.name == "Renamed topic"

    benchmark = topic.benchmark
    response = client.post(reverse("admin:benchmarks_category_add"), {
        "benchmark": benchmark.pk, "name": "New category", "slug": "new-category", "order": 99,
        "audit_reason": "a category for the Pro subset"})
    assert response.status_code == 302, response.content[:3000]
    category = Category.objects.get(slug="new-category")
    response = client.post(reverse("admin:benchmarks_category_delete", args=[category.pk]), {"post": "yes"})
    assert response.status_code == 302
    add, delete = AuditRecord.objects.filter(target_type="category", target_id=str(category.pk)).order_by("pk")
    assert add.action == "admin_add" and add.reason == "a category for the Pro subset"
    assert delete.action == "admin_delete" and delete.details["values"]["name"] == "New category"


def test_a_topic_hub_field_with_questions_is_read_only(client, root, demo_loaded):
    topic = Topic.objects.order_by("pk").first()
    page = client.get(reverse("admin:benchmarks_topic_change", args=[topic.pk])).content.decode()
    assert 'name="hub_field"' not in page and topic.hub_field in page


# --- questions: pinned versions are read-only ----------------------------------------------------------------

def test_an_open_question_of_an_unused_version_is_edited_audited_and_rehashed(client, root, demo_loaded):
    question = open_question()
    version = question.version
    old_hash = version.split_hashes["validation"]
    response = client.post(reverse("admin:benchmarks_question_change", args=[question.pk]),
                           question_form(question, text="A corrected wording?", answer="c, a",
                                         audit_reason="typo reported by a user"))
    assert response.status_code == 302, response.content[:3000]
    question.refresh_from_db()
    assert question.text == "A corrected wording?" and question.answer == "A,C"
    (record,) = records(question)
    assert record.reason == "typo reported by a user"
    assert record.details["changed"]["text"]["new"] == "A corrected wording?"
    version.refresh_from_db()
    assert version.split_hashes["validation"] != old_hash  # the hash describes the stored content
    stored = stored_questions(version=version, split="validation")
    assert version.split_hashes["validation"] == split_content_hash(stored)


@pytest.mark.parametrize("changes,field,message", [
    ({"answer": "Z"}, "answer", "one option letter or several"),
    ({"options": '["only one"]'}, "options", "a list of 2 to 10 non-empty option texts"),
    ({"mrscore": "11"}, "mrscore", "a number from 1 to 10"),
])
def test_it_refuses_bad_question_edits(client, root, demo_loaded, snapshot, changes, field, message):
    question = open_question()
    before = snapshot()
    response = client.post(reverse("admin:benchmarks_question_change", args=[question.pk]),
                           question_form(question, **changes))
    assert response.status_code == 200 and message in response.content.decode()
    assert snapshot() == before


def test_a_question_of_a_pinned_version_is_read_only(client, root, demo_loaded, snapshot):
    question = open_question()
    pin(question.version)
    page = client.get(reverse("admin:benchmarks_question_change", args=[question.pk])).content.decode()
    assert "Read-only." in page and "import a new version" in page and 'name="text"' not in page
    before = snapshot()
    response = client.post(reverse("admin:benchmarks_question_change", args=[question.pk]),
                           question_form(question, text="changed under the hash", audit_reason="try"))
    assert response.status_code == 403
    assert snapshot() == before


def test_a_version_pinned_while_the_form_was_open_refuses_the_save(root, demo_loaded, snapshot):
    question = open_question()
    modeladmin = site._registry[Question]
    request = RequestFactory().get("/")
    request.user = root
    form_class = modeladmin.get_form(request, question, change=True)  # shown while no run had used it
    pin(question.version)
    before = snapshot()
    form = form_class(question_form(question, text="changed under the hash"), instance=question)
    assert not form.is_valid()
    assert "is pinned" in str(form.non_field_errors()) and "import a new version" in str(form.non_field_errors())
    assert snapshot() == before
    assert BenchmarkVersion.objects.get(pk=question.version_id).split_hashes == question.version.split_hashes


def test_the_change_pages_ask_why(client, root, demo_loaded):
    from leaderboard.benchmarks.models import Subcategory

    model = ModelEntry.objects.create(hub_id="org/m", namespace="org")
    for name, obj in (("submissions_modelentry", model), ("benchmarks_topic", Topic.objects.first()),
                      ("benchmarks_category", Category.objects.first()),
                      ("benchmarks_subcategory", Subcategory.objects.first()),
                      ("benchmarks_question", open_question())):
        page = client.get(reverse(f"admin:{name}_change", args=[obj.pk]))
        assert page.status_code == 200 and 'name="audit_reason"' in page.content.decode(), name
    assert 'name="audit_reason"' in client.get(reverse("admin:benchmarks_category_add")).content.decode()
