"""Turn raw records into clean questions, or problems that say what to fix."""
import difflib
import json
import math
import re
from dataclasses import dataclass, field

from ..content_hashes import canonical_question
from ..models import MAX_OPTIONS, MIN_OPTIONS, OPTION_LETTERS
from .errors import ProblemCollector
from .readers import TOPIC_COLUMNS, RawRecord, option_columns, option_layout_problem

MAX_UID_LENGTH = 100
DROPPED_OPTION = "N/A"  # MMLU-Pro pads its options lists with it; its evaluation scripts drop it (preprocess)
EXTRA_COLUMNS = ("src", "cot_content")  # kept in Question.extra where present (MMLU-Pro)


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
    extra: dict = field(default_factory=dict)  # Question.extra: "src", "cot_content" where the file has them

    def canonical(self):
        return canonical_question(self)


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


def _published(value) -> str:
    """A cell of MMLU-Pro's list layout as published, stray spaces kept (its official prompt renders them); ""
    when blank. Other layouts' cells are stripped (_cell), as they always were, so their content hashes hold."""
    return str(value) if _cell(value) else ""


def _list_layout(record: RawRecord) -> bool:
    return "options" in record.values and not option_columns(record.values)


@dataclass(slots=True)
class _Options:
    texts: tuple[str, ...]  # what is stored, lettered A, B, ...
    dropped: tuple[int, ...] = ()  # 0-based positions of the "N/A" options dropped from a published list
    published: int = 0  # how many options the file lists; answer letters refer to these


def _options(record: RawRecord, problems: ProblemCollector) -> _Options | None:
    values = record.values
    layout = option_layout_problem(values)  # the readers refuse these per file; never renumber regardless
    if layout:
        column, message, hint = layout
        problems.add(record.file, message, row=record.row, column=column, hint=hint)
        return None
    if _list_layout(record):
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
        cells = [(OPTION_LETTERS[i] if i < len(OPTION_LETTERS) else f"#{i + 1}", _published(v))
                 for i, v in enumerate(raw)]
        while cells and not cells[-1][1]:
            cells.pop()
        # MMLU-Pro's lists carry "N/A" options that its scripts drop; validation refuses a drop that would
        # shift the answer's letter (_answer).
        dropped = tuple(i for i, (_, text) in enumerate(cells) if text == DROPPED_OPTION)
        published, cells = len(cells), [cell for cell in cells if cell[1] != DROPPED_OPTION]
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
        dropped, published = (), len(cells)
    after_drop = f" after dropping {len(dropped)} {DROPPED_OPTION!r} option(s)" if dropped else ""
    if len(cells) > MAX_OPTIONS:
        problems.add(record.file, f"{len(cells)} options{after_drop}; at most {MAX_OPTIONS} (A-J) are supported",
                     row=record.row, column="options", hint=f"give the question {MAX_OPTIONS} options or fewer")
        return None
    for letter, text in cells:
        if not text:
            problems.add(record.file, f"option {letter} is empty", row=record.row, column=letter,
                         hint="fill it in or remove the options after it")
            return None
    if len(cells) < MIN_OPTIONS:
        problems.add(record.file, f"{len(cells)} option(s){after_drop}; a question needs at least {MIN_OPTIONS}",
                     row=record.row, column="options" if "options" in values else "A",
                     hint=f"give it {MIN_OPTIONS} to {MAX_OPTIONS} options, or leave it out")
        return None
    return _Options(tuple(text for _, text in cells), dropped, published)


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


@dataclass
class _Pass:
    """What one validation pass carries from record to record."""

    matcher: TopicMatcher
    answer_key: dict  # uid -> (raw answer, row); an entry is taken when its question is seen
    answer_key_path: str
    problems: ProblemCollector
    sealed: bool
    seen: dict = field(default_factory=dict)  # uid -> (file, row) of its first record
    files_missing_columns: set = field(default_factory=set)
    files_unknown_field: set = field(default_factory=set)
    na_dropped: list = field(default_factory=list)  # per question that had any: how many "N/A" options dropped
    cot_dropped: int = 0  # sealed questions whose cot_content was not kept

    def shown(self, value) -> str:
        return "(value hidden: sealed split)" if self.sealed else repr(value)


