#!/usr/bin/env bash
# usage: restore.sh BACKUP_FILE
# Restores a dump made by backup.sh into DATABASE_URL, which must name an empty database (a new host's fresh
# `leaderboard` database, or one made with createdb). docs/operations.md, "Backups and recovery".
# Checks the dump's .sha256 when it is there; a .age file is decrypted with BACKUP_AGE_IDENTITY (the path of the
# age private key, kept off the backup host). All or nothing: one transaction, stopped at the first error.
# Owners and grants are not restored: the restoring role owns everything, and the web container's start
# (migrate, grant_worker_role) grants the GPU worker's role its tables again.
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL to the empty database to restore into}"
file="${1:?usage: restore.sh BACKUP_FILE}"
[ -f "$file" ] || { echo "restore: no such backup file: $file" >&2; exit 2; }

if [ -f "$file.sha256" ]; then
  (cd "$(dirname "$file")" && sha256sum --check --quiet "$(basename "$file").sha256") \
    || { echo "restore: $file does not match its .sha256: the copy is damaged; take another backup" >&2; exit 2; }
fi

tables=$(psql "$DATABASE_URL" -X -A -t -v ON_ERROR_STOP=1 \
  -c "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")
if [ "$tables" != "0" ]; then
  echo "restore: the database of DATABASE_URL already holds $tables tables; restore into an empty one" \
       "(a new host's fresh volume, or: createdb NAME)" >&2
  exit 2
fi

plain="$file"
cleanup=""
trap 'if [ -n "$cleanup" ]; then rm -f "$cleanup"; fi' EXIT
if [[ "$file" == *.age ]]; then
  : "${BACKUP_AGE_IDENTITY:?$file is encrypted: set BACKUP_AGE_IDENTITY to the path of its age private key}"
  plain=$(mktemp "${TMPDIR:-/tmp}/restore.XXXXXX.dump")
  cleanup="$plain"
  age --decrypt -i "$BACKUP_AGE_IDENTITY" -o "$plain" "$file"
fi

started=$(date -u +%s)
pg_restore --exit-on-error --single-transaction --no-owner --no-acl --dbname="$DATABASE_URL" "$plain"
psql "$DATABASE_URL" -X -q -v ON_ERROR_STOP=1 -c "ANALYZE"  # planner statistics are not in a dump
echo "restore: $file restored in $(($(date -u +%s) - started)) s. Next: start the stack (the web container migrates" \
     "and grants the GPU worker's role; beat's sweeper and reconciler put interrupted runs back on the queue)," \
     "then the checks in docs/operations.md, \"After a restore\"."
