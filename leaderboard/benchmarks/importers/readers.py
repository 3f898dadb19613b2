"""Readers turn files into RawRecords without judging their content (validation.py does that).

Layouts (docs/operations.md, "Importing a benchmark", has them with their publishers' commands):
- a hub-layout folder (MBZUAI-LLM/Mobile-MMLU): one CSV per field, ``question_id,Question,A,B,C,D``,
  the topic taken from the file name (a file with a topic column keeps its own, e.g. Mobile-MMLU-Pro's
  root ``mobile-mmlu-pro.csv`` with ``Field``);
- a single ``.csv`` / ``.jsonl`` / ``.parquet`` file with a ``topic`` column (or ``field``, ``subject``, or
  MMLU-Pro's ``category``; MMLU-Pro's ``options`` list and ``answer_index`` are judged in validation.py);
- MMLU-CF's ``val/<Subject>_val.parquet|csv`` and ``dev/<Subject>_dev.parquet|csv`` (a file or a folder):
  ``Question,A,B,C,D,Answer`` with no question ids; the subject comes from the file name and each question
  gets the stable id ``<file stem>-<n>`` (its 1-based position in the file, the same in CSV and Parquet);
- an answer key CSV ``question_id,answer``.

Readers also refuse column layouts that would make a question's options (or any column) ambiguous:
duplicate or case/space-variant column names, a byte-order mark, and option columns that do not run
A, B, C, ... without gaps. Options are never renumbered: answer letters refer to the columns as named.
"""
import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..models import MAX_OPTIONS, OPTION_LETTERS
from .errors import ProblemCollector

TABLE_SUFFIXES = (".csv", ".jsonl", ".parquet")
FOLDER_SUFFIXES = (".csv", ".parquet")  # what a folder is read for (an answer key beside it is a CSV at its root)
TOPIC_COLUMNS = ("topic", "field", "subject", "category")  # the first present names the topic
# A publisher's folder per split, where its name differs from ours (MMLU-CF: val/, dev/).
SPLIT_FOLDERS = {"validation": "val"}
# MMLU-CF: <Subject>_val.parquet / <Subject>_dev.csv, the subject only in the file name.
SUBJECT_FILE = re.compile(r"(?P<subject>.+?)_(?:val|dev)", re.IGNORECASE)
# The hub's Parquet shards, <split>-00000-of-00001.parquet (MMLU-Pro: data/test-..., data/validation-...).
SHARD_FILE = re.compile(r"(?P<split>.+?)-\d{5}-of-\d{5}")
BOM = "\ufeff"
BOM_HINT = "save the file as UTF-8 without BOM (byte-order mark) and import it again"


@dataclass
class RawRecord:
    file: str
    row: int
    values: dict  # lower-cased column name -> raw value
    topic_label: str | None = None  # from the file name (hub layout, MMLU-CF) when the file has no topic column
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
        text = data.decode("utf-8")  # not utf-8-sig: a byte-order mark is refused below, never dropped silently
    except UnicodeDecodeError as exc:
        row = data[: exc.start].count(b"\n") + 1
        problems.add(path, f"undecodable bytes at byte offset {exc.start} (not UTF-8)", row=row,
                     hint="re-save the file as UTF-8")
        return None
    if text.startswith(BOM):
        if path.suffix.lower() == ".csv":  # name the header it would corrupt, e.g. '\ufeffquestion_id'
            first_column = next(csv.reader(io.StringIO(text[:1000].split("\n", 1)[0])), [""])[0]
            message = "the file starts with a UTF-8 byte-order mark (BOM), which would become part of the first " \
                      "column's name"
        else:
            first_column, message = None, "the file starts with a UTF-8 byte-order mark (BOM)"
        problems.add(path, message, row=1, column=first_column, hint=BOM_HINT)
        return None
    return text


def _normalise_header(name) -> str:
    return str(name).strip().lower()


def option_layout_problem(columns) -> tuple[str, str, str] | None:
    """(column, message, hint) when normalised column names would shift, drop or mix options; else None.

    Lettered option columns must run A, B, C, ... with no gaps: the answer key names options by the
    letters of the columns, so a file with columns A, B, D is refused, never read as A, B, C.
    """
    columns = set(columns)
    letters = sorted(c for c in columns if len(c) == 1 and c.isascii() and c.isalpha())
    in_range = [c for c in letters if c in OPTION_LETTERS.lower()]
    if not in_range:
        return None
    shown = ", ".join(c.upper() for c in letters)
    if "options" in columns:
        return ("options", f"both an 'options' list and option columns {shown}",
                "give the options one way only: as columns A, B, C, ... or as an 'options' list")
    beyond = [c.upper() for c in letters if c not in in_range]
    if beyond:
        return (beyond[0], f"option columns {shown}: column {beyond[0]} is past J; at most {MAX_OPTIONS} options "
                f"(A-J) are supported", f"remove or rename column {beyond[0]}; it would not be imported")
    for expected, letter in zip(OPTION_LETTERS, in_range):
        if letter.upper() != expected:
            return (expected, f"option columns {shown}: column {expected} is missing; options must be A, B, C, ... "
                    "with no gaps",
                    f"restore column {expected}: answer letters refer to the columns as named, so options are "
                    "never renumbered")
    return None


