"""The GPU worker's PostgreSQL role: what untrusted model code may read and write (DESIGN §2, §9).

The GPU worker reads questions and its run, writes prediction chunks and its run's lifecycle
columns (and, for a local MRScore judge, the judge's tables). It gets nothing else: no users,
sessions or API tokens, no audit records, no results or contamination tables, and on the run
row not the summary, visibility or flag columns that pages trust.

The role itself (LOGIN, password) is created once by docker/postgres-init/; the grants follow the
tables, so `manage.py grant_worker_role` runs after every migrate (docker/start-web.sh).
"""
import re

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

# app labels whose every table the worker may read
READ_APPS = ("benchmarks", "evaluations", "mrscore")
# single models it may read besides (the size router looks up a run's model)
READ_MODELS = ("submissions.ModelEntry", "submissions.Submission")
INSERT_MODELS = ("evaluations.PredictionChunk", "mrscore.MRScoreChunk", "mrscore.QuestionMRScore",
                 "mrscore.TopicMRScore")
DELETE_MODELS = ("mrscore.QuestionMRScore", "mrscore.TopicMRScore")  # a judge job rewrites its own scores
UPDATE_MODELS = ("mrscore.MRScoreJob",)
# Column-level: the run lifecycle (claim, lease, progress, failure, hand-off to scoring) and what
# the predicting side measures. Not summary/hidden/flagged/model/split: those the trusted side owns.
UPDATE_COLUMNS = {
    "evaluations.EvaluationRun": (
        "status", "attempts", "lease_expires_at", "started_at", "finished_at", "enqueued_at",
        "progress_done", "progress_total", "chunk_size", "failure_code", "failure_reason", "log_excerpt",
        "efficiency", "hardware", "probe_rows",
    ),
}


def _table(label):
    return apps.get_model(label)._meta.db_table


def _column(label, field_name):
    return apps.get_model(label)._meta.get_field(field_name).column


def planned_grants() -> dict[str, list]:
    """privilege -> tables (or, for column grants, (table, [columns]) pairs)."""
    readable = [model._meta.db_table for label in READ_APPS
                for model in apps.get_app_config(label).get_models(include_auto_created=True)]
    readable += [_table(label) for label in READ_MODELS]
    return {
        "SELECT": sorted(set(readable)),
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
    wanted |= {table for table, _columns in plan["UPDATE_COLUMNS"]}
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
    for table, columns in plan["UPDATE_COLUMNS"]:
        statements.append(f"GRANT UPDATE ({', '.join(quote(c) for c in columns)}) ON {quote(table)} TO {who}")
    return statements
