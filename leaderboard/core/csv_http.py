"""CSV over HTTP, written by leaderboard.core.csv's one writer: a streamed download and `?format=csv` of the API."""
from django.http import StreamingHttpResponse
from rest_framework.renderers import BaseRenderer

from .csv import csv_lines

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


class CSVRenderer(BaseRenderer):
    """`?format=csv` for views that hand over {"columns": [...], "rows": [{...}]}; an error body such as
    {"detail": "..."} becomes a one-column table."""
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, dict) and "rows" in data and "columns" in data:
            lines = csv_lines(data["columns"], data["rows"])
        else:
            detail = data.get("detail", data) if isinstance(data, dict) else data
            lines = csv_lines(["detail"], [{"detail": str(detail)}])
        return "".join(lines).encode(self.charset)
