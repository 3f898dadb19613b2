"""Admin for the question bank.

Sealed (test) questions are listed to superusers only and read-only for them;
no admin page, list or form ever shows a sealed answer (answer_sealed is not
a field of any admin, and the clear `answer` column is empty for test rows).
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
    sealed_fields = ("uid", "version", "split", "topic", "text", "options", "mrscore", "difficulty")

    @admin.display(description="question")
    def short_text(self, obj):
        return obj.text[:80]

    def get_queryset(self, request):
        queryset = super().get_queryset(request).defer("answer_sealed")
        if not request.user.is_superuser:
            queryset = queryset.exclude(split__in=SEALED_SPLITS)
        return queryset

    def get_fields(self, request, obj=None):
        return self.sealed_fields if obj is not None and obj.is_sealed else self.fields

    def get_readonly_fields(self, request, obj=None):
        return ("uid", "version", "split")

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.is_sealed:
            return False  # sealed questions change only through a sealed re-import
        return super().has_change_permission(request, obj)

    def has_add_permission(self, request):
        return False  # questions come from the importer (validation, hashing, encryption)

    def has_delete_permission(self, request, obj=None):
        return False  # deleting would change a pinned version's content
