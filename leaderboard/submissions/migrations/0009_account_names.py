"""One identity for names (ARCHITECTURE §9): each account's user name in its canonical form (NFKC, casefold, NFKC),
in a unique column, AccountName. It replaces the unique index on lower(username) of 0004: PostgreSQL's lower() and
UPPER() fold by the database's locale ('ı' to 'I'), Python's casefold by Unicode, and identity is decided in Python.

Accounts whose names have one canonical form ('alice' and 'ＡＬＩＣＥ', 'strasse' and 'STRAßE') are not merged here:
which one keeps the name is an admin's call. The migration stops and names them instead, changing nothing.

Stored namespaces (grants, the hub's) were validated hub namespaces in lower case, which is their canonical form;
their check constraints now say so."""
import unicodedata

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

OLD_INDEX = "auth_user_username_lower_uniq"  # 0004's


def canonical_name(value: str) -> str:
    """identity.canonical_name as of this migration (a migration keeps the rule it ran with)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


def fill_account_names(apps, schema_editor):
    alias = schema_editor.connection.alias
    User, AccountName = apps.get_model("auth", "User"), apps.get_model("submissions", "AccountName")
    names = {}
    for pk, username in User.objects.using(alias).values_list("pk", "username").order_by("pk"):
        names.setdefault(canonical_name(username), []).append((pk, username))
    clashes = sorted([f"{username!r} (id {pk})" for pk, username in group]
                     for group in names.values() if len(group) > 1)
    if clashes:
        listed = "; ".join(" = ".join(group) for group in clashes[:20]) + (
            f"; and {len(clashes) - 20} more" if len(clashes) > 20 else "")
        raise RuntimeError(
            "User names are now compared in one canonical form (NFKC, then casefold: each owns the hub namespace of "
            f"its name), and these accounts' names have the same form: {listed}. For each group, rename all accounts "
            "but one (admin: Users) or merge them (move their submissions to one account, then delete the others), "
            "and migrate again; nothing was changed.")
    AccountName.objects.using(alias).bulk_create(
        AccountName(user_id=pk, canonical=key, username=username) for key, [(pk, username)] in names.items())


def drop_old_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(OLD_INDEX)}")


def create_old_index(apps, schema_editor):
    quote = schema_editor.quote_name
    table = apps.get_model("auth", "User")._meta.db_table
    schema_editor.execute(f"CREATE UNIQUE INDEX {quote(OLD_INDEX)} ON {quote(table)} (lower({quote('username')}))")


class Migration(migrations.Migration):

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("submissions", "0008_ondevice_variants"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AccountName",
            fields=[
                ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True,
                                              related_name="account_name", serialize=False,
                                              to=settings.AUTH_USER_MODEL)),
                ("canonical", models.TextField(unique=True)),
                ("username", models.CharField(help_text="the user name it was computed from", max_length=150)),
            ],
        ),
        migrations.RunPython(fill_account_names, migrations.RunPython.noop),
        migrations.RunPython(drop_old_index, create_old_index),
        migrations.RemoveConstraint(model_name="hubnamespace", name="hub_namespace_lower_case"),
        migrations.RemoveConstraint(model_name="namespacegrant", name="namespace_grant_lower_case"),
        migrations.AlterField(
            model_name="hubnamespace", name="namespace",
            field=models.CharField(help_text="stored in its canonical form", max_length=100)),
        migrations.AlterField(
            model_name="modelentry", name="namespace",
            field=models.CharField(db_index=True, help_text="canonical (lower-case)", max_length=100)),
        migrations.AlterField(
            model_name="namespacegrant", name="namespace",
            field=models.CharField(help_text="the hub namespace, stored in its canonical form", max_length=100)),
        migrations.AddConstraint(
            model_name="hubnamespace",
            constraint=models.CheckConstraint(condition=models.Q(("namespace__regex", "^[a-z0-9._-]+$")),
                                              name="hub_namespace_canonical")),
        migrations.AddConstraint(
            model_name="namespacegrant",
            constraint=models.CheckConstraint(condition=models.Q(("namespace__regex", "^[a-z0-9._-]+$")),
                                              name="namespace_grant_canonical")),
    ]
