"""The GPU worker's PostgreSQL role: what untrusted model code may read and write (ARCHITECTURE §2, §9).

The GPU worker reads questions and its run, writes prediction chunks and its run's lifecycle
columns (and, for a local MRScore judge, the judge's tables). It gets nothing else: no users,
sessions or API tokens, no submissions, no audit records, no results or contamination tables; on
the run row it may not read `summary` (exact per-topic counts of every run, sealed ones included)
nor write the summary, visibility or flag columns that pages trust.

Prediction chunks are guarded by row-level security: the role sees and inserts only chunks of
runs that are running (its own claimed run, to resume it). What remains exposed: chunks of runs
in flight at the same moment (their predicted letters, never whether they are right) and the
question text of every split, which the worker needs to predict at all; a worker that can run one
model on the sealed questions can run any, so other models' letters add little.

The role itself (LOGIN, password) is created once by docker/postgres-init/; the grants follow the
tables, so `manage.py grant_worker_role` runs after every migrate (docker/start-web.sh).
"""
import re

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from .models import RunStatus

ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

# app labels whose every table the worker may read (but the columns below)
READ_APPS = ("benchmarks", "evaluations", "mrscore")
# Columns it may not read: the worker's queries on these models defer them (lifecycle._run_for_worker).
HIDDEN_COLUMNS = {"evaluations.EvaluationRun": ("summary",)}
INSERT_MODELS = ("evaluations.PredictionChunk", "mrscore.MRScoreChunk", "mrscore.QuestionMRScore",
                 "mrscore.TopicMRScore")
DELETE_MODELS = ("mrscore.QuestionMRScore", "mrscore.TopicMRScore")  # a judge job rewrites its own scores
UPDATE_MODELS = ("mrscore.MRScoreJob",)
# Column-level: the run lifecycle (claim, lease, progress, failure, hand-off to scoring) and what
# the predicting side measures (and how it made a GGUF file: gguf_recipe). Not summary/hidden/flagged/model/split: those the trusted side owns.
UPDATE_COLUMNS = {
    "evaluations.EvaluationRun": (
        "status", "attempts", "infra_retries", "lease_expires_at", "started_at", "finished_at", "enqueued_at",
        "published_at",
        "progress_done", "failure_code", "failure_reason", "log_excerpt",
        "efficiency", "hardware", "probe_rows", "gguf_recipe",
    ),
}


def _table(label):
    return apps.get_model(label)._meta.db_table


def _column(label, field_name):
    return apps.get_model(label)._meta.get_field(field_name).column


def planned_grants() -> dict[str, list]:
    """privilege -> tables (or, for column grants, (table, [columns]) pairs)."""
    readable = {model._meta.db_table for label in READ_APPS
                for model in apps.get_app_config(label).get_models(include_auto_created=True)}
    readable_columns = []
    for label, hidden in HIDDEN_COLUMNS.items():
        model = apps.get_model(label)
        readable.discard(model._meta.db_table)
        readable_columns.append((model._meta.db_table, [f.column for f in model._meta.concrete_fields
                                                        if f.name not in hidden]))
    return {
        "SELECT": sorted(readable),
        "SELECT_COLUMNS": readable_columns,
        "INSERT": sorted(_table(label) for label in INSERT_MODELS),
        "DELETE": sorted(_table(label) for label in DELETE_MODELS),
        "UPDATE": sorted(_table(label) for label in UPDATE_MODELS),
        "UPDATE_COLUMNS": [(_table(label), [_column(label, name) for name in names])
                           for label, names in UPDATE_COLUMNS.items()],
    }


def grant_statements(*, role: str, quote, existing_tables) -> list[str]:
    """SQL that resets the role's table privileges, then grants the plan. `quote` quotes identifiers."""
    if not ROLE_NAME.fullmatch(role):
        raise ImproperlyConfigured(f"{role!r} is not a plain PostgreSQL role name ([a-z_][a-z0-9_]*).")
    plan = planned_grants()
    wanted = {t for tables in (plan["SELECT"], plan["INSERT"], plan["DELETE"], plan["UPDATE"]) for t in tables}
    wanted |= {table for table, _columns in plan["UPDATE_COLUMNS"] + plan["SELECT_COLUMNS"]}
    missing = sorted(wanted - set(existing_tables))
    if missing:
        raise ImproperlyConfigured(f"tables missing (run `manage.py migrate` first): {', '.join(missing)}")
    who = quote(role)
    # Revoking table privileges revokes column privileges too, so a narrowed plan takes effect.
    statements = [f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {who}",
                  f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {who}",
                  f"GRANT USAGE ON SCHEMA public TO {who}"]
    for privilege in ("SELECT", "INSERT", "DELETE", "UPDATE"):
        if plan[privilege]:
            statements.append(f"GRANT {privilege} ON {', '.join(quote(t) for t in plan[privilege])} TO {who}")
    for privilege in ("SELECT", "UPDATE"):
        for table, columns in plan[f"{privilege}_COLUMNS"]:
            statements.append(
                f"GRANT {privilege} ({', '.join(quote(c) for c in columns)}) ON {quote(table)} TO {who}")
    return statements + chunk_policy_statements(role=role, quote=quote)


def chunk_policy_statements(*, role: str, quote) -> list[str]:
    """Row-level security on prediction chunks: the role reads and inserts those of running runs only.

    A permissive policy for everyone keeps other roles as they were (the tables' owner, which the web
    and trusted worker use, bypasses row-level security anyway); a restrictive one narrows this role.
    """
    chunk, run = apps.get_model("evaluations.PredictionChunk"), apps.get_model("evaluations.EvaluationRun")
    table, run_table = quote(chunk._meta.db_table), quote(run._meta.db_table)
    running = (f"EXISTS (SELECT 1 FROM {run_table} r WHERE r.{quote(run._meta.pk.column)} = "
               f"{table}.{quote(chunk._meta.get_field('run').column)} "
               f"AND r.{quote(run._meta.get_field('status').column)} = '{RunStatus.RUNNING.value}')")
    everyone, narrowed = quote("all_roles"), quote(f"{role}_running_runs")
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS {everyone} ON {table}",
        f"CREATE POLICY {everyone} ON {table} USING (true) WITH CHECK (true)",
        f"DROP POLICY IF EXISTS {narrowed} ON {table}",
        f"CREATE POLICY {narrowed} ON {table} AS RESTRICTIVE TO {quote(role)} USING ({running}) "
        f"WITH CHECK ({running})",
    ]
