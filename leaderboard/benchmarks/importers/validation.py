"""Turn raw records into clean questions, or problems that say what to fix."""
import difflib
import json
import math
import re
from dataclasses import dataclass

from ..models import MAX_OPTIONS, MIN_OPTIONS, OPTION_LETTERS
from .errors import ProblemCollector
from .readers import TOPIC_COLUMNS, RawRecord, option_columns, option_layout_problem

MAX_UID_LENGTH = 100


@dataclass(frozen=True)
class CleanQuestion:
    uid: str
    topic_id: int
    topic_key: str  # the topic's hub_field, used in the content hash
    text: str
    options: tuple[str, ...]
    answer: str  # sorted letters joined by commas, e.g. "A" or "A,C"
    mrscore: float | None
    difficulty: float | None

    def canonical(self):
        return [self.uid, self.topic_key, self.text, list(self.options), self.answer, self.mrscore, self.difficulty]


def _loose(label: str) -> str:
    """Lenient key: case, spaces, punctuation and doubled underscores don't matter."""
    return re.sub(r"[^a-z0-9]+", "", label.lower())


class TopicMatcher:
    """Finds a topic by hub field, name or slug, leniently; suggests the nearest for unknown labels."""

    def __init__(self, topics):
        self._by_key = {}
        self._names = []
        for topic in topics:
            for label in (topic.hub_field, topic.name, topic.slug):
                self._by_key.setdefault(_loose(label), topic)
            self._names += [topic.hub_field, topic.name]

    def find(self, label: str):
        return self._by_key.get(_loose(label))

    def suggest(self, label: str) -> str:
        close = difflib.get_close_matches(label, self._names, n=1, cutoff=0.4)
        if not close:
            close = difflib.get_close_matches(label.lower(), [n.lower() for n in self._names], n=1, cutoff=0.0)
        return close[0] if close else ""


def parse_answer(raw) -> str | None:
    """'A', 'a', 'A,C', 'A, C', 'A;C', 'AC' or a list of letters → 'A,C'. None if not letters."""
    if isinstance(raw, (list, tuple)):
        raw = ",".join(str(x) for x in raw)
    text = re.sub(r"[\s,;|]+", "", str(raw or "")).upper()
    if not text or any(ch not in OPTION_LETTERS for ch in text):
        return None
    return ",".join(sorted(set(text)))


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def _options(record: RawRecord, problems: ProblemCollector):
    values = record.values
    layout = option_layout_problem(values)  # the readers refuse these per file; never renumber regardless
    if layout:
        column, message, hint = layout
        problems.add(record.file, message, row=record.row, column=column, hint=hint)
        return None
    if "options" in values and not option_columns(values):
        raw = values["options"]
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError:
                problems.add(record.file, "options is not a JSON list of strings", row=record.row,
                             column="options", hint='write it as ["first", "second", ...]')
                return None
        if not isinstance(raw, (list, tuple)):
            problems.add(record.file, "options is not a list", row=record.row, column="options")
            return None
        cells = [(OPTION_LETTERS[i] if i < len(OPTION_LETTERS) else f"#{i + 1}", _cell(v)) for i, v in enumerate(raw)]
        while cells and not cells[-1][1]:
            cells.pop()
    else:
        letters = option_columns(values)
        if not letters:
            problems.add(record.file, "missing option columns", row=1, column="A",
                         hint="give options as columns A, B, C, ... (up to J) or as an 'options' list")
            return None
        cells = [(letter.upper(), _cell(values[letter])) for letter in letters]
        # Shorter questions in a wide file leave trailing option cells empty.
        while cells and not cells[-1][1]:
            cells.pop()
    if len(cells) > MAX_OPTIONS:
        problems.add(record.file, f"{len(cells)} options; at most {MAX_OPTIONS} (A-J) are supported",
                     row=record.row, column="options")
        return None
    for letter, text in cells:
        if not text:
            problems.add(record.file, f"option {letter} is empty", row=record.row, column=letter,
                         hint="fill it in or remove the options after it")
            return None
    if len(cells) < MIN_OPTIONS:
        problems.add(record.file, f"{len(cells)} option(s); a question needs at least {MIN_OPTIONS}",
                     row=record.row, column="A")
        return None
    return tuple(text for _, text in cells)


def _optional_float(record, column, problems, low, high):
    raw = _cell(record.values.get(column))
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        problems.add(record.file, f"{column} {raw!r} is not a number in {low}..{high}", row=record.row,
                     column=column, hint="leave it empty if unknown")
        return None
    return value


