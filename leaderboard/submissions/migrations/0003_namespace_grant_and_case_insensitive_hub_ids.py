"""Hub ids become unique case-insensitively; model namespaces are stored lower-case; namespace grants.

Entries that differ only in case are not merged here: which spelling wins and whose runs move is an admin's call.
The migration stops and names them instead."""
import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


def refuse_case_duplicates(apps, schema_editor):
    ModelEntry = apps.get_model("submissions", "ModelEntry")
    spellings = {}
    for hub_id in ModelEntry.objects.using(schema_editor.connection.alias).values_list("hub_id", flat=True):
        spellings.setdefault(hub_id.lower(), []).append(hub_id)
    clashes = sorted(sorted(ids) for ids in spellings.values() if len(ids) > 1)
    if clashes:
        listed = "; ".join(" = ".join(ids) for ids in clashes[:20])
        raise RuntimeError(
            f"{len(clashes)} hub ids are stored in more than one spelling ({listed}); hub ids are now unique "
            "case-insensitively. Merge each group into one model entry (move its submissions and results, then "
            "delete the others) and migrate again; nothing was changed.")


def lower_namespaces(apps, schema_editor):
    ModelEntry = apps.get_model("submissions", "ModelEntry")
    entries = ModelEntry.objects.using(schema_editor.connection.alias)
    for pk, namespace in entries.values_list("pk", "namespace"):
        if namespace != namespace.lower():
            entries.filter(pk=pk).update(namespace=namespace.lower())


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0002_submission_probe'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='NamespaceGrant',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('namespace', models.CharField(help_text='the hub namespace, stored lower-case', max_length=100)),
                ('reason', models.TextField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['namespace', 'user_id'],
            },
        ),
        migrations.AlterField(
            model_name='modelentry',
            name='namespace',
            field=models.CharField(db_index=True, help_text='lower-case', max_length=100),
        ),
        migrations.RunPython(refuse_case_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='modelentry',
            constraint=models.UniqueConstraint(django.db.models.functions.text.Lower('hub_id'), name='unique_model_hub_id_case_insensitive'),
        ),
        migrations.AddField(
            model_name='namespacegrant',
            name='granted_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='namespacegrant',
            name='user',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='namespace_grants', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name='namespacegrant',
            constraint=models.UniqueConstraint(fields=('user', 'namespace'), name='unique_namespace_grant'),
        ),
        migrations.AddConstraint(
            model_name='namespacegrant',
            constraint=models.CheckConstraint(condition=models.Q(('namespace', django.db.models.functions.text.Lower('namespace'))), name='namespace_grant_lower_case'),
        ),
        migrations.RunPython(lower_namespaces, migrations.RunPython.noop),
    ]
