"""CSV for `?format=csv`. Views hand the renderer {"columns": [...], "rows": [{...}]}.

Text cells starting with = + - @ tab or CR are prefixed with ' so a spreadsheet never
evaluates them (ARCHITECTURE §9); numbers are written as numbers.
"""
import csv
import io

from rest_framework.renderers import BaseRenderer

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_LEADS) else text


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if isinstance(data, dict) and "rows" in data and "columns" in data:
            writer.writerow(data["columns"])
            for row in data["rows"]:
                writer.writerow([escape_cell(row.get(c)) for c in data["columns"]])
        else:  # an error body such as {"detail": "..."}
            writer.writerow(["detail"])
            detail = data.get("detail", data) if isinstance(data, dict) else data
            writer.writerow([escape_cell(str(detail))])
        return out.getvalue().encode(self.charset)
