"""Load the paper's Table 2 and order-bias tables as "reported by the paper" rows."""
from django.db import migrations


def load(apps, schema_editor):
    from leaderboard.results.reference import load_reported

    load_reported(apps.get_model("results", "ReportedResult"))


def unload(apps, schema_editor):
    apps.get_model("results", "ReportedResult").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("results", "0001_initial")]
    operations = [migrations.RunPython(load, unload)]