def column_problems(names, *, check_options=True) -> list[tuple[str, str, str]]:
    """(column, message, hint) for column names as written in a file (a header, a JSON object's keys).

    Names are matched ignoring case and surrounding spaces, so two names that differ only in those (or
    that repeat) are refused rather than one silently winning.
    """
    found, spellings = [], {}
    for name in names:
        text = str(name)
        if BOM in text:
            found.append((text, f"column name {text!r} contains a byte-order mark (U+FEFF)",
                          f"{BOM_HINT}; in a JSONL or Parquet file rename the column without it"))
        if text.strip():
            spellings.setdefault(_normalise_header(text), []).append(text)
    for variants in spellings.values():
        if len(variants) > 1:
            if len(set(variants)) == 1:
                message = f"column {variants[0]!r} appears {len(variants)} times"
            else:
                message = (f"columns {', '.join(map(repr, variants))} are the same column (names ignore case "
                           "and surrounding spaces)")
            found.append((variants[1], message, "keep one of them: the importer will not guess which holds the data"))
    if check_options and not found:
        problem = option_layout_problem(spellings)
        if problem:
            found.append(problem)
    return found


def _csv_records(path: Path, text: str, problems: ProblemCollector, check_options=True):
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        problems.add(path, "the file is empty", hint="add a header row and at least one question")
        return []
    bad_columns = column_problems(header, check_options=check_options)
    for column, message, hint in bad_columns:
        problems.add(path, message, row=reader.line_num, column=column, hint=hint)
    if bad_columns:
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
        records.append(RawRecord(str(path), reader.line_num, dict(zip(header, values))))
    if not records and len(problems.problems) == problems_before:
        problems.add(path, "the file has a header but no questions", row=1)
    return records


def _jsonl_records(path: Path, text: str, problems: ProblemCollector, check_options=True):
    records = []
    keys = []  # the keys of the last JSON object closed, duplicates kept: the line's own object closes last

    def keep_keys(pairs):
        keys[:] = [k for k, _ in pairs]
        return dict(pairs)

    bad_columns = {}  # (column, message, hint) -> [first line, lines]: one report per problem per file
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if line.startswith(BOM):
            problems.add(path, "the line starts with a UTF-8 byte-order mark (BOM)", row=number, hint=BOM_HINT)
            continue
        try:
            obj = json.loads(line, object_pairs_hook=keep_keys)
        except json.JSONDecodeError as exc:
            problems.add(path, f"invalid JSON ({exc.msg})", row=number, hint="one JSON object per line")
            continue
        if not isinstance(obj, dict):
            problems.add(path, "line is not a JSON object", row=number, hint="one JSON object per line")
            continue
        found = column_problems(keys, check_options=check_options)
        for problem in found:
            bad_columns.setdefault(problem, [number, 0])[1] += 1
        if not found:
            records.append(RawRecord(str(path), number, {_normalise_header(k): v for k, v in obj.items()}))
    for (column, message, hint), (first, count) in bad_columns.items():
        more = f" (the same on {count - 1} more line{'s' * (count != 2)})" if count > 1 else ""
        problems.add(path, message + more, row=first, column=column, hint=hint)
    return records


def _parquet_records(path: Path, problems: ProblemCollector, check_options=True):
    import pyarrow.parquet as pq  # only needed for Parquet input

    try:
        bad_columns = column_problems(pq.read_schema(path).names, check_options=check_options)
        for column, message, hint in bad_columns:
            problems.add(path, message, column=column, hint=hint)
        if bad_columns:
            return []
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        problems.add(path, f"not a readable Parquet file ({exc.__class__.__name__})",
                     hint="write it with pyarrow or pandas.DataFrame.to_parquet")
        return []
    return [RawRecord(str(path), n, {_normalise_header(k): v for k, v in row.items()})
            for n, row in enumerate(rows, start=1)]


def file_subject(path: Path) -> str | None:
    """The subject an MMLU-CF file name carries (``Computer_Science_val.parquet`` -> ``Computer_Science``)."""
    match = SUBJECT_FILE.fullmatch(Path(path).stem)
    return match["subject"] if match else None


