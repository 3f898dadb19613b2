"""Loads the published Mobile-MMLU taxonomy (9/27/80, populations, topic MRScores)."""
from django.db import migrations


def load(apps, schema_editor):
    from leaderboard.benchmarks.taxonomy import load_mobile_mmlu_taxonomy

    load_mobile_mmlu_taxonomy(*(apps.get_model("benchmarks", name)
                                for name in ("Benchmark", "Category", "Subcategory", "Topic")))


def unload(apps, schema_editor):
    apps.get_model("benchmarks", "Benchmark").objects.filter(
        slug__in=["mobile-mmlu", "mobile-mmlu-pro"], versions__isnull=True
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0001_initial")]
    operations = [migrations.RunPython(load, unload)]
