"""User names become unique case-insensitively: a unique index on lower(username) of auth_user (PostgreSQL and SQLite
both index expressions). A user name owns the hub namespace of the same name (submissions.selectors.namespace_owners,
compared case-insensitively), so `ALICE` beside `alice` would be a second owner of `alice/`.

Accounts that differ only in case are not merged here: which one keeps the name is an admin's call. The migration
stops and names them instead."""
from django.db import migrations

INDEX = "auth_user_username_lower_uniq"


def refuse_case_duplicates(apps, schema_editor):
    User = apps.get_model("auth", "User")
    names = {}
    for pk, username in User.objects.using(schema_editor.connection.alias).values_list("pk", "username"):
        names.setdefault(username.lower(), []).append(f"{username!r} (id {pk})")
    clashes = sorted(sorted(group) for group in names.values() if len(group) > 1)
    if clashes:
        listed = "; ".join(" = ".join(group) for group in clashes[:20]) + (
            f"; and {len(clashes) - 20} more" if len(clashes) > 20 else "")
        raise RuntimeError(
            "User names are now unique case-insensitively (each owns the hub namespace of its name), but accounts "
            f"differ only in case: {listed}. For each group, rename all accounts but one (admin: Users) or merge them "
            "(move their submissions to one account, then delete the others), and migrate again; nothing was changed.")


def create_index(apps, schema_editor):
    quote = schema_editor.quote_name
    table = apps.get_model("auth", "User")._meta.db_table
    schema_editor.execute(f"CREATE UNIQUE INDEX {quote(INDEX)} ON {quote(table)} (lower({quote('username')}))")


def drop_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):

    dependencies = [
        ("submissions", "0003_namespace_grant_and_case_insensitive_hub_ids"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(refuse_case_duplicates, migrations.RunPython.noop),
        migrations.RunPython(create_index, drop_index),
    ]
