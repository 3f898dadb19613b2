"""EvaluationRun.protocol: a publisher's own evaluation protocol (evaluator/protocols.py), '' for existing runs."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evaluations', '0005_infrastructure_retries'),
    ]

    operations = [
        migrations.AddField(
            model_name='evaluationrun',
            name='protocol',
            field=models.CharField(blank=True, default='', help_text="a publisher's own protocol (evaluator/protocols.py, e.g. mmlu-pro-cot) that fixes prompt, shots, decoding and answer reading; template and template_hash then name it and its hash. '' = the leaderboard's own settings. Part of every board's key: runs of two protocols are never ranked together", max_length=40),
        ),
    ]
