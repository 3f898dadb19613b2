from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand
from django.db import connections, transaction

from leaderboard.core.cli import refused
from leaderboard.evaluations.worker_role import grant_statements


class Command(BaseCommand):
    help = ("Give the GPU worker's PostgreSQL role exactly the table privileges it needs (idempotent; "
            "run after every migrate). The role must exist: docker/postgres-init/ creates it.")

    def add_arguments(self, parser):
        parser.add_argument("role", help="the GPU worker's role, e.g. gpu_worker")
        parser.add_argument("--database", default="default")
        parser.add_argument("--print", action="store_true", dest="print_only", help="print the SQL, change nothing")

    def handle(self, *args, role, database, print_only, **options):
        connection = connections[database]
        if connection.vendor != "postgresql":
            raise refused("NOT_POSTGRESQL", f"{connection.vendor} has no roles: the GPU worker role needs PostgreSQL.",
                          "Run it against the PostgreSQL database the GPU workers use (DATABASE_URL).", returncode=1)
        try:
            statements = grant_statements(role=role, quote=connection.ops.quote_name,
                                          existing_tables=connection.introspection.table_names())
        except ImproperlyConfigured as exc:
            raise refused("ROLE_CONFIG", str(exc), "Fix the role name or the settings it names.",
                          returncode=1) from None
        if print_only:
            self.stdout.write(";\n".join(statements) + ";")
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
            if cursor.fetchone() is None:
                raise refused("ROLE_NOT_FOUND", f"role {role!r} does not exist.",
                              "Create it first (docker/postgres-init/ does).", returncode=1)
        with transaction.atomic(using=database), connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
        self.stdout.write(f"granted {role}: {len(statements)} statement(s) (privileges and row policies).")
