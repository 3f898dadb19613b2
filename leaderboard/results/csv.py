"""Streaming CSV for the results tables, reusing the escaping of leaderboard.mrscore.renderers
(cells starting with = + - @ tab or CR get a leading ')."""
import csv

from django.http import StreamingHttpResponse

from leaderboard.mrscore.renderers import escape_cell

LEADERBOARD_COLUMNS = ["rank", "tied", "hub_id", "revision", "precision", "params", "size_class", "model_type",
                       "flagged", "reported", "source", "run_id", "n", "correct", "accuracy", "ci95_low",
                       "ci95_high"]
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


def streaming_csv(columns, rows, filename):
    response = StreamingHttpResponse(csv_lines(columns, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
