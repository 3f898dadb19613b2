"""CSV formula cells (issue 31, finding 9): a spreadsheet never starts a formula inside a cell of ours, whichever
character its locale splits CSV on (`,`, `;`, a tab, `|`): a formula character at the start of a text cell, or after a
separator inside it, is escaped with a leading ' (core/csv.py). Python's quote-aware reader stands in for the
spreadsheet; read with another delimiter than the writer's, it gets out of step with the quotes, as a spreadsheet does."""
import csv
import io

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.core.csv import FORMULA_PREFIXES, csv_lines
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.submissions.models import ModelEntry, Submission

EXAMPLE = "Tensor;=cmd|' /C calc'!A0"
PAYLOADS = [EXAMPLE, "a,=1+2", "x;+SUM(A1)", "tab\t-2+3", "pipe|@SUM(1)", "line\n=HYPERLINK(\"http://x\")",
            "=2+5", "'quoted;=1", 'say "hi";=1', "plain text"]
DELIMITERS = [",", ";", "\t", "|"]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def formula_cells(text: str) -> list[str]:
    """The cells a spreadsheet splitting `text` on each delimiter would start as a formula (quote-aware, as they are)."""
    found = []
    for delimiter in DELIMITERS:
        for row in csv.reader(io.StringIO(text), delimiter=delimiter):
            found += [cell for cell in row if cell[:1] in FORMULA_PREFIXES and not _is_number(cell)]
    return found


def test_no_cell_of_a_row_starts_a_formula_whatever_the_delimiter():
    columns = [f"c{i}" for i in range(len(PAYLOADS))] + ["n", "negative", "ratio", "flag", "none"]
    row = {**{f"c{i}": text for i, text in enumerate(PAYLOADS)}, "n": 480, "negative": -74.0, "ratio": 0.5,
           "flag": True, "none": None}
    text = "".join(csv_lines(columns, [row]))
    assert formula_cells(text) == []
    header, parsed = csv.reader(io.StringIO(text))  # and it reads back, one cell per column, numbers as they were
    assert header == columns and len(parsed) == len(columns)
    assert parsed[-5:] == ["480", "-74.0", "0.5", "true", ""] and parsed[PAYLOADS.index("plain text")] == "plain text"


@pytest.mark.parametrize("text, written", [  # as a reader of the right delimiter reads it back
    (EXAMPLE, "Tensor;'=cmd|' /C calc'!A0"), ("=2+5", "'=2+5"), ("a, -1", "a, '-1"), ('x;"@y', 'x;"\'@y'),
    ("a-b;c=d", "a-b;c=d"), ("Snapdragon 8 Gen 3", "Snapdragon 8 Gen 3")])
def test_a_formula_character_after_a_separator_is_escaped(text, written):
    text_out = "".join(csv_lines(["cell"], [{"cell": text}]))
    assert list(csv.reader(io.StringIO(text_out)))[1] == [written] and formula_cells(text_out) == []


def test_quoting_every_text_cell_alone_would_not_do():
    """Why the escape after separators: a `;` reader of a comma file with every text cell quoted still starts a
    formula (the quotes of the second cell are out of step after the first cell's closing quote and the `,`)."""
    quoted = io.StringIO()
    csv.writer(quoted, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(["a", "x;+SUM(A1)"])
    assert formula_cells(quoted.getvalue()) == ['+SUM(A1)"']


@pytest.mark.django_db
def test_a_download_quotes_the_example_cell(client, demo_loaded):
    """The submissions list (?format=csv through the API's renderer): a run's failure reason that quotes a tensor
    name from a GGUF header."""
    from leaderboard.benchmarks.models import Benchmark

    author = User.objects.create_user("author", "author@example.com", "pw")
    submission = Submission.objects.create(submitter=author, model=ModelEntry.objects.create(
        hub_id="author/m", namespace="author"), revision_sha="a" * 40, benchmarks=["mobile-mmlu"])
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.get()
    EvaluationRun.objects.create(submission=submission, benchmark_version=version, split="validation",
                                 model_ref="author/m", model_revision="a" * 40, status=RunStatus.FAILED,
                                 failure_reason=f"unknown tensor {EXAMPLE}")
    client.force_login(author)
    response = client.get(reverse("api-submissions"), {"format": "csv"})
    text = response.content.decode()
    assert response.status_code == 200 and formula_cells(text) == []
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[0]["run_failure_reason"] == "unknown tensor Tensor;'=cmd|' /C calc'!A0"
