"""Question.extra: what a publisher's file carries beyond the question (MMLU-Pro's src and cot_content)."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0002_mobile_mmlu_taxonomy")]
    operations = [
        migrations.AddField(model_name="question", name="extra", field=models.JSONField(blank=True, default=dict)),
    ]
