"""Admin for the question bank.

Sealed (test) questions are not in the admin at all, for superusers neither
(DESIGN §6: no admin list holds them); operators see their counts on the
version. answer_sealed is not a field of any admin.
"""
from django.contrib import admin

from .models import SEALED_SPLITS, Benchmark, BenchmarkVersion, Category, Question, Subcategory, Topic


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "source_repo", "created_at")
    search_fields = ("slug", "name")


@admin.register(BenchmarkVersion)
class BenchmarkVersionAdmin(admin.ModelAdmin):
    list_display = ("benchmark", "number", "source_revision", "content_hash", "created_at")
    list_filter = ("benchmark",)
    readonly_fields = ("benchmark", "number", "source_revision", "content_hash", "split_hashes", "created_at")

    def has_add_permission(self, request):
        return False  # versions come from the importer only


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ("name", "benchmark", "order")
    list_filter = ("benchmark",)


@admin.register(Subcategory)
class SubcategoryAdmin(admin.ModelAdmin):
    list_display = ("name", "category", "order")
    list_filter = ("category__benchmark",)


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ("name", "hub_field", "subcategory", "benchmark", "published_population", "published_mrscore")
    list_filter = ("benchmark", "subcategory__category")
    search_fields = ("name", "hub_field")


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("uid", "version", "split", "topic", "short_text")
    list_filter = ("split", "version__benchmark", "topic__subcategory__category")
    search_fields = ("uid", "text")
    list_select_related = ("version__benchmark", "topic")
    # answer_sealed is deliberately absent from every field list.
    fields = ("uid", "version", "split", "topic", "text", "options", "answer", "mrscore", "difficulty")

    @admin.display(description="question")
    def short_text(self, obj):
        return obj.text[:80]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("answer_sealed").exclude(split__in=SEALED_SPLITS)

    def get_readonly_fields(self, request, obj=None):
        return ("uid", "version", "split")

    def has_add_permission(self, request):
        return False  # questions come from the importer (validation, hashing, encryption)

    def has_delete_permission(self, request, obj=None):
        return False  # deleting would change a pinned version's content
