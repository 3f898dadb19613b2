"""`manage.py import_benchmark`: every layout, every bad input, idempotence and versioning."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.models import BenchmarkVersion, Question
from leaderboard.evaluations.models import EvaluationRun
from tests.support.refusals import refusal_of
from tests.support.questions import (
    make_questions, write_answer_key, write_csv, write_hub_folder, write_jsonl, write_parquet,
)

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


def run_import(*args):
    call_command("import_benchmark", "--benchmark", "mobile-mmlu", *map(str, args), verbosity=0)


def stored(split="validation"):
    return {q.uid: q for q in Question.objects.filter(split=split, version__benchmark__slug="mobile-mmlu")}


def assert_refused(snapshot, args, *fragments):
    before = snapshot()
    with pytest.raises(CommandError) as info:
        run_import(*args)
    assert snapshot() == before, "a refused import changed the database"
    assert refusal_of(info.value).code == "IMPORT_REFUSED" and info.value.returncode == 2
    message = str(info.value)  # the problems' wording is the point here: each names its place and its fix
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    assert info.value.returncode == 2
    return message


# --- layouts -----------------------------------------------------------------

def test_it_imports_the_hub_layout_with_a_separate_answer_key(tmp_path):
    rows = make_questions()
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(tmp_path / "key.csv", rows)
    run_import("--path", folder, "--split", "validation", "--answers", key)

    questions = stored()
    assert len(questions) == len(rows) == 9
    q = questions[rows[1]["question_id"]]
    assert q.topic.hub_field == "first_aid" and q.options == rows[1]["options"] and q.answer == rows[1]["answer"]
    # The dataset's own spelling of the field resolves to its topic.
    assert questions[rows[-1]["question_id"]].topic.name == "Marketing & Sales Strategies"
    assert questions[rows[0]["question_id"]].answer == "A,C"  # multi-correct kept as a set


@pytest.mark.parametrize("writer,name", [(write_csv, "q.csv"), (write_jsonl, "q.jsonl"), (write_parquet, "q.parquet")])
def test_it_imports_single_files(tmp_path, writer, name):
    rows = make_questions(prefix=name)
    run_import("--path", writer(tmp_path / name, rows), "--split", "validation")
    questions = stored()
    assert sorted(questions) == sorted(r["question_id"] for r in rows)
    assert all(questions[r["question_id"]].answer == r["answer"] for r in rows)


def test_it_accepts_lettered_option_columns_of_different_widths(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("question_id,topic,question,A,B,C,D,E,answer\n"
                    "w1,First Aid,Two options?,yes,no,,,,B\n"
                    "w2,first aid,Five options?,a,b,c,d,e,E\n")
    run_import("--path", path, "--split", "validation")
    assert stored()["w1"].options == ["yes", "no"] and stored()["w2"].answer == "E"


def test_it_encrypts_sealed_answers_at_rest(tmp_path):
    rows = make_questions(prefix="sealed")
    folder = write_hub_folder(tmp_path / "hub", rows)
    run_import("--path", folder, "--split", "test", "--sealed", "--answers", write_answer_key(tmp_path / "k.csv", rows))

    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM benchmarks_question WHERE split = 'test'")
        raw_rows = cursor.fetchall()
    assert len(raw_rows) == len(rows)
    for raw in raw_rows:
        cells = [bytes(c) if isinstance(c, memoryview) else c for c in raw]
        ciphertext = next(c for c in cells if isinstance(c, bytes))
        assert ciphertext.startswith(b"gAAAAA")  # a Fernet token
        for cell in cells:
            if isinstance(cell, str):
                assert cell not in {"A", "B", "C", "D", "A,C"}, "a sealed answer is stored in clear"
    q = stored("test")[rows[2]["question_id"]]
    assert q.answer == "" and decrypt_answer(q.answer_sealed) == rows[2]["answer"]


# --- idempotence and versions -----------------------------------------------

def test_it_treats_an_identical_reimport_as_a_no_op(tmp_path, snapshot, capsys):
    rows = make_questions()
    folder, key = write_hub_folder(tmp_path / "hub", rows), write_answer_key(tmp_path / "k.csv", rows)
    run_import("--path", folder, "--split", "validation", "--answers", key)
    before = snapshot()
    call_command("import_benchmark", "--benchmark", "mobile-mmlu", "--path", str(folder), "--split", "validation",
                 "--answers", str(key), verbosity=0)
    assert snapshot() == before
    assert "identical content already imported" in capsys.readouterr().out


def test_it_replaces_a_split_in_place_while_no_run_used_it(tmp_path):
    rows = make_questions()
    run_import("--path", write_csv(tmp_path / "a.csv", rows), "--split", "validation")
    rows[0]["question"] = "A corrected wording?"
    run_import("--path", write_csv(tmp_path / "b.csv", rows), "--split", "validation")
    assert BenchmarkVersion.objects.filter(benchmark__slug="mobile-mmlu").count() == 1
    assert stored()[rows[0]["question_id"]].text == "A corrected wording?"


def test_it_makes_a_new_version_when_runs_used_the_old_content(tmp_path):
    rows = make_questions()
    run_import("--path", write_csv(tmp_path / "dev.csv", make_questions(prefix="dev")), "--split", "dev")
    run_import("--path", write_csv(tmp_path / "a.csv", rows), "--split", "validation")
    v1 = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    EvaluationRun.objects.create(benchmark_version=v1, split="validation", model_ref="org/model")
    rows[0]["options"][1] = "a changed option"
    run_import("--path", write_csv(tmp_path / "b.csv", rows), "--split", "validation")

    v1.refresh_from_db()
    v2 = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu", number=2)
    assert v1.questions.get(uid=rows[0]["question_id"]).options[1] == "option B0"  # the old content stays
    assert v2.questions.get(uid=rows[0]["question_id"]).options[1] == "a changed option"
    assert v2.questions.filter(split="dev").count() == 9  # other splits carried over
    assert v1.content_hash != v2.content_hash and v1.split_hashes["dev"] == v2.split_hashes["dev"]


# --- bad input: message names file/row/column; database unchanged -------------

@pytest.fixture
def rows():
    return make_questions()


def test_it_handles_a_missing_column(tmp_path, snapshot, rows):
    path = tmp_path / "q.csv"
    path.write_text("question_id,topic,A,B,C,D,answer\nx,first_aid,a,b,c,d,A\n")
    assert_refused(snapshot, ["--path", path, "--split", "validation"], "q.csv", "missing column 'question'")


def test_it_handles_an_empty_question(tmp_path, snapshot, rows):
    rows[4]["question"] = "   "
    path = write_csv(tmp_path / "q.csv", rows)
    assert_refused(snapshot, ["--path", path, "--split", "validation"], "q.csv, row 6, column 'question'",
                   "empty question")


def test_it_handles_an_empty_option(tmp_path, snapshot, rows):
    rows[2]["options"][1] = ""
    path = write_csv(tmp_path / "q.csv", rows)
    assert_refused(snapshot, ["--path", path, "--split", "validation"], "row 4, column 'B'", "option B is empty")


def test_it_handles_an_answer_letter_not_among_the_options(tmp_path, snapshot, rows):
    folder = write_hub_folder(tmp_path / "hub", rows)
    rows[3]["answer"] = "E"
    key = write_answer_key(tmp_path / "key.csv", rows)
    assert_refused(snapshot, ["--path", folder, "--split", "validation", "--answers", key],
                   "key.csv, row 5, column 'answer'", "answer letter E", "not among its options A-D")


def test_it_handles_a_duplicate_question_id(tmp_path, snapshot, rows):
    rows[5]["question_id"] = rows[1]["question_id"]
    path = write_jsonl(tmp_path / "q.jsonl", rows)
    assert_refused(snapshot, ["--path", path, "--split", "validation"], "q.jsonl, row 6, column 'question_id'",
                   "duplicate question_id", "first seen in")


def test_it_handles_a_question_id_that_exists_in_another_split(tmp_path, snapshot, rows):
    run_import("--path", write_csv(tmp_path / "dev.csv", rows), "--split", "dev")
    assert_refused(snapshot, ["--path", write_csv(tmp_path / "v.csv", rows), "--split", "validation"],
                   "already exists in the dev split")


def test_it_handles_a_question_without_an_answer_in_the_key(tmp_path, snapshot, rows):
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(tmp_path / "key.csv", rows[:-1])
    assert_refused(snapshot, ["--path", folder, "--split", "validation", "--answers", key],
                   "marketing__and_sales_strarigies.csv", f"question {rows[-1]['question_id']!r} has no answer")


def test_it_handles_key_rows_without_a_question(tmp_path, snapshot, rows):
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(tmp_path / "key.csv", rows + [{"question_id": "ghost-1", "answer": "B"}])
    assert_refused(snapshot, ["--path", folder, "--split", "validation", "--answers", key],
                   "key.csv, row 11, column 'question_id'", "'ghost-1' but no such question")


def test_it_handles_an_unknown_field_with_the_nearest_suggestion(tmp_path, snapshot, rows):
    for row in rows:
        row["topic"] = row["topic"].replace("pet_care", "pet_caer")
    folder = write_hub_folder(tmp_path / "hub", rows, with_answers=True)
    message = assert_refused(snapshot, ["--path", folder, "--split", "validation"], "pet_caer.csv",
                             "unknown topic/field 'pet_caer'", "did you mean 'pet_care'?")
    assert message.count("pet_caer") == 2  # reported once for the file, not once per row


def test_it_handles_undecodable_bytes(tmp_path, snapshot, rows):
    path = write_csv(tmp_path / "q.csv", rows)
    data = path.read_bytes().replace(b"Invented question 3", b"Invented \xff\xfe question 3")
    path.write_bytes(data)
    assert_refused(snapshot, ["--path", path, "--split", "validation"], "q.csv, row 5", "undecodable bytes",
                   "re-save the file as UTF-8")


def test_it_handles_a_file_over_the_size_limit(tmp_path, snapshot, rows, settings):
    settings.IMPORT_MAX_FILE_BYTES = 100
    path = write_csv(tmp_path / "q.csv", rows)
    assert_refused(snapshot, ["--path", path, "--split", "validation"], "q.csv", "over the import limit of 100 bytes")


def test_it_handles_sealed_flag_mismatches(tmp_path, snapshot, rows):
    path = write_csv(tmp_path / "q.csv", rows)
    assert_refused(snapshot, ["--path", path, "--split", "test"], "add --sealed")
    assert_refused(snapshot, ["--path", path, "--split", "validation", "--sealed"], "only for the test split")


def test_it_handles_an_unknown_benchmark_and_missing_path(tmp_path, snapshot, rows):
    before = snapshot()
    with pytest.raises(CommandError) as info:
        call_command("import_benchmark", "--benchmark", "nope", "--path", str(write_csv(tmp_path / "q.csv", rows)),
                     "--split", "dev", verbosity=0)
    (problem,) = refusal_of(info.value).problems
    assert refusal_of(info.value).code == "IMPORT_REFUSED" and problem.file == "--benchmark"
    assert "'nope'" in problem.message and "mobile-mmlu" in problem.hint  # the slug given, the ones known
    assert_refused(snapshot, ["--path", tmp_path / "missing", "--split", "dev"], "no such file or folder")
    assert snapshot() == before


def test_it_reports_every_problem_at_once(tmp_path, snapshot, rows):
    rows[0]["question"] = ""
    rows[3]["options"][0] = ""
    message = assert_refused(snapshot, ["--path", write_csv(tmp_path / "q.csv", rows), "--split", "validation"],
                             "2 problems")
    assert "row 2" in message and "row 5" in message


def test_it_exits_non_zero_with_the_message_on_stderr(tmp_path, rows):
    """The real command line: exit status and stderr, as an operator sees them."""
    rows[1]["question"] = ""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings.test",
           "DATABASE_URL": _database_url()}
    proc = subprocess.run(
        [sys.executable, "manage.py", "import_benchmark", "--benchmark", "mobile-mmlu", "--split", "validation",
         "--path", str(write_csv(tmp_path / "q.csv", rows))],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert "q.csv, row 3, column 'question': empty question" in proc.stderr
    assert proc.stdout == ""


def _database_url():
    s = connection.settings_dict
    return f"postgresql://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{s['NAME']}"


def test_it_reads_the_hub_subfolder_even_with_an_answer_key_beside_it(tmp_path):
    rows = make_questions()
    root = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(root / "answers.csv", rows)  # operators keep the key next to test/
    run_import("--path", root, "--split", "validation", "--answers", key)
    assert len(stored()) == len(rows)


def test_it_never_repeats_sealed_answers_in_error_messages(tmp_path, snapshot, rows):
    folder = write_hub_folder(tmp_path / "hub", rows)
    rows[0]["answer"], rows[1]["answer"] = "Q", "F"
    key = write_answer_key(tmp_path / "key.csv", rows)
    message = assert_refused(snapshot, ["--path", folder, "--split", "test", "--sealed", "--answers", key],
                             "is not option letters", "is not among its options", "hidden: sealed split")
    assert "'Q'" not in message and "letter F" not in message
    for row in rows:  # nor any question text
        assert row["question"] not in message


# --- options are never renumbered, merged or dropped ---------------------------

def edit_csv(path, edit, *, encoding="utf-8"):
    """Rewrite a CSV file through ``edit(table) -> table`` (a list of rows, the header first)."""
    with open(path, newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    with open(path, "w", newline="", encoding=encoding) as handle:
        csv.writer(handle).writerows(edit(table))
    return path


def drop_column(name):
    return lambda table: [[cell for cell, head in zip(row, table[0]) if head != name] for row in table]


def lettered(rows, letters="ABCD"):
    """Rows with options as lettered keys (for JSONL / Parquet), only the given letters kept."""
    return [{**{k: v for k, v in row.items() if k != "options"},
             **{letter: text for letter, text in zip("ABCD", row["options"]) if letter in letters}} for row in rows]


def test_it_refuses_a_hub_file_with_option_column_c_missing(tmp_path, snapshot, rows):
    """The issue: columns question_id,Question,A,B,D were read as A,B,C, so the key's C pointed at D's text."""
    folder = write_hub_folder(tmp_path / "hub", rows)
    edit_csv(folder / "test" / "first_aid.csv", drop_column("C"))
    key = write_answer_key(tmp_path / "key.csv", rows)
    message = assert_refused(snapshot, ["--path", folder, "--split", "validation", "--answers", key],
                             "first_aid.csv, row 1, column 'C': option columns A, B, D: column C is missing; "
                             "options must be A, B, C, ... with no gaps", "never renumbered")
    assert "1 problem)" in message  # once for the file, not once per row


@pytest.mark.parametrize("writer,name,where", [
    (write_csv, "q.csv", "q.csv, row 1, column 'A'"),
    (write_jsonl, "q.jsonl", "q.jsonl, row 1, column 'A'"),
    (write_parquet, "q.parquet", "q.parquet, column 'A'"),
])
def test_it_refuses_option_columns_that_do_not_start_at_a(tmp_path, snapshot, rows, writer, name, where):
    for row in rows:
        row["answer"] = "B"  # valid either way: only the layout check can catch B, C, D read as A, B, C
    if writer is write_csv:
        path = edit_csv(write_csv(tmp_path / name, rows), drop_column("A"))
    else:
        path = writer(tmp_path / name, lettered(rows, "BCD"))
    message = assert_refused(snapshot, ["--path", path, "--split", "validation"], where,
                             "option columns B, C, D: column A is missing")
    if writer is write_jsonl:
        assert "the same on 8 more lines" in message  # one report for the file, not one per line


def test_it_refuses_a_jsonl_line_with_an_option_key_missing(tmp_path, snapshot, rows):
    records = lettered(rows)
    assert records[1]["answer"] == "B"  # an answer the shifted row would still accept
    del records[1]["C"]  # line 2 has A, B, D: its D must not become C
    path = write_jsonl(tmp_path / "q.jsonl", records)
    assert_refused(snapshot, ["--path", path, "--split", "validation"],
                   "q.jsonl, row 2, column 'C': option columns A, B, D: column C is missing")


def test_it_refuses_an_option_column_past_j(tmp_path, snapshot):
    path = tmp_path / "wide.csv"
    path.write_text("question_id,topic,question,A,B,C,D,E,F,G,H,I,J,K,answer\n"
                    "w1,First Aid,Eleven options?,a,b,c,d,e,f,g,h,i,j,k,A\n")
    assert_refused(snapshot, ["--path", path, "--split", "validation"],
                   "wide.csv, row 1, column 'K'", "column K is past J; at most 10 options (A-J)")


def test_it_refuses_an_options_list_beside_option_columns(tmp_path, snapshot, rows):
    records = lettered(rows)
    records[2]["options"] = rows[2]["options"][::-1]  # which one holds the options? refuse, don't pick
    path = write_jsonl(tmp_path / "q.jsonl", records)
    assert_refused(snapshot, ["--path", path, "--split", "validation"],
                   "q.jsonl, row 3, column 'options'", "both an 'options' list and option columns A, B, C, D")


@pytest.mark.parametrize("copied,added,fragments", [
    ("A", "A", ["column 'A' appears 2 times"]),
    ("A", "a", ["column 'a'", "columns 'A', 'a' are the same column"]),
    ("B", " B", ["column ' B'", "columns 'B', ' B' are the same column"]),
    ("Question", "question", ["column 'question'", "columns 'Question', 'question' are the same column"]),
])
def test_it_refuses_duplicate_or_variant_headers(tmp_path, snapshot, rows, copied, added, fragments):
    folder = write_hub_folder(tmp_path / "hub", rows, with_answers=True)

    def add_column(table):
        index = table[0].index(copied)
        return [table[0] + [added]] + [row + [row[index] + " (other copy)"] for row in table[1:]]

    edit_csv(folder / "test" / "pet_care.csv", add_column)
    assert_refused(snapshot, ["--path", folder, "--split", "validation"], "pet_care.csv, row 1", *fragments,
                   "the importer will not guess")


def test_it_refuses_duplicate_or_variant_keys_in_jsonl_and_parquet(tmp_path, snapshot, rows):
    path = write_jsonl(tmp_path / "q.jsonl", lettered(rows))
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"A": ', '"A": "first A", "A": ', 1)  # json.loads would keep the last silently
    path.write_text("\n".join(lines) + "\n")
    assert_refused(snapshot, ["--path", path, "--split", "validation"],
                   "q.jsonl, row 2, column 'A': column 'A' appears 2 times")

    records = lettered(rows)
    for record in records:
        record["a"] = "lower-case copy"
    assert_refused(snapshot, ["--path", write_parquet(tmp_path / "q.parquet", records), "--split", "validation"],
                   "q.parquet, column 'a': columns 'A', 'a' are the same column")


def test_it_refuses_variant_headers_in_the_answer_key(tmp_path, snapshot, rows):
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = edit_csv(write_answer_key(tmp_path / "key.csv", rows),
                   lambda table: [table[0] + ["Answer"]] + [row + ["D"] for row in table[1:]])
    assert_refused(snapshot, ["--path", folder, "--split", "validation", "--answers", key],
                   "key.csv, row 1, column 'Answer': columns 'answer', 'Answer' are the same column")


@pytest.mark.parametrize("target", ["hub file", "answer key", "jsonl"])
def test_it_refuses_a_byte_order_mark(tmp_path, snapshot, rows, target):
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(tmp_path / "key.csv", rows)
    args = ["--path", folder, "--split", "validation", "--answers", key]
    if target == "hub file":
        edit_csv(folder / "test" / "first_aid.csv", lambda table: table, encoding="utf-8-sig")
        where = "first_aid.csv, row 1, column '\\ufeffquestion_id'"
    elif target == "answer key":
        edit_csv(key, lambda table: table, encoding="utf-8-sig")
        where = "key.csv, row 1, column '\\ufeffquestion_id'"
    else:
        path = write_jsonl(tmp_path / "q.jsonl", rows)
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        args, where = ["--path", path, "--split", "validation"], "q.jsonl, row 1"
    assert_refused(snapshot, args, where, "starts with a UTF-8 byte-order mark (BOM)",
                   "save the file as UTF-8 without BOM")


def test_it_refuses_an_empty_option_between_filled_ones(tmp_path, snapshot, rows):
    rows[1]["options"][2] = ""  # A, B filled, C empty, D filled: D must not become C
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(tmp_path / "key.csv", rows)
    assert_refused(snapshot, ["--path", folder, "--split", "validation", "--answers", key],
                   "first_aid.csv, row 3, column 'C': option C is empty")


@pytest.mark.parametrize("source", ["answer column", "answer key"])
def test_it_refuses_an_answer_letter_past_the_rows_options(tmp_path, snapshot, rows, source):
    rows[4]["options"][3] = ""  # a three-option question (trailing empty cell): A-C
    rows[4]["answer"] = "D"
    if source == "answer column":
        args, where = ["--path", write_csv(tmp_path / "q.csv", rows)], "q.csv, row 6, column 'answer'"
    else:
        key = write_answer_key(tmp_path / "key.csv", rows)
        args, where = ["--path", write_hub_folder(tmp_path / "hub", rows), "--answers", key], \
            "key.csv, row 6, column 'answer'"
    assert_refused(snapshot, [*args, "--split", "validation"], where, "answer letter D",
                   "not among its options A-C")


def test_it_still_accepts_headers_with_spaces_around_them(tmp_path, rows):
    folder = write_hub_folder(tmp_path / "hub", rows, with_answers=True)
    for path in (folder / "test").glob("*.csv"):
        edit_csv(path, lambda table: [[f" {head} " for head in table[0]]] + table[1:])
    run_import("--path", folder, "--split", "validation")
    assert stored()[rows[1]["question_id"]].options == rows[1]["options"]
