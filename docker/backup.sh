#!/usr/bin/env bash
# usage: backup.sh [--loop]
# One pg_dump -Fc (custom format: compressed, restored table by table with pg_restore) of DATABASE_URL into
# BACKUP_DIR, read back to its end with pg_restore --list before it counts, with a .sha256 beside it; then only
# the newest BACKUP_KEEP are kept. docs/operations.md, "Backups and recovery".
#   --loop   the compose `backup` service: one at once if BACKUP_DIR holds none, then one a day at BACKUP_AT (UTC)
# Settings (environment): DATABASE_URL (required), BACKUP_DIR (/backups), BACKUP_KEEP (14),
#   BACKUP_AT (03:00), BACKUP_AGE_RECIPIENTS (empty: not encrypted; else age public keys, space-separated: each
#   dump is encrypted to them and only their private keys, kept off this host, can read it).
# SEALED_ANSWER_KEYS is never here: the keys live in docker/.env, not in the database, so no dump holds them.
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL (postgresql://user:password@host:port/database)}"
dir="${BACKUP_DIR:-/backups}"
keep="${BACKUP_KEEP:-14}"
at="${BACKUP_AT:-03:00}"
recipients="${BACKUP_AGE_RECIPIENTS:-}"
prefix="leaderboard-"
tmp=""

case "$keep" in ''|*[!0-9]*|0) echo "BACKUP_KEEP must be a whole number of backups, 1 or more (got '$keep')" >&2; exit 2;; esac

backup_once() {
  mkdir -p "$dir"
  local started name
  started=$(date -u +%s)
  name="$prefix$(date -u +%Y%m%dT%H%M%SZ).dump"
  tmp="$dir/.$name.partial"
  trap 'rm -f "$tmp" "$tmp.age"' EXIT
  pg_dump --format=custom --dbname="$DATABASE_URL" --file="$tmp"
  pg_restore --list "$tmp" >/dev/null  # a truncated or unreadable dump fails here, not on the day it is needed
  if [ -n "$recipients" ]; then
    local args=()
    for recipient in $recipients; do args+=(-r "$recipient"); done
    age "${args[@]}" -o "$tmp.age" "$tmp"
    mv "$tmp.age" "$tmp"
    name="$name.age"
  fi
  printf '%s  %s\n' "$(sha256sum <"$tmp" | cut -d' ' -f1)" "$name" >"$dir/$name.sha256"  # sha256sum -c reads it
  mv "$tmp" "$dir/$name"
  prune
  echo "backup: $dir/$name, $(stat -c %s "$dir/$name") bytes in $(($(date -u +%s) - started)) s"
}

prune() {
  # Names sort by their UTC time: all but the newest $keep go, with their checksums.
  local old
  find "$dir" -maxdepth 1 -type f \( -name "$prefix*.dump" -o -name "$prefix*.dump.age" \) -printf '%f\n' \
    | sort -r | tail -n +"$((keep + 1))" | while read -r old; do
      rm -f "$dir/$old" "$dir/$old.sha256"
      echo "backup: removed $old (BACKUP_KEEP=$keep)"
    done
}

if [ "${1:-}" != "--loop" ]; then
  backup_once
  exit 0
fi
if [ -z "$(find "$dir" -maxdepth 1 -name "$prefix*.dump*" -print -quit 2>/dev/null)" ]; then
  "$0" || echo "backup: FAILED at $(date -u +%FT%TZ)" >&2
fi
while true; do
  now=$(date -u +%s)
  next=$(date -u -d "today $at" +%s)
  [ "$next" -gt "$now" ] || next=$(date -u -d "tomorrow $at" +%s)
  sleep "$((next - now))"
  # A separate process, so that set -e stops a failing one. A failed night is logged and retried the next night; the healthcheck turns red after 26 hours without one.
  "$0" || echo "backup: FAILED at $(date -u +%FT%TZ); the previous backups are kept" >&2
done
