# The compose `backup` service: PostgreSQL's own client tools (pg_dump, pg_restore, psql) of the server's major
# version, and age for the optional encryption at rest (docs/operations.md, "Backups and recovery").
FROM postgres:16-bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends age \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY docker/backup.sh docker/restore.sh docker/