def _name_the_records(path: Path, records, topic_from_name: bool):
    """What the file name says about records without their own columns: the topic (the hub layout's field
    file, MMLU-CF's subject file), and in MMLU-CF's layout, which has no question ids, a stable id."""
    subject = file_subject(path)
    label = subject or (path.stem if topic_from_name else None)
    for number, record in enumerate(records, start=1):
        if label and not any(column in record.values for column in TOPIC_COLUMNS):
            record.topic_label = label
        if subject and "question_id" not in record.values:
            record.values["question_id"] = f"{path.stem}-{number}"


def read_table_file(path: Path, *, max_bytes: int, problems: ProblemCollector, topic_from_name=False,
                    check_options=True):
    """Records of one file; ``check_options=False`` for files without options (an answer key);
    ``topic_from_name`` for a file of a hub-layout folder, whose name is its field."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        problems.add(path, f"unsupported file type {suffix or '(none)'}",
                     hint="use .csv, .jsonl or .parquet, or a folder in the hub layout")
        return []
    if not _check_size(path, max_bytes, problems):
        return []
    if suffix == ".parquet":
        records = _parquet_records(path, problems, check_options)
    else:
        text = _decode(path, path.read_bytes(), problems)
        if text is None:
            return []
        records = (_jsonl_records(path, text, problems, check_options) if suffix == ".jsonl"
                   else _csv_records(path, text, problems, check_options))
    if check_options:
        _name_the_records(path, records, topic_from_name)
    return records


def _files_in(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(p for p in folder.glob(pattern) if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES)
    except (ValueError, NotImplementedError):  # an absolute or empty pattern
        return []


def folder_files(folder: Path, split: str, problems: ProblemCollector, pattern: str | None = None) -> list[Path]:
    """The question files of a folder: those matching ``pattern`` (a glob under the folder, e.g.
    ``data/test-*.parquet``), else the CSV and Parquet files of ``<split>/``, the publisher's own folder for
    the split (MMLU-CF's ``val/``), ``test/`` (Mobile-MMLU's only folder), ``data/`` (the hub's Parquet
    shards) or the folder itself, the first that has any.

    Sub-folders come first so an answer key kept beside them is never read as questions. The same stem
    twice (``Biology_val.csv`` beside ``Biology_val.parquet``) and shards of several of the publisher's
    splits are refused: the importer will not guess which one is meant.
    """
    folder = Path(folder)
    if pattern:
        files = _files_in(folder, pattern)
        if not files:
            problems.add(folder, f"no .csv or .parquet file matches --files {pattern!r}",
                         hint="the pattern is a glob relative to the dataset's root, e.g. 'data/test-*.parquet'")
    else:
        candidates = [folder / split, folder / SPLIT_FOLDERS.get(split, split), folder / "test", folder / "data",
                      folder]
        files = next((found for candidate in candidates if candidate.is_dir() and (found := _files_in(candidate, "*"))),
                     [])
        if not files:
            problems.add(folder, f"no CSV or Parquet files found in the folder, in {split}/, "
                         f"{SPLIT_FOLDERS.get(split, split)}/, test/ or data/",
                         hint="point at the dataset folder (Mobile-MMLU: test/<field>.csv; MMLU-CF: val/ or dev/), "
                              "or at one file")
    return files if not _ambiguous_files(folder, files, problems) else []


def _ambiguous_files(folder: Path, files: list[Path], problems: ProblemCollector) -> bool:
    stems, shard_splits = {}, {}
    for path in files:
        stems.setdefault(path.stem.lower(), []).append(path)
        if (match := SHARD_FILE.fullmatch(path.stem)) and path.suffix.lower() == ".parquet":
            shard_splits.setdefault(match["split"], path)
    found = False
    for same in stems.values():
        if len(same) > 1:
            found = True
            problems.add(same[1], f"{same[0].name} and {same[1].name} hold the same file's questions twice",
                         hint="keep one of them (the publisher's CSV and Parquet copies are the same questions)")
    if len(shard_splits) > 1:
        found = True
        names = ", ".join(repr(name) for name in shard_splits)
        split, first = next(iter(shard_splits.items()))
        pattern = (first.parent.relative_to(folder) / f"{split}-*.parquet").as_posix()
        problems.add(first.parent, f"the folder holds the publisher's splits {names}; one import reads one split",
                     hint=f"pass one file (e.g. {first.name}), or choose it with --files '{pattern}'")
    return found


def read_folder(folder: Path, split: str, *, max_bytes: int, problems: ProblemCollector, progress, pattern=None):
    records = []
    for path in progress(folder_files(folder, split, problems, pattern), "reading files"):
        records += read_table_file(path, max_bytes=max_bytes, problems=problems, topic_from_name=True)
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
    records = read_table_file(path, max_bytes=max_bytes, problems=problems, check_options=False)
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
