"""Each report keeps its account's vote weight (consensus.weight), and every stored group is judged again whole under
the rule that judges it at each new report (issue 38): before, a report was judged once, at intake, against the
figure confirmed then, so the first two accounts to agree held a figure for good. Stored reports weigh 1 each (one
vote per account, as they did) until their group's next report weighs them."""
from django.db import migrations, models


def rejudge(apps, schema_editor):
    from leaderboard.devices import consensus  # pure: no models

    Report = apps.get_model("devices", "DeviceReport")
    groups: dict = {}
    for report in Report.objects.filter(hidden=False).only(
            "owner_id", "model_id", "file_sha256", "device_key", "tg_tokens_per_s", "pp_tokens_per_s", "status",
            "weight").iterator():
        groups.setdefault((report.model_id, report.file_sha256, report.device_key), []).append(report)
    changed = [report for reports in groups.values() for report in consensus.restatus_stored(reports)]
    Report.objects.bulk_update(changed, ["status"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ('devices', '0004_report_derived_figures_sample_caps'),
    ]

    operations = [
        migrations.AddField(
            model_name='devicereport',
            name='weight',
            field=models.FloatField(default=1.0, help_text="its account's vote weight at that judgement: what the account cost to make (consensus.weight)"),
        ),
        migrations.AlterField(
            model_name='devicereport',
            name='status',
            field=models.CharField(choices=[('counted', 'counted'), ('outlier', 'outlier: left out of medians until an admin accepts it'), ('accepted', 'outlier accepted by an admin: counted')], default='counted', help_text="the outcome of its group's latest judgement (consensus.py), or an admin's accept", max_length=10),
        ),
        migrations.RunPython(rejudge, migrations.RunPython.noop),
    ]