def clean_records(records, *, topics, answer_key, answer_key_path, problems: ProblemCollector, sealed=False):
    """Validate every record; returns clean questions in input order (problems collected, not raised).

    For a sealed split, messages never repeat an answer value: errors end up in terminals and logs.
    """
    def shown(value):
        return "(value hidden: sealed split)" if sealed else repr(value)

    matcher = TopicMatcher(topics)
    seen: dict[str, tuple[str, int]] = {}
    reported_missing_columns, unknown_field_files = set(), set()
    clean = []
    for record in records:
        values = record.values
        missing = [c for c in ("question_id", "question") if c not in values]
        if record.topic_label is None and not any(c in values for c in TOPIC_COLUMNS):
            missing.append("topic")
        if missing:
            if record.file not in reported_missing_columns:
                reported_missing_columns.add(record.file)
                problems.add(record.file, f"missing column {missing[0]!r}", row=1, column=missing[0],
                             hint="required columns: question_id, question (or Question), options "
                                  "A..J or 'options', and topic unless the file name is the field")
            continue

        uid = _cell(values["question_id"])
        if not uid:
            problems.add(record.file, "empty question_id", row=record.row, column="question_id")
            continue
        if len(uid) > MAX_UID_LENGTH:
            problems.add(record.file, f"question_id longer than {MAX_UID_LENGTH} characters", row=record.row,
                         column="question_id")
            continue
        if uid in seen:
            first_file, first_row = seen[uid]
            problems.add(record.file, f"duplicate question_id {uid!r}", row=record.row, column="question_id",
                         hint=f"first seen in {first_file}, row {first_row}; ids must be unique")
            continue
        seen[uid] = (record.file, record.row)
        in_key = answer_key.pop(uid, None)  # taken now so a row refused below isn't also "key without question"

        label = record.topic_label
        if label is None:
            label = _cell(next(values[c] for c in TOPIC_COLUMNS if c in values))
        topic = matcher.find(label) if label else None
        if topic is None:
            if record.topic_label and record.file in unknown_field_files:
                continue  # one message per file is enough when the file name is the field
            unknown_field_files.add(record.file)
            suggestion = matcher.suggest(label)
            problems.add(record.file, f"unknown topic/field {label!r}", row=None if record.topic_label else record.row,
                         column=None if record.topic_label else "topic",
                         hint=f"did you mean {suggestion!r}?" if suggestion else "see the benchmark's taxonomy")
            continue

        text = _cell(values["question"])
        if not text:
            problems.add(record.file, "empty question", row=record.row, column="question")
            continue
        options = _options(record, problems)
        if options is None:
            continue

        in_file = _cell(values.get("answer"))
        if in_key is not None and in_file and parse_answer(in_file) != parse_answer(in_key[0]):
            problems.add(record.file, f"answer {shown(in_file)} disagrees with the answer key ({shown(in_key[0])})",
                         row=record.row, column="answer", hint="drop one of the two sources")
            continue
        raw_answer, source, column = (in_key[0], answer_key_path, "answer") if in_key else (in_file, record.file, "answer")
        if not raw_answer:
            problems.add(record.file, f"question {uid!r} has no answer", row=record.row,
                         hint="add it to the answer key (--answers) or an 'answer' column")
            continue
        answer = parse_answer(raw_answer)
        if answer is None:
            problems.add(source, f"answer {shown(raw_answer)} for {uid!r} is not option letters",
                         row=in_key[1] if in_key else record.row, column=column,
                         hint="use one letter or several separated by commas, e.g. A or A,C")
            continue
        valid = OPTION_LETTERS[: len(options)]
        bad = [letter for letter in answer.split(",") if letter not in valid]
        if bad:
            letter = "(hidden: sealed split)" if sealed else bad[0]
            problems.add(source, f"answer letter {letter} for {uid!r} is not among its options A-{valid[-1]}",
                         row=in_key[1] if in_key else record.row, column=column,
                         hint="check the key against the question's options")
            continue

        clean.append(CleanQuestion(
            uid=uid, topic_id=topic.pk, topic_key=topic.hub_field, text=text, options=options, answer=answer,
            mrscore=_optional_float(record, "mrscore", problems, 1.0, 10.0),
            difficulty=_optional_float(record, "difficulty", problems, 0.0, 1.0),
        ))

    for uid, (_, row) in answer_key.items():
        problems.add(answer_key_path, f"answer key has question_id {uid!r} but no such question was imported",
                     row=row, column="question_id", hint="remove the row or add the question")
    return clean
