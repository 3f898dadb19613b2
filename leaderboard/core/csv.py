"""CSV leaving the server, one way: one writer (`csv_lines`) for the streamed downloads and the DRF renderer of
`?format=csv` (both in csv_http.py, apart so that the parser of uploads imports no HTTP or DRF) and the export
command.

Cells are written by `escape_cell`: text starting with = + - @ tab or CR gets a leading ' so a spreadsheet never
evaluates it (docs/ARCHITECTURE.md §9), and so does such a character after a separator inside the text (`,` `;` tab `|`
or a line break, through spaces and quotes): a spreadsheet whose locale splits on `;` reads a comma file as one cell per
line, out of step with its quotes, and starts a cell after any `;` (`Tensor;=cmd|' /C calc'!A0` is written
`Tensor;'=cmd|' /C calc'!A0`). Quoting every text cell would not do it: such a reader takes the quotes for part of the
text once out of step, and splits inside them. Numbers stay numbers, booleans are true/false and None is empty. Uploads
refuse such cells instead (`formula_lead`). A nested API object becomes flat columns with `flatten`, never a repr in a
cell, and a list of plain values is one cell joined by ";" (`joined`), whether flattened or handed to the writer as is.
"""
import csv
import re
from collections.abc import Mapping


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_AFTER_SEPARATOR = re.compile(r"""([,;\t|\r\n][ \t"]*)(?=[=+\-@])""")  # where a split cell would start a formula


def formula_lead(text: str) -> str | None:
    """The first character of `text` when a spreadsheet would start a formula with it, else None."""
    return text[:1] if text[:1] in FORMULA_PREFIXES else None


def escape_cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, (list, tuple)):  # a row that was not flattened: the same cell as flatten's
        value = joined(value)
    text = _AFTER_SEPARATOR.sub(r"\1'", str(value))
    return "'" + text if formula_lead(text) else text


def joined(values) -> str:
    """A list as one cell: its values joined by ";" (None empty), never Python's repr of the list."""
    return ";".join("" if v is None else str(v) for v in values)


def flatten(value: Mapping, prefix: str = "") -> dict:
    """One CSV row of a JSON object: a nested object's fields become `<outer>_<inner>` columns, a list of plain values
    one cell joined by ";". A list of objects is left out: it is a table of its own (a view makes rows of it)."""
    row = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping):
            row.update(flatten(item, f"{name}_"))
        elif isinstance(item, (list, tuple)):
            if not any(isinstance(v, (Mapping, list, tuple)) for v in item):
                row[name] = joined(item)
        else:
            row[name] = item
    return row


class _Echo:
    def write(self, value):
        return value


def csv_lines(columns, rows):
    """The header, then one escaped line per row (a mapping; missing columns are empty)."""
    writer = csv.writer(_Echo(), lineterminator="\n")
    yield writer.writerow(columns)
    for row in rows:
        yield writer.writerow([escape_cell(row.get(c)) for c in columns])
