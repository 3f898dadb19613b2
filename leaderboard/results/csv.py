"""Streaming CSV for the results tables, reusing the escaping of leaderboard.mrscore.renderers
(cells starting with = + - @ tab or CR get a leading ')."""
import csv

from django.http import StreamingHttpResponse

from leaderboard.mrscore.renderers import escape_cell

LEADERBOARD_COLUMNS = ["rank", "tied", "hub_id", "revision", "precision", "params", "size_class", "model_type",
                       "flagged", "possible_contamination", "reported", "source", "run_id", "n", "correct",
                       "accuracy", "ci95_low", "ci95_high", "ladder_note", "test_accuracy", "test_ci95_low",
                       "test_ci95_high", "test_grid", "delta", "order_spread", "latency_s", "peak_memory_bytes",
                       "energy_j_per_question", "template", "chat_template", "submitted_at", "scored_at"]


def leaderboard_csv(rows, *, categories):
    """(columns, rows) of the leaderboard CSV: a `category:<slug>` column per category (open splits)."""
    names = [f"category:{slug}" for slug in categories]

    def flat(row):
        cells = row.get("categories") or {}
        return {**row, **{f"category:{slug}": cells.get(slug) for slug in categories}}

    return LEADERBOARD_COLUMNS + names, (flat(row) for row in rows)


MODEL_COLUMNS = ["hub_id", "run_id", "benchmark", "benchmark_version", "split", "shots", "revision", "precision",
                 "variant", "level", "key", "name", "n", "correct", "accuracy", "ci95_low", "ci95_high"]
HISTORY_COLUMNS = ["run_id", "benchmark", "benchmark_version", "split", "shots", "variant", "revision", "precision",
                   "scored_at", "n", "correct", "accuracy", "ci95_low", "ci95_high", "previous_run_id",
                   "accuracy_change"]
TOPIC_COLUMNS = ["hub_id", "revision", "precision", "run_id", "benchmark", "split", "shots", "variant", "topic",
                 "topic_slug", "n", "correct", "accuracy", "ci95_low", "ci95_high"]


class _Echo:
    def write(self, value):
        return value


def csv_lines(columns, rows):
    writer = csv.writer(_Echo(), lineterminator="\n")
    yield writer.writerow(columns)
    for row in rows:
        yield writer.writerow([escape_cell(row.get(c)) for c in columns])


def _batched(lines, size=64 * 1024):
    """Join lines into ~64 KB pieces: one write (and one HTTP chunk) per row made a large table slow."""
    buffer, length = [], 0
    for line in lines:
        buffer.append(line)
        length += len(line)
        if length >= size:
            yield "".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer)


def streaming_csv(columns, rows, filename):
    response = StreamingHttpResponse(_batched(csv_lines(columns, rows)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
