#!/usr/bin/env bash
# Runs once, when the PostgreSQL volume is first initialised (/docker-entrypoint-initdb.d).
# Creates the GPU worker's login role with no table privileges; the web start script grants it
# exactly the tables it needs after each migrate (manage.py grant_worker_role).
set -euo pipefail
: "${GPU_WORKER_DB_PASSWORD:?set GPU_WORKER_DB_PASSWORD (docker/env.example)}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v role="${GPU_WORKER_DB_ROLE:-gpu_worker}" -v password="$GPU_WORKER_DB_PASSWORD" -v db="$POSTGRES_DB" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT CONNECTION LIMIT 20;
-- Connect to this database only, create nothing anywhere.
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"db" TO :"role";
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
