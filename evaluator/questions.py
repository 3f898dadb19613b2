"""Question records and the JSONL/CSV loader used by the CLI (and by Django imports).

A question file row needs `question_id`, `question`, options (columns `A`..`J`
or an `options` list), and may carry `answer` ("A" or "A,C") and `topic`.
Errors name the file, the row and the column so a benchmark operator can fix
the file without reading code.
"""
from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

LETTERS = "ABCDEFGHIJ"
MIN_OPTIONS, MAX_OPTIONS = 2, len(LETTERS)


class QuestionFileError(ValueError):
    """A question file (or record) that cannot be used; the message says where."""

    code = "QUESTION_FILE_INVALID"


@dataclass(frozen=True)
class Question:
    question_id: str
    question: str
    options: tuple[str, ...]
    answer: frozenset[str] | None = None  # letters; None = unknown (sealed / unlabelled)
    topic: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def letters(self) -> str:
        return LETTERS[: len(self.options)]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["options"] = list(self.options)
        d["answer"] = sorted(self.answer) if self.answer is not None else None
        return d


def parse_answer(value: Any, n_options: int, where: str) -> frozenset[str] | None:
    """'A' / 'A,C' / 'a c' / ['A','C'] / 0-based int -> frozenset of letters."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise QuestionFileError(f"{where}, column 'answer': expected letters, got {value!r}")
    if isinstance(value, int):
        parts = [LETTERS[value]] if 0 <= value < n_options else [str(value)]
    elif isinstance(value, (list, tuple)):
        parts = [str(v).strip().upper() for v in value]
    else:
        parts = [p.strip().upper() for p in str(value).replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    valid = LETTERS[:n_options]
    bad = [p for p in parts if p not in valid]
    if bad or not parts:
        raise QuestionFileError(
            f"{where}, column 'answer': {value!r} is not one or more of the letters {','.join(valid)}"
        )
    return frozenset(parts)


def question_from_record(rec: dict[str, Any], where: str) -> Question:
    """Build a Question from a dict (a JSONL object or a CSV row)."""
    rec = {str(k).strip(): v for k, v in rec.items() if k is not None}
    lower = {k.lower(): k for k in rec}

    def get(name: str) -> Any:
        key = lower.get(name.lower())
        return rec.get(key) if key is not None else None

    qid = get("question_id")
    if qid is None or str(qid).strip() == "":
        raise QuestionFileError(f"{where}, column 'question_id': missing or empty")
    text = get("question")
    if text is None or not str(text).strip():
        raise QuestionFileError(f"{where}, column 'question': missing or empty")

    if get("options") is not None:
        opts = get("options")
        if isinstance(opts, str):  # CSV cell holding a JSON list
            opts = _json(opts, f"{where}, column 'options': not a JSON list")
        if not isinstance(opts, list):
            raise QuestionFileError(f"{where}, column 'options': expected a list, got {type(opts).__name__}")
        options = [str(o) if o is not None else "" for o in opts]
    else:
        # Letter columns must be contiguous from A: a gap (A,B,D) is an error, not a 2-option question.
        options = []
        for i, letter in enumerate(LETTERS):
            v = rec.get(letter) if letter in rec else rec.get(letter.lower())
            if v is None or (isinstance(v, str) and v.strip() == ""):
                later = [L for L in LETTERS[i + 1:] if str(rec.get(L) or rec.get(L.lower()) or "").strip()]
                if later:
                    raise QuestionFileError(f"{where}, column '{letter}': empty while column '{later[0]}' is set")
                break
            options.append(str(v))
    for i, o in enumerate(options):
        if not o.strip():
            raise QuestionFileError(f"{where}, column 'options': option {LETTERS[i] if i < 10 else i} is empty")
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise QuestionFileError(
            f"{where}, columns 'A'..'J'/'options': {len(options)} options, need {MIN_OPTIONS}..{MAX_OPTIONS}"
        )
    answer = parse_answer(get("answer"), len(options), where)
    topic = get("topic")
    known = {"question_id", "question", "options", "answer", "topic", *[L.lower() for L in LETTERS]}
    extra = {k: v for k, v in rec.items() if k.lower() not in known}
    return Question(str(qid).strip(), str(text), tuple(options), answer, str(topic or "").strip(), extra)


def _json(text: str, refusal: str) -> Any:
    """The parsed JSON, or a QuestionFileError saying where and why (the parser's reason in brackets)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise QuestionFileError(f"{refusal} ({exc.msg})") from None


def _records(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                obj = _json(line, f"{path}: line {lineno}: invalid JSON")
                if not isinstance(obj, dict):
                    raise QuestionFileError(f"{path}: line {lineno}: expected a JSON object")
                yield lineno, obj
    elif suffix in (".csv", ".tsv"):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ",")
            if not reader.fieldnames:
                raise QuestionFileError(f"{path}: empty CSV (no header row)")
            for rowno, row in enumerate(reader, 2):  # row 1 is the header
                if None in row:
                    raise QuestionFileError(f"{path}: row {rowno}: more cells than header columns")
                yield rowno, row
    else:
        raise QuestionFileError(f"{path}: unsupported file type {suffix!r} (use .jsonl or .csv)")


def load_questions(path: str | Path) -> list[Question]:
    """Load and validate a JSONL or CSV question file; question ids must be unique."""
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(f"{path}: no such file")
    kind = "line" if path.suffix.lower() in (".jsonl", ".ndjson", ".json") else "row"
    out: list[Question] = []
    seen: dict[str, int] = {}
    for n, rec in _records(path):
        where = f"{path}: {kind} {n}"
        q = question_from_record(rec, where)
        if q.question_id in seen:
            raise QuestionFileError(
                f"{where}, column 'question_id': duplicate id {q.question_id!r} (first at {kind} {seen[q.question_id]})"
            )
        seen[q.question_id] = n
        out.append(q)
    if not out:
        raise QuestionFileError(f"{path}: no questions")
    return out
