"""Published MRScore figures from the open splits only: the topic rows and the summary of every finished job are
recomputed from its stored open-split verdicts (leaderboard/mrscore/aggregates.py), so a topic's mean no longer
gives the sum of its sealed questions' scores."""
from django.db import migrations, models

from leaderboard.mrscore import aggregates


def recompute(apps, schema_editor):
    Job = apps.get_model("mrscore", "MRScoreJob")
    QuestionScore = apps.get_model("mrscore", "QuestionMRScore")
    TopicScore = apps.get_model("mrscore", "TopicMRScore")
    Topic = apps.get_model("benchmarks", "Topic")
    for job in Job.objects.filter(status="succeeded").select_related("benchmark_version"):
        verdicts = [{"split": split, "topic": topic, "score": score, "method": method, "mass": mass}
                    for split, topic, score, method, mass in QuestionScore.objects.filter(job=job).values_list(
                        "split", "topic_id", "score", "method", "score_mass")]
        blocks = aggregates.topic_blocks(verdicts)
        TopicScore.objects.filter(job=job).delete()
        TopicScore.objects.bulk_create([TopicScore(job=job, topic_id=topic, **block) for topic, block in blocks.items()])
        published = dict(Topic.objects.filter(benchmark_id=job.benchmark_version.benchmark_id)
                         .values_list("pk", "published_mrscore"))
        summary = aggregates.job_summary(verdicts, blocks, published, is_demo=job.judge_is_demo)
        Job.objects.filter(pk=job.pk).update(summary=summary)


class Migration(migrations.Migration):

    dependencies = [
        ('benchmarks', '0001_initial'),
        ('mrscore', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='topicmrscore',
            name='n',
            field=models.PositiveIntegerField(help_text='open-split questions judged'),
        ),
        migrations.RunPython(recompute, migrations.RunPython.noop),
    ]
