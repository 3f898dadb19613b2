"""Admin for the question bank.

Sealed (test) questions are not in the admin at all, for superusers neither
(ARCHITECTURE §6: no admin list holds them); operators see their counts on the
version. answer_sealed is not a field of any admin.

Every add, change and delete of a benchmark, version, category, subcategory, topic or question here leaves
an audit record (``AuditedModelAdmin``). A question of a version that an evaluation run has used (pinned) is
read-only: its content never changes under the version's hash; a correction is imported as a new version.
An edit of a version no run has used updates that split's hash, so the hash always describes the stored
content.
"""
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.html import format_html

from leaderboard.core.admin_actions import AuditedModelAdmin, AuditReasonForm, PublishedModelAdmin

from . import selectors, services
from .importers.validation import parse_answer
from .models import (MAX_OPTIONS, MIN_OPTIONS, OPTION_LETTERS, SEALED_SPLITS, Benchmark, BenchmarkVersion, Category,
                     Question, Subcategory, Topic)


def pinned_message(question: Question) -> str:
    version = question.version
    return (f"{version} is pinned: evaluation runs used it, so its questions are read-only and its content never "
            f"changes under its hash ({version.split_hashes.get(question.split, '')[:12]}…). To correct this "
            f"question, import a new version: python manage.py import_benchmark --benchmark "
            f"{version.benchmark.slug} --split {question.split} --path ... (the runs keep the version they "
            "measured).")


def is_pinned(question: Question | None) -> bool:
    return question is not None and question.pk is not None and selectors.version_has_runs(version=question.version)


@admin.register(Benchmark)
class BenchmarkAdmin(AuditedModelAdmin):
    list_display = ("slug", "name", "source_repo", "created_at")
    search_fields = ("slug", "name")


@admin.register(BenchmarkVersion)
class BenchmarkVersionAdmin(AuditedModelAdmin):
    list_display = ("benchmark", "number", "source_revision", "content_hash", "created_at")
    list_filter = ("benchmark",)
    readonly_fields = ("benchmark", "number", "source_revision", "content_hash", "split_hashes", "created_at")

    def has_add_permission(self, request):
        return False  # versions come from the importer only


# Categories, subcategories and topics: their names and order show on every page.
@admin.register(Category)
class CategoryAdmin(PublishedModelAdmin):
    list_display = ("name", "benchmark", "order")
    list_filter = ("benchmark",)

    def get_readonly_fields(self, request, obj=None):
        return ("benchmark",) if obj is not None else ()


@admin.register(Subcategory)
class SubcategoryAdmin(PublishedModelAdmin):
    list_display = ("name", "category", "order")
    list_filter = ("category__benchmark",)


@admin.register(Topic)
class TopicAdmin(PublishedModelAdmin):
    list_display = ("name", "hub_field", "subcategory", "benchmark", "published_population", "published_mrscore")
    list_filter = ("benchmark", "subcategory__category")
    search_fields = ("name", "hub_field")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # hub_field is part of every question's hashed content and how imports find the topic.
        return ("benchmark", "hub_field") if obj.questions.exists() else ("benchmark",)


class QuestionAdminForm(AuditReasonForm):
    class Meta:
        model = Question
        fields = ("topic", "text", "options", "mrscore", "difficulty", "answer")

    def clean(self):
        cleaned = super().clean()
        if is_pinned(self.instance):  # runs may have appeared since the page was shown
            raise ValidationError(pinned_message(self.instance), code="pinned")
        options = cleaned.get("options", self.instance.options)
        if "options" in self.fields and options is not None:
            if (not isinstance(options, list) or not MIN_OPTIONS <= len(options) <= MAX_OPTIONS
                    or not all(isinstance(o, str) and o.strip() for o in options)):
                self.add_error("options", f"a list of {MIN_OPTIONS} to {MAX_OPTIONS} non-empty option texts, "
                                          'e.g. ["yes", "no"]; they are lettered A, B, ... in order')
                return cleaned
        if "answer" in self.fields and "answer" in cleaned:
            answer = parse_answer(cleaned["answer"])
            valid = OPTION_LETTERS[:len(options or [])]
            if answer is None or any(letter not in valid for letter in answer.split(",")):
                self.add_error("answer", f"one option letter or several separated by commas (A or A,C), among "
                                         f"the question's options {valid[:1]}-{valid[-1:]}")
            else:
                cleaned["answer"] = answer
        for name, low, high in (("mrscore", 1.0, 10.0), ("difficulty", 0.0, 1.0)):
            value = cleaned.get(name)
            if name in self.fields and value is not None and not low <= value <= high:
                self.add_error(name, f"a number from {low:g} to {high:g}, or empty if unknown")
        topic = cleaned.get("topic")
        if topic is not None and topic.benchmark_id != self.instance.version.benchmark_id:
            self.add_error("topic", "the topic must belong to the question's benchmark")
        return cleaned


@admin.register(Question)
class QuestionAdmin(AuditedModelAdmin):
    form = QuestionAdminForm
    list_display = ("uid", "version", "split", "topic", "short_text")
    list_filter = ("split", "version__benchmark", "topic__subcategory__category")
    search_fields = ("uid", "text")
    list_select_related = ("version__benchmark", "topic")
    # answer_sealed is deliberately absent from every field list.
    fields = ("uid", "version", "split", "pinned", "topic", "text", "options", "answer", "mrscore", "difficulty")

    @admin.display(description="question")
    def short_text(self, obj):
        return obj.text[:80]

    @admin.display(description="content")
    def pinned(self, obj):
        if is_pinned(obj):
            return format_html("<strong>Read-only.</strong> {}", pinned_message(obj))
        return "Editable: no evaluation run has used this version yet (the split's hash is updated on save)."

    def get_queryset(self, request):
        return super().get_queryset(request).defer("answer_sealed").exclude(split__in=SEALED_SPLITS)

    def get_readonly_fields(self, request, obj=None):
        return ("uid", "version", "split", "pinned")

    def has_add_permission(self, request):
        return False  # questions come from the importer (validation, hashing, encryption)

    def has_change_permission(self, request, obj=None):
        if is_pinned(obj):
            return False  # shown read-only; a POST is refused (403)
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False  # deleting would change a pinned version's content

    def save_model(self, request, obj, form, change):
        if obj.is_sealed or is_pinned(obj):  # never reached through the form; a last guard
            raise ValidationError(pinned_message(obj))
        super().save_model(request, obj, form, change)
        services.split_hash_refresh(version=obj.version, split=obj.split)
