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
from dataclasses import dataclass, field

from leaderboard.core.csv import formula_lead
from leaderboard.core.errors import DomainError

HEADER = ("question_id", "predicted_answer")
MAX_UPLOAD_BYTES = 5_000_000  # the library default; the site's limit is settings.PREDICTIONS_UPLOAD_MAX_BYTES
READ_CHUNK = 64 * 1024
SHOW_IDS = 5  # ids listed per summary ("e.g. ...")
SHOW_ROWS = 10  # rows listed per kind of row problem, then "... and N more"
TOO_LARGE_HINT = "a predictions file has one short row per question of the open split; nothing was stored"


class UploadError(DomainError, ValueError):
    """The upload was refused; ``problems`` lists every reason, ``str(error)`` is a readable message."""

    code = "UPLOAD_INVALID"

    def __init__(self, problems: list[str], *, filename: str = "upload.csv",
                 hint: str = "fix the file and upload it again; nothing was stored", **extra):
        self.problems, self.filename = list(problems), filename
        count = len(self.problems)
        message = (f"{filename} was refused ({count} problem{'s' if count != 1 else ''}):\n"
                   + "\n".join(f"- {problem}" for problem in self.problems))
        super().__init__(None, message, hint, **extra)


class UploadTooLarge(UploadError):
    """The file is over the size limit; ``size`` is its size, or the bytes read before stopping (a lower bound)."""

    code = "UPLOAD_TOO_LARGE"
    status = 413

    def __init__(self, *, size: int, max_bytes: int, filename: str = "upload.csv", at_least: bool = False):
        self.size, self.max_bytes = size, max_bytes
        super().__init__([too_large(size, max_bytes, at_least=at_least)], filename=filename, hint=TOO_LARGE_HINT,
                         max_bytes=max_bytes)


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
    return formula_lead(cell) or formula_lead(cell.lstrip(" "))


def _file_problem(data: bytes) -> str | None:
    """Problems that stop reading at once: emptiness, binary formats, encoding."""
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


def _csv_rows(text: str) -> tuple[list[tuple[int, list[str]]], list[str], bool]:
    """The non-blank rows, each with its row number; the problem of a CSV syntax error, and whether there was one
    (the rows after it are unknown, so nothing is "missing")."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    try:
        while True:
            start = reader.line_num + 1  # rows are numbered by their first line (a quoted cell may span lines)
            row = next(reader, None)
            if row is None:
                break
            if any(cell.strip() for cell in row):
                rows.append((start, row))
    except csv.Error as exc:
        return rows, [f"row {reader.line_num}: the CSV cannot be read from here on ({exc}); check the quotes "
                      "of this row (rows after it were not checked)"], True
    return rows, [], False


@dataclass
class _Findings:
    """What the prediction rows held: the predictions, and each kind of problem in row order."""

    formulas: list[str]
    predictions: dict[str, str] = field(default_factory=dict)
    first_row: dict[str, int] = field(default_factory=dict)
    duplicates: dict[str, list[int]] = field(default_factory=dict)
    unknown: list[tuple[int, str]] = field(default_factory=list)
    bad_letters: list[str] = field(default_factory=list)
    widths: list[str] = field(default_factory=list)
    empty_ids: list[str] = field(default_factory=list)


def _formula_cells(number: int, header: list[str], row: list[str], found: _Findings) -> set[int]:
    """The indexes of the row's cells that look like formulas (each one reported)."""
    flagged = set()
    for index, (column, cell) in enumerate(zip(header, row)):
        prefix = _formula_prefix(cell)
        if prefix:
            flagged.add(index)
            found.formulas.append(f"row {number}, column {column.strip()!r}: the cell starts with {prefix!r}; cells "
                                  "starting with =, +, -, @, a tab or a carriage return are refused (spreadsheet "
                                  "formulas): remove that character")
    return flagged


def _check_row(number: int, row: list[str], header: list[str], columns: tuple[int, int],
               questions: Mapping[str, int], found: _Findings) -> None:
    """One prediction row: its prediction, or the first problem that stops it."""
    id_col, answer_col = columns
    if len(row) != len(header):
        found.widths.append(f"row {number} has {len(row)} cell{'s' if len(row) != 1 else ''}, the header has "
                            f"{len(header)}; each row is question_id,predicted_answer")
        return
    flagged = _formula_cells(number, header, row, found)
    if id_col in flagged:
        return
    uid, raw = row[id_col].strip(), row[answer_col].strip()
    if not uid:
        found.empty_ids.append(f"row {number}: the question_id is empty")
        return
    if uid in found.first_row:
        found.duplicates.setdefault(uid, [found.first_row[uid]]).append(number)
        return
    found.first_row[uid] = number
    if uid not in questions:
        found.unknown.append((number, uid))
        return
    if answer_col in flagged:
        return
    allowed = _letters(questions[uid])
    letter = raw.upper()
    if len(letter) != 1 or letter not in allowed:
        shown = repr(raw) if raw else "an empty answer"
        found.bad_letters.append(f"row {number}, question_id {uid!r}: {shown} is not an option of this question; "
                                 f"use one letter {_span(allowed)}")
        return
    found.predictions[uid] = letter


def _row_problems(found: _Findings, questions: Mapping[str, int], *, complete: bool) -> list[str]:
    """The problems of the prediction rows, summarised; complete: every row was read, so absent ids are missing."""
    problems = _capped(found.widths, "rows with the wrong number of cells")
    problems += _capped(found.formulas, "cells that look like formulas")
    problems += _capped(found.empty_ids, "rows with an empty question_id")
    unknown, duplicates = found.unknown, found.duplicates
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
    problems += _capped(found.bad_letters, "rows whose answer is not one of the question's options")
    missing = [uid for uid in questions if uid not in found.first_row]
    if missing and complete:
        problems.append(f"{len(missing)} of the {len(questions)} questions of the open split have no row "
                        f"(e.g. {_quote_list(missing)}); every question needs exactly one predicted answer")
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
    if len(data) > max_bytes:  # the one size refusal, read_upload's: 413 UPLOAD_TOO_LARGE
        raise UploadTooLarge(size=len(data), max_bytes=max_bytes, filename=filename)
    stop = _file_problem(data)
    if stop:
        raise UploadError([stop], filename=filename)
    rows, problems, broken = _csv_rows(data.decode("utf-8-sig"))
    if not rows:
        raise UploadError(problems or [f"the file has no rows; it needs the header {','.join(HEADER)}"],
                          filename=filename)

    (_, header), body = rows[0], rows[1:]
    found = _Findings(formulas=[f"row 1, column {number}: the header cell starts with {prefix!r}; the header must "
                                f"be {','.join(HEADER)}"
                                for number, cell in enumerate(header, 1) if (prefix := _formula_prefix(cell))])
    problems[:0] = _header_problems(header, questions)
    names = [cell.strip().lower() for cell in header]
    if any(name not in names for name in HEADER) or any(names.count(name) > 1 for name in HEADER):
        raise UploadError(problems + found.formulas, filename=filename)  # rows cannot be read without their columns
    columns = names.index("question_id"), names.index("predicted_answer")
    if not body and not broken:
        problems.append(f"the file has a header but no prediction rows; it needs one row for each of the "
                        f"{len(questions)} questions")
    for number, row in body:
        _check_row(number, row, header, columns, questions, found)
    problems += _row_problems(found, questions, complete=bool(body) and not broken)
    if problems:
        raise UploadError(problems, filename=filename)
    return found.predictions
