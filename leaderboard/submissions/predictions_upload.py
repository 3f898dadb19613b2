"""A CSV of predicted answers for the open split, checked completely before anything is stored.

The file is ``question_id,predicted_answer`` with one row per question of the open split and one option letter
per row (case-insensitive, surrounding spaces ignored). ``parse_predictions_csv`` returns ``{uid: letter}`` or
raises ``UploadError`` listing every problem it found (not just the first), each naming the row, column, id
and fix, so one corrected upload is enough.

Pure functions: no Django models; the caller passes the open split's questions and the size limit.
``read_upload`` reads an uploaded file in bounded pieces and refuses it (``UploadTooLarge``) from its declared
size, or as soon as more than the limit has come in, so an oversize file is never held whole in memory.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Mapping

HEADER = ("question_id", "predicted_answer")
MAX_UPLOAD_BYTES = 5_000_000  # the library default; the site's limit is settings.PREDICTIONS_UPLOAD_MAX_BYTES
READ_CHUNK = 64 * 1024
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
SHOW_IDS = 5  # ids listed per summary ("e.g. ...")
SHOW_ROWS = 10  # rows listed per kind of row problem, then "... and N more"


class UploadError(ValueError):
    """The upload was refused; ``problems`` lists every reason, ``str(error)`` is a readable message."""

    def __init__(self, problems: list[str], *, filename: str = "upload.csv"):
        self.problems, self.filename = list(problems), filename
        count = len(self.problems)
        message = (f"{filename} was refused ({count} problem{'s' if count != 1 else ''}):\n"
                   + "\n".join(f"- {problem}" for problem in self.problems))
        super().__init__(message)
        self.message = message


class UploadTooLarge(UploadError):
    """The file is over the size limit; ``size`` is its size, or the bytes read before stopping (a lower bound)."""

    def __init__(self, *, size: int, max_bytes: int, filename: str = "upload.csv", at_least: bool = False):
        self.size, self.max_bytes = size, max_bytes
        super().__init__([too_large(size, max_bytes, at_least=at_least)], filename=filename)


def too_large(size: int, max_bytes: int, *, at_least: bool = False) -> str:
    return (f"the file is {'more than ' if at_least else ''}{size:,} bytes, over the limit of {max_bytes:,} bytes; "
            "upload only the two columns question_id,predicted_answer")


def read_upload(upload, *, max_bytes: int = MAX_UPLOAD_BYTES, filename: str | None = None,
                chunk_size: int = READ_CHUNK) -> bytes:
    """The bytes of an uploaded file (a Django ``UploadedFile`` or any binary file object), read ``chunk_size``
    bytes at a time. Refused with ``UploadTooLarge`` before any read when its declared ``size`` is over
    ``max_bytes``, and otherwise as soon as more than ``max_bytes`` bytes have been read: at most
    ``max_bytes + chunk_size`` bytes are ever held."""
    filename = filename or getattr(upload, "name", None) or "upload.csv"
    size = getattr(upload, "size", None)
    if isinstance(size, int) and size > max_bytes:
        raise UploadTooLarge(size=size, max_bytes=max_bytes, filename=filename)
    try:
        upload.seek(0)
    except (AttributeError, OSError, ValueError):
        pass  # a stream that cannot seek is read from where it is
    pieces, total = [], 0
    # read(n) in a loop, not chunks(): an in-memory upload's chunks() yields the whole file at once.
    for piece in iter(lambda: upload.read(chunk_size), b""):
        total += len(piece)
        if total > max_bytes:
            raise UploadTooLarge(size=max_bytes, max_bytes=max_bytes, filename=filename, at_least=True)
        pieces.append(piece)
    return b"".join(pieces)


def _letters(options: int) -> str:
    return "".join(chr(ord("A") + i) for i in range(max(0, min(int(options), 26))))


def _span(letters: str) -> str:
    return f"{letters[0]}-{letters[-1]}" if len(letters) > 1 else letters or "(none)"


def _quote_list(items, limit: int = SHOW_IDS) -> str:
    shown = ", ".join(repr(item) for item in items[:limit])
    return shown + (", ..." if len(items) > limit else "")


def _capped(lines: list[str], more: str) -> list[str]:
    if len(lines) <= SHOW_ROWS:
        return lines
    return lines[:SHOW_ROWS] + [f"... and {len(lines) - SHOW_ROWS} more {more}"]


def _formula_prefix(cell: str) -> str | None:
    """The dangerous first character of a cell (also after leading spaces), or None."""
    if cell[:1] in FORMULA_PREFIXES:
        return cell[:1]
    stripped = cell.lstrip(" ")
    return stripped[:1] if stripped[:1] in FORMULA_PREFIXES else None


def _file_problem(data: bytes, max_bytes: int) -> str | None:
    """Problems that stop reading at once: size, emptiness, binary formats, encoding."""
    if len(data) > max_bytes:
        return too_large(len(data), max_bytes)
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if not body.strip():
        return f"the file is empty; it needs the header {','.join(HEADER)} and one row per question"
    if data.startswith(b"PK\x03\x04") or data.startswith(b"\xd0\xcf\x11\xe0"):
        return "the file is a spreadsheet workbook (.xlsx/.xls), not CSV; save it as 'CSV UTF-8 (comma delimited)'"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "the file is UTF-16 text; save it as 'CSV UTF-8 (comma delimited)'"
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(data) - len(body))
        line = data[:offset].count(b"\n") + 1
        return (f"the file is not UTF-8 text (byte 0x{data[offset]:02x} at line {line}, byte offset {offset}); "
                "save it as 'CSV UTF-8 (comma delimited)'")
    if b"\x00" in body:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        return f"the file contains NUL bytes (first at line {line}); it is not a plain-text CSV"
    return None


def _header_problems(header: list[str], questions: Mapping[str, int]) -> list[str]:
    names = [cell.strip().lower() for cell in header]
    expected = ",".join(HEADER)
    problems = []
    if len(header) == 1 and any(sep in header[0] for sep in ";\t|"):
        sep = next(sep for sep in ";\t|" if sep in header[0])
        return [f"row 1 is one column separated by {sep!r}, not by commas; the header must be {expected} "
                "(save as 'CSV UTF-8 (comma delimited)')"]
    if header and header[0].strip() in questions:
        return [f"row 1 is a prediction ({header[0].strip()!r}), not the header; add the line {expected} "
                "at the top of the file"]
    missing = [name for name in HEADER if name not in names]
    extra = [cell.strip() for cell, name in zip(header, names) if name not in HEADER]
    if missing:
        problems.append(f"the header lacks the column{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(repr(m) for m in missing)}; the header must be exactly {expected}")
    if extra:
        shown = ", ".join(repr(e) if e else "an empty name (a trailing comma?)" for e in extra)
        problems.append(f"the header has unexpected column{'s' if len(extra) > 1 else ''} {shown}; "
                        f"the header must be exactly {expected}")
    for name in HEADER:
        if names.count(name) > 1:
            problems.append(f"the header names the column {name!r} {names.count(name)} times; "
                            f"the header must be exactly {expected}")
    return problems


def parse_predictions_csv(data: bytes, *, questions: Mapping[str, int], filename: str = "upload.csv",
                          max_bytes: int = MAX_UPLOAD_BYTES) -> dict[str, str]:
    """``{question uid: upper-case letter}`` for an uploaded predictions CSV, or ``UploadError``.

    ``questions`` maps every question id of the open split to its number of options (4 -> A-D). Every id
    must appear exactly once, with a letter among that question's options. Cells that start with '=', '+',
    '-', '@', a tab or a carriage return (also after spaces) are refused: they are spreadsheet formulas.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    data = bytes(data)
    stop = _file_problem(data, max_bytes)
    if stop:
        raise UploadError([stop], filename=filename)
    text = data.decode("utf-8-sig")

    problems: list[str] = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    broken = False  # a CSV syntax error: the rows after it are unknown, so nothing is "missing"
    try:
        while True:
            start = reader.line_num + 1  # rows are numbered by their first line (a quoted cell may span lines)
            row = next(reader, None)
            if row is None:
                break
            if any(cell.strip() for cell in row):
                rows.append((start, row))
    except csv.Error as exc:
        broken = True
        problems.append(f"row {reader.line_num}: the CSV cannot be read from here on ({exc}); check the quotes "
                        "of this row (rows after it were not checked)")
    if not rows:
        raise UploadError(problems or [f"the file has no rows; it needs the header {','.join(HEADER)}"],
                          filename=filename)

    (_, header), body = rows[0], rows[1:]
    formulas = [f"row 1, column {number}: the header cell starts with {prefix!r}; the header must be "
                f"{','.join(HEADER)}"
                for number, cell in enumerate(header, 1) if (prefix := _formula_prefix(cell))]
    header_problems = _header_problems(header, questions)
    problems[:0] = header_problems
    names = [cell.strip().lower() for cell in header]
    if any(name not in names for name in HEADER) or any(names.count(name) > 1 for name in HEADER):
        raise UploadError(problems + formulas, filename=filename)  # rows cannot be read without their columns
    id_col, answer_col = names.index("question_id"), names.index("predicted_answer")
    if not body and not broken:
        problems.append(f"the file has a header but no prediction rows; it needs one row for each of the "
                        f"{len(questions)} questions")

    predictions: dict[str, str] = {}
    first_row: dict[str, int] = {}
    duplicates: dict[str, list[int]] = {}
    unknown: list[tuple[int, str]] = []
    bad_letters, widths, empty_ids = [], [], []
    for number, row in body:
        if len(row) != len(header):
            widths.append(f"row {number} has {len(row)} cell{'s' if len(row) != 1 else ''}, the header has "
                          f"{len(header)}; each row is question_id,predicted_answer")
            continue
        flagged = set()
        for index, (column, cell) in enumerate(zip(header, row)):
            prefix = _formula_prefix(cell)
            if prefix:
                flagged.add(index)
                formulas.append(f"row {number}, column {column.strip()!r}: the cell starts with {prefix!r}; cells "
                                "starting with =, +, -, @, a tab or a carriage return are refused (spreadsheet "
                                "formulas): remove that character")
        if id_col in flagged:
            continue
        uid, raw = row[id_col].strip(), row[answer_col].strip()
        if not uid:
            empty_ids.append(f"row {number}: the question_id is empty")
            continue
        if uid in first_row:
            duplicates.setdefault(uid, [first_row[uid]]).append(number)
            continue
        first_row[uid] = number
        if uid not in questions:
            unknown.append((number, uid))
            continue
        if answer_col in flagged:
            continue
        allowed = _letters(questions[uid])
        letter = raw.upper()
        if len(letter) != 1 or letter not in allowed:
            shown = repr(raw) if raw else "an empty answer"
            bad_letters.append(f"row {number}, question_id {uid!r}: {shown} is not an option of this question; "
                               f"use one letter {_span(allowed)}")
            continue
        predictions[uid] = letter

    problems += _capped(widths, "rows with the wrong number of cells")
    problems += _capped(formulas, "cells that look like formulas")
    problems += _capped(empty_ids, "rows with an empty question_id")
    if unknown:
        shown = ", ".join(f"row {number} {uid!r}" for number, uid in unknown[:SHOW_IDS])
        problems.append(f"{len(unknown)} question_id{'s are' if len(unknown) > 1 else ' is'} not in the open split "
                        f"({shown}{', ...' if len(unknown) > SHOW_IDS else ''}); use the ids of the current open "
                        "split (download its questions again)")
    if duplicates:
        shown = "; ".join(f"{uid!r} on rows {', '.join(map(str, where))}"
                          for uid, where in list(duplicates.items())[:SHOW_IDS])
        more = f"; and {len(duplicates) - SHOW_IDS} more" if len(duplicates) > SHOW_IDS else ""
        problems.append(f"{len(duplicates)} question_id{'s appear' if len(duplicates) > 1 else ' appears'} more "
                        f"than once ({shown}{more}); keep exactly one row per question")
    problems += _capped(bad_letters, "rows whose answer is not one of the question's options")
    missing = [uid for uid in questions if uid not in first_row]
    if missing and body and not broken:
        problems.append(f"{len(missing)} of the {len(questions)} questions of the open split have no row "
                        f"(e.g. {_quote_list(missing)}); every question needs exactly one predicted answer")
    if problems:
        raise UploadError(problems, filename=filename)
    return predictions
