"""Readers turn files into RawRecords without judging their content (validation.py does that).

Layouts:
- a hub-layout folder (MBZUAI-LLM/Mobile-MMLU): one CSV per field, ``question_id,Question,A,B,C,D``,
  the topic taken from the file name;
- a single ``.csv`` / ``.jsonl`` / ``.parquet`` file with a ``topic`` column;
- an answer key CSV ``question_id,answer``.
"""
import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..models import OPTION_LETTERS
from .errors import ProblemCollector

TABLE_SUFFIXES = (".csv", ".jsonl", ".parquet")
TOPIC_COLUMNS = ("topic", "field", "subject")


@dataclass
class RawRecord:
    file: str
    row: int
    values: dict  # lower-cased column name -> raw value
    topic_label: str | None = None  # from the file name in the hub layout
    option_columns: list = field(default_factory=list)


def _check_size(path: Path, limit: int, problems: ProblemCollector) -> bool:
    size = path.stat().st_size
    if size > limit:
        problems.add(path, f"file is {size:,} bytes, over the import limit of {limit:,} bytes",
                      hint="split it into smaller files or raise IMPORT_MAX_FILE_BYTES")
        return False
    return True


def _decode(path: Path, data: bytes, problems: ProblemCollector) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = data[: exc.start].count(b"\n") + 1
        problems.add(path, f"undecodable bytes at byte offset {exc.start} (not UTF-8)", row=row,
                     hint="re-save the file as UTF-8")
        return None


def _normalise_header(name) -> str:
    return str(name).strip().lower()


def _csv_records(path: Path, text: str, problems: ProblemCollector, topic_label=None):
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        problems.add(path, "the file is empty", hint="add a header row and at least one question")
        return []
    header = [_normalise_header(h) for h in header]
    records, problems_before = [], len(problems.problems)
    for values in reader:
        if not any(v.strip() for v in values):
            continue  # blank line
        if len(values) != len(header):
            problems.add(path, f"{len(values)} cells but the header has {len(header)} columns",
                         row=reader.line_num, hint="quote cells that contain commas")
            continue
        records.append(RawRecord(str(path), reader.line_num, dict(zip(header, values)), topic_label))
    if not records and len(problems.problems) == problems_before:
        problems.add(path, "the file has a header but no questions", row=1)
    return records


def _jsonl_records(path: Path, text: str, problems: ProblemCollector):
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.add(path, f"invalid JSON ({exc.msg})", row=number, hint="one JSON object per line")
            continue
        if not isinstance(obj, dict):
            problems.add(path, "line is not a JSON object", row=number, hint="one JSON object per line")
            continue
        records.append(RawRecord(str(path), number, {_normalise_header(k): v for k, v in obj.items()}))
    return records


def _parquet_records(path: Path, problems: ProblemCollector):
    import pyarrow.parquet as pq  # only needed for Parquet input

    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        problems.add(path, f"not a readable Parquet file ({exc.__class__.__name__})",
                     hint="write it with pyarrow or pandas.DataFrame.to_parquet")
        return []
    return [RawRecord(str(path), n, {_normalise_header(k): v for k, v in row.items()})
            for n, row in enumerate(rows, start=1)]


def read_table_file(path: Path, *, max_bytes: int, problems: ProblemCollector, topic_label=None):
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        problems.add(path, f"unsupported file type {suffix or '(none)'}",
                     hint="use .csv, .jsonl or .parquet, or a folder in the hub layout")
        return []
    if not _check_size(path, max_bytes, problems):
        return []
    if suffix == ".parquet":
        return _parquet_records(path, problems)
    text = _decode(path, path.read_bytes(), problems)
    if text is None:
        return []
    if suffix == ".jsonl":
        return _jsonl_records(path, text, problems)
    return _csv_records(path, text, problems, topic_label)


def hub_folder_files(folder: Path, split: str, problems: ProblemCollector) -> list[Path]:
    """CSV files of a hub-layout folder: ``<split>/``, else ``test/``, else the folder's own CSVs.

    The public hub dataset keeps all its files under ``test/``; a leaderboard
    operator may also keep one sub-folder per split. Sub-folders come first so
    an answer key kept beside them is never read as questions.
    """
    folder = Path(folder)
    for candidate in (folder / split, folder / "test", folder):
        files = sorted(candidate.glob("*.csv")) if candidate.is_dir() else []
        if files:
            return files
    problems.add(folder, f"no CSV files found in the folder, in {split}/ or in test/",
                 hint="point --path at the dataset folder (hub layout: test/<field>.csv)")
    return []


def read_hub_folder(folder: Path, split: str, *, max_bytes: int, problems: ProblemCollector, progress):
    records = []
    for path in progress(hub_folder_files(folder, split, problems), "reading files"):
        records += read_table_file(path, max_bytes=max_bytes, problems=problems, topic_label=path.stem)
    return records


def read_answer_key(path: Path, *, max_bytes: int, problems: ProblemCollector) -> dict[str, tuple[str, int]]:
    """question_id -> (raw answer, row). Duplicate ids in the key are problems."""
    path = Path(path)
    if not path.is_file():
        problems.add(path, "answer key file not found")
        return {}
    if path.suffix.lower() != ".csv":
        problems.add(path, "the answer key must be a .csv file with columns question_id,answer")
        return {}
    records = read_table_file(path, max_bytes=max_bytes, problems=problems)
    key = {}
    for record in records:
        missing = [c for c in ("question_id", "answer") if c not in record.values]
        if missing:
            problems.add(path, f"missing column {missing[0]!r}", row=1,
                         hint="the answer key needs the columns question_id,answer")
            return {}
        qid = str(record.values["question_id"]).strip()
        if qid in key:
            problems.add(path, f"question_id {qid!r} appears twice in the answer key", row=record.row,
                         column="question_id", hint=f"first seen at row {key[qid][1]}; keep one")
            continue
        key[qid] = (str(record.values["answer"]), record.row)
    return key


def option_columns(columns) -> list[str]:
    """The lettered option columns present, in letter order (``a``..``j`` after normalising)."""
    return [letter for letter in OPTION_LETTERS.lower() if letter in columns]