def _has_columns(record: RawRecord, state: _Pass) -> bool:
    """The required columns, reported once per file."""
    values = record.values
    missing = [c for c in ("question_id", "question") if c not in values]
    if record.topic_label is None and not any(c in values for c in TOPIC_COLUMNS):
        missing.append("topic")
    if missing and record.file not in state.files_missing_columns:
        state.files_missing_columns.add(record.file)
        state.problems.add(record.file, f"missing column {missing[0]!r}", row=1, column=missing[0],
                           hint="required columns: question_id, question (or Question), options "
                                "A..J or 'options', and topic unless the file name is the field")
    return not missing


def _new_uid(record: RawRecord, state: _Pass) -> str | None:
    """The record's question_id if it is usable and new (it is then remembered), else None."""
    uid = _cell(record.values["question_id"])
    if not uid:
        state.problems.add(record.file, "empty question_id", row=record.row, column="question_id")
        return None
    if len(uid) > MAX_UID_LENGTH:
        state.problems.add(record.file, f"question_id longer than {MAX_UID_LENGTH} characters", row=record.row,
                           column="question_id")
        return None
    if uid in state.seen:
        first_file, first_row = state.seen[uid]
        state.problems.add(record.file, f"duplicate question_id {uid!r}", row=record.row, column="question_id",
                           hint=f"first seen in {first_file}, row {first_row}; ids must be unique")
        return None
    state.seen[uid] = (record.file, record.row)
    return uid


def _topic(record: RawRecord, state: _Pass):
    """The record's topic, or None (an unknown field named by the file name is reported once per file)."""
    label = record.topic_label
    if label is None:
        label = _cell(next(record.values[c] for c in TOPIC_COLUMNS if c in record.values))
    topic = state.matcher.find(label) if label else None
    if topic is not None:
        return topic
    if record.topic_label and record.file in state.files_unknown_field:
        return None  # one message per file is enough when the file name is the field
    state.files_unknown_field.add(record.file)
    suggestion = state.matcher.suggest(label)
    state.problems.add(record.file, f"unknown topic/field {label!r}", row=None if record.topic_label else record.row,
                       column=None if record.topic_label else "topic",
                       hint=f"did you mean {suggestion!r}?" if suggestion else "see the benchmark's taxonomy")
    return None


def _file_answer(record: RawRecord, state: _Pass) -> str | None:
    """The file's own answer ('' if none): its 'answer' column, checked against MMLU-Pro's 'answer_index' (the
    0-based position of the one correct option), or that index's letter alone. None after a problem."""
    in_file = _cell(record.values.get("answer"))
    raw_index = _cell(record.values["answer_index"]) if "answer_index" in record.values else ""
    if not raw_index:
        return in_file
    try:
        index = int(float(raw_index)) if float(raw_index).is_integer() else -1
    except ValueError:
        index = -1
    if not 0 <= index < len(OPTION_LETTERS):
        state.problems.add(record.file, f"answer_index {state.shown(raw_index)} is not an option position "
                                        f"0-{len(OPTION_LETTERS) - 1}", row=record.row, column="answer_index",
                           hint="answer_index counts the options from 0 (0 is A)")
        return None
    if in_file and parse_answer(in_file) != OPTION_LETTERS[index]:
        letter = "" if state.sealed else f" (option {OPTION_LETTERS[index]})"
        state.problems.add(record.file, f"answer {state.shown(in_file)} disagrees with answer_index "
                                        f"{state.shown(raw_index)}{letter}",
                           row=record.row, column="answer_index",
                           hint="correct one of them (answer_index counts from 0: 0 is A); the importer will not "
                                "guess which is right")
        return None
    return in_file or OPTION_LETTERS[index]


