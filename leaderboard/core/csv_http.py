"""CSV over HTTP, written by leaderboard.core.csv's one writer: a streamed download and `?format=csv` of the API."""
from collections.abc import Mapping

from django.http import StreamingHttpResponse
from rest_framework.renderers import BaseRenderer

from .csv import csv_lines, flatten

STREAM_PIECE = 64 * 1024  # characters per streamed piece


def _batched(lines, size=STREAM_PIECE):
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
    """A download of `rows` as CSV, written as the rows are read."""
    response = StreamingHttpResponse(_batched(csv_lines(columns, rows)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _flat_table(data):
    """Columns and rows of any other body: an object is one row, a list one row per item, each flattened."""
    rows = [flatten(item) if isinstance(item, Mapping) else {"value": item}
            for item in (data if isinstance(data, list) else [data])]
    return list(dict.fromkeys(name for row in rows for name in row)), rows


class CSVRenderer(BaseRenderer):
    """`?format=csv` for views that hand over {"columns": [...], "rows": [{...}]}; an error body such as
    {"detail": "..."} becomes a one-column table, and any other body flat rows (never a dict's repr in a cell)."""
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, dict) and "rows" in data and "columns" in data:
            lines = csv_lines(data["columns"], data["rows"])
        elif isinstance(data, dict) and "detail" in data:
            lines = csv_lines(["detail"], [{"detail": str(data["detail"])}])
        else:
            lines = csv_lines(*_flat_table(data))
        return "".join(lines).encode(self.charset)
