"""Δ points keep the memorization probe of the open split only: a sealed split's probe counts (kept items, a fact
about the answer key; exact matches, a count over sealed option texts) are dropped from points stored before."""
from django.db import migrations, models


def keep_open_split_probe(apps, schema_editor):
    DeltaPoint = apps.get_model("contamination", "DeltaPoint")
    for point in DeltaPoint.objects.exclude(probe={}).only("pk", "probe").iterator():
        kept = {split: counts for split, counts in (point.probe or {}).items() if split == "validation"}
        if kept != point.probe:
            DeltaPoint.objects.filter(pk=point.pk).update(probe=kept)


class Migration(migrations.Migration):

    dependencies = [
        ('contamination', '0003_ladder_per_submitter'),
    ]

    operations = [
        migrations.AlterField(
            model_name='deltapoint',
            name='probe',
            field=models.JSONField(blank=True, default=dict, help_text='{validation: {n, exact, generated}}: the memorization probe of the open split (the sealed split is not probed)'),
        ),
        migrations.RunPython(keep_open_split_probe, migrations.RunPython.noop),
    ]