def _answer(record: RawRecord, state: _Pass, uid: str, options: _Options, in_key) -> str | None:
    """The answer letters from the answer key or the file's 'answer' column (never both, unless they agree)."""
    in_file = _file_answer(record, state)
    if in_file is None:
        return None
    if in_key is not None and in_file and parse_answer(in_file) != parse_answer(in_key[0]):
        state.problems.add(record.file, f"answer {state.shown(in_file)} disagrees with the answer key "
                                        f"({state.shown(in_key[0])})",
                           row=record.row, column="answer", hint="drop one of the two sources")
        return None
    raw_answer, source = (in_key[0], state.answer_key_path) if in_key else (in_file, record.file)
    row = in_key[1] if in_key else record.row
    if not raw_answer:
        state.problems.add(record.file, f"question {uid!r} has no answer", row=record.row,
                           hint="add it to the answer key (--answers) or an 'answer' column")
        return None
    answer = parse_answer(raw_answer)
    if answer is None:
        state.problems.add(source, f"answer {state.shown(raw_answer)} for {uid!r} is not option letters", row=row,
                           column="answer", hint="use one letter or several separated by commas, e.g. A or A,C")
        return None
    valid = OPTION_LETTERS[: options.published]  # letters name the options as the file lists them
    bad = [letter for letter in answer.split(",") if letter not in valid]
    if bad:
        letter = "(hidden: sealed split)" if state.sealed else bad[0]
        state.problems.add(source, f"answer letter {letter} for {uid!r} is not among its options A-{valid[-1]}",
                           row=row, column="answer", hint="check the key against the question's options")
        return None
    if options.dropped and options.dropped[0] <= max(OPTION_LETTERS.index(letter) for letter in answer.split(",")):
        where = "" if state.sealed else f" (option {OPTION_LETTERS[options.dropped[0]]})"
        state.problems.add(record.file, f"an {DROPPED_OPTION!r} option{where} comes at or before the answer "
                                        f"{state.shown(answer)}: dropping it, as MMLU-Pro's scripts drop "
                                        f"{DROPPED_OPTION!r} options, would shift the answer's letter",
                           row=record.row, column="options",
                           hint=f"replace the {DROPPED_OPTION!r} option by the option's text, or remove it and "
                                "correct answer and answer_index")
        return None
    return answer


def _extra(record: RawRecord, state: _Pass) -> dict:
    """Question.extra: the record's non-empty src and cot_content. A worked chain of thought states the answer,
    so it is never kept for the sealed split (counted, and the import's report says so)."""
    cell = _published if _list_layout(record) else _cell
    extra = {column: text for column in EXTRA_COLUMNS if column in record.values
             and (text := cell(record.values[column]))}
    if state.sealed and extra.pop("cot_content", None):
        state.cot_dropped += 1
    return extra


def _clean_record(record: RawRecord, state: _Pass) -> CleanQuestion | None:
    """One record as a clean question, or None with its first problem collected."""
    if not _has_columns(record, state):
        return None
    uid = _new_uid(record, state)
    if uid is None:
        return None
    in_key = state.answer_key.pop(uid, None)  # taken now so a row refused below isn't also "key without question"
    topic = _topic(record, state)
    if topic is None:
        return None
    text = (_published if _list_layout(record) else _cell)(record.values["question"])
    if not text:
        state.problems.add(record.file, "empty question", row=record.row, column="question")
        return None
    options = _options(record, state.problems)
    if options is None:
        return None
    answer = _answer(record, state, uid, options, in_key)
    if answer is None:
        return None
    if options.dropped:
        state.na_dropped.append(len(options.dropped))
    return CleanQuestion(
        uid=uid, topic_id=topic.pk, topic_key=topic.hub_field, text=text, options=options.texts, answer=answer,
        mrscore=_optional_float(record, "mrscore", state.problems, 1.0, 10.0),
        difficulty=_optional_float(record, "difficulty", state.problems, 0.0, 1.0), extra=_extra(record, state),
    )


def clean_records(records, *, topics, answer_key, answer_key_path, problems: ProblemCollector, sealed=False,
                  notes=None):
    """Validate every record; returns clean questions in input order (problems collected, not raised).

    For a sealed split, messages never repeat an answer value: errors end up in terminals and logs. What the
    import changed of the file's content, the report's business, is appended to ``notes`` (a list) if given.
    """
    state = _Pass(TopicMatcher(topics), answer_key, answer_key_path, problems, sealed)
    clean = [question for record in records if (question := _clean_record(record, state)) is not None]
    for uid, (_, row) in answer_key.items():
        problems.add(answer_key_path, f"answer key has question_id {uid!r} but no such question was imported",
                     row=row, column="question_id", hint="remove the row or add the question")
    if notes is not None and state.na_dropped:
        notes.append(f"Dropped {sum(state.na_dropped)} {DROPPED_OPTION!r} option(s) of {len(state.na_dropped)} "
                     "question(s), as MMLU-Pro's evaluation scripts do (no answer letter changed).")
    if notes is not None and state.cot_dropped:
        notes.append(f"cot_content of {state.cot_dropped} question(s) was not stored: a worked answer states the "
                     "answer, and this split is sealed (its answers are kept only encrypted).")
    return clean
