"""Admin: open questions browsable; sealed questions not in the admin at all, for superusers neither."""
import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.models import Question

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(client):
    user = User.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(user)
    return user


@pytest.fixture
def staff(client):
    user = User.objects.create_user("editor", "editor@example.com", "pw", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="benchmarks"))
    client.force_login(user)
    return user


def sealed_question():
    return Question.objects.filter(split="test").order_by("pk").first()


def test_it_shows_open_answers_to_staff(client, staff, demo_loaded):
    question = Question.objects.filter(split="validation").order_by("pk").first()
    page = client.get(reverse("admin:benchmarks_question_change", args=[question.pk])).content.decode()
    assert question.text in page and f'value="{question.answer}"' in page


@pytest.mark.parametrize("who", ["staff", "superuser"])
def test_it_hides_sealed_questions_from_everyone(client, who, request, demo_loaded):
    request.getfixturevalue(who)
    question = sealed_question()
    change_link = reverse("admin:benchmarks_question_change", args=[question.pk])
    for query in (question.uid, question.text[:30]):  # the search box echoes the query itself
        listing = client.get(reverse("admin:benchmarks_question_changelist"), {"q": query}).content.decode()
        assert "0 results" in listing and change_link not in listing
    all_rows = client.get(reverse("admin:benchmarks_question_changelist"), {"all": ""}).content.decode()
    # Mobile-MMLU's 240 dev + 480 validation, the 160 of the Pro subset, MMLU-Pro's 14 dev + 42 validation; the 480
    # sealed are not counted
    assert "936 questions" in all_rows
    detail = client.get(change_link)
    assert detail.status_code == 302  # "doesn't exist" redirect, no content


def test_it_refuses_to_edit_sealed_questions(client, superuser, demo_loaded):
    question = sealed_question()
    before = decrypt_answer(question.answer_sealed)
    response = client.post(reverse("admin:benchmarks_question_change", args=[question.pk]),
                           {"text": "edited", "answer": "A"})
    assert response.status_code == 302  # "doesn't exist": nothing to edit
    question.refresh_from_db()
    assert question.text != "edited" and decrypt_answer(question.answer_sealed) == before
