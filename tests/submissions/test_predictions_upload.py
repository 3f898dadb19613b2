"""parse_predictions_csv: every problem of an uploaded predictions file at once, named by row, column and id."""
import pytest

from leaderboard.submissions.predictions_upload import UploadError, parse_predictions_csv

QUESTIONS = {"mmlu-0001": 4, "mmlu-0002": 4, "mmlu-0003": 4, "mmlu-0004": 4, "mmlu-0005": 2, "mmlu-0006": 5}
HEADER = "question_id,predicted_answer\n"
GOOD_ROWS = ["mmlu-0001,A", "mmlu-0002,b", " mmlu-0003 , C ", "mmlu-0004,D", "mmlu-0005,B", "mmlu-0006,E"]


def csv_bytes(*rows, header=HEADER, newline="\n") -> bytes:
    return (header + "".join(row + newline for row in rows)).encode()


def problems(data, questions=QUESTIONS, code="UPLOAD_INVALID", **kwargs) -> list[str]:
    """The problems listed by the refusal (their wording is this module's point: each says what to fix)."""
    with pytest.raises(UploadError) as info:
        parse_predictions_csv(data, questions=questions, **kwargs)
    error = info.value
    assert error.code == code and isinstance(error, ValueError)
    assert str(error).startswith(f"{kwargs.get('filename', 'upload.csv')} was refused ({len(error.problems)} "
                                 f"problem{'s' if len(error.problems) > 1 else ''}):\n- ")
    return error.problems


def the_one_problem(data, **kwargs) -> str:
    found = problems(data, **kwargs)
    assert len(found) == 1, found
    return found[0]


def test_it_works():
    expected = {"mmlu-0001": "A", "mmlu-0002": "B", "mmlu-0003": "C", "mmlu-0004": "D", "mmlu-0005": "B",
                "mmlu-0006": "E"}
    assert parse_predictions_csv(csv_bytes(*GOOD_ROWS), questions=QUESTIONS) == expected
    assert list(parse_predictions_csv(csv_bytes(*GOOD_ROWS), questions=QUESTIONS)) == list(expected)  # file order


@pytest.mark.parametrize("variant", ["bom", "crlf", "blank lines", "header case", "swapped columns", "quoted",
                                     "memoryview"])
def test_it_works_with_what_spreadsheets_write(variant):
    rows, header, newline = list(GOOD_ROWS), HEADER, "\n"
    if variant == "crlf":
        newline = "\r\n"
    if variant == "blank lines":
        rows = rows[:2] + ["", " , "] + rows[2:] + [""]
    if variant == "header case":
        header = " Question_ID , Predicted_Answer \n"
    if variant == "swapped columns":
        header, rows = "predicted_answer,question_id\n", [",".join(reversed(r.split(","))) for r in rows]
    if variant == "quoted":
        rows = [",".join(f'"{cell}"' for cell in r.split(",")) for r in rows]
    data = csv_bytes(*rows, header=header, newline=newline)
    if variant == "bom":
        data = b"\xef\xbb\xbf" + data
    if variant == "memoryview":
        data = memoryview(data)
    result = parse_predictions_csv(data, questions=QUESTIONS)
    assert result["mmlu-0003"] == "C" and len(result) == 6


# --- the file as a whole ------------------------------------------------------------

@pytest.mark.parametrize("data, fragments", [
    (b"", ["the file is empty", "question_id,predicted_answer"]),
    (b"\xef\xbb\xbf \n\n", ["the file is empty"]),
    (b"PK\x03\x04" + b"\x00" * 40, ["spreadsheet workbook (.xlsx/.xls)", "CSV UTF-8"]),
    (b"\xff\xfeq\x00u\x00", ["UTF-16", "CSV UTF-8"]),
    (HEADER.encode() + b"mmlu-0001,A\nmmlu-0002,\xc4\n", ["not UTF-8 text (byte 0xc4 at line 3, byte offset 51)"]),
    (HEADER.encode() + b"mmlu-0001,A\x00\n", ["NUL bytes (first at line 2)"]),
])
def test_it_handles_a_file_that_is_not_a_utf8_csv(data, fragments):
    problem = the_one_problem(data)
    for fragment in fragments:
        assert fragment in problem, problem


def test_it_handles_a_file_over_the_size_limit():
    data = csv_bytes(*GOOD_ROWS)
    problem = the_one_problem(data, max_bytes=len(data) - 1, code="UPLOAD_TOO_LARGE")  # as read_upload refuses it
    assert f"{len(data):,} bytes" in problem and f"{len(data) - 1:,} bytes" in problem  # its size and the limit
    assert parse_predictions_csv(data, questions=QUESTIONS, max_bytes=len(data))


def test_it_names_the_file():
    with pytest.raises(UploadError) as info:
        parse_predictions_csv(b"", questions=QUESTIONS, filename="preds-v2.csv")
    assert info.value.code == "UPLOAD_INVALID" and info.value.filename == "preds-v2.csv"
    assert info.value.message.startswith("preds-v2.csv")


def test_it_handles_bytes_of_the_wrong_type():
    with pytest.raises(TypeError):
        parse_predictions_csv("question_id,predicted_answer\n", questions=QUESTIONS)


# --- the header ----------------------------------------------------------------------

@pytest.mark.parametrize("header, fragments", [
    ("question_id\n", ["lacks the column 'predicted_answer'", "exactly question_id,predicted_answer"]),
    ("id,answer\n", ["lacks the columns 'question_id', 'predicted_answer'", "unexpected columns 'id', 'answer'"]),
    ("question_id,predicted_answer,question_id\n", ["names the column 'question_id' 2 times"]),
    ("question_id;predicted_answer\n", ["separated by ';', not by commas"]),
    ("question_id\tpredicted_answer\n", ["separated by '\\t', not by commas"]),
    ("mmlu-0009,A\n", ["lacks the columns"]),
])
def test_it_handles_a_header_without_the_two_columns(header, fragments):
    found = problems(csv_bytes(*GOOD_ROWS, header=header))
    for fragment in fragments:
        assert any(fragment in p for p in found), (fragment, found)


def test_it_handles_a_file_without_a_header():
    problem = the_one_problem(csv_bytes(*GOOD_ROWS, header=""))
    assert "row 1 is a prediction ('mmlu-0001'), not the header" in problem
    assert "add the line question_id,predicted_answer at the top" in problem


def test_it_handles_extra_columns_and_still_checks_the_rows():
    found = problems(csv_bytes("mmlu-0001,A,0.9", "mmlu-0002,Z,0.1",
                               header="question_id,predicted_answer,confidence,\n"))
    assert found[0] == ("the header has unexpected columns 'confidence', an empty name (a trailing comma?); "
                        "the header must be exactly question_id,predicted_answer")
    assert any("row 3 has 3 cells, the header has 4" in p for p in found)


def test_it_handles_a_header_without_rows():
    assert "has a header but no prediction rows; it needs one row for each of the 6 questions" in \
        the_one_problem(HEADER.encode())


# --- the rows ----------------------------------------------------------------------------

def test_it_handles_unknown_ids():
    rows = GOOD_ROWS + [f"other-{i}, A" for i in range(7)]
    problem = the_one_problem(csv_bytes(*rows))
    assert problem.startswith("7 question_ids are not in the open split (row 8 'other-0', row 9 'other-1', "
                              "row 10 'other-2', row 11 'other-3', row 12 'other-4', ...)")
    assert "use the ids of the current open split" in problem


def test_it_handles_duplicate_ids():
    rows = GOOD_ROWS + ["mmlu-0002,B", "mmlu-0004,A", "mmlu-0002,C"]
    problem = the_one_problem(csv_bytes(*rows))
    assert problem == ("2 question_ids appear more than once ('mmlu-0002' on rows 3, 8, 10; 'mmlu-0004' on rows "
                       "5, 9); keep exactly one row per question")


def test_it_handles_missing_ids():
    questions = {**QUESTIONS, **{f"mmlu-1{i:03d}": 4 for i in range(20)}}
    problem = the_one_problem(csv_bytes(*GOOD_ROWS), questions=questions)
    assert problem == ("20 of the 26 questions of the open split have no row (e.g. 'mmlu-1000', 'mmlu-1001', "
                       "'mmlu-1002', 'mmlu-1003', 'mmlu-1004', ...); every question needs exactly one predicted answer")


@pytest.mark.parametrize("answer, shown, allowed", [
    ("E", "'E'", "A-D"), ("AB", "'AB'", "A-D"), ("", "an empty answer", "A-D"), ("1", "'1'", "A-D"),
    ("Ä", "'Ä'", "A-D"), ("A.", "'A.'", "A-D"),
])
def test_it_handles_letters_outside_the_options(answer, shown, allowed):
    rows = [f"mmlu-0001,{answer}" if r.startswith("mmlu-0001") else r for r in GOOD_ROWS]
    problem = the_one_problem(csv_bytes(*rows))
    assert problem == (f"row 2, question_id 'mmlu-0001': {shown} is not an option of this question; "
                       f"use one letter {allowed}")


def test_it_checks_letters_against_each_questions_own_options():
    rows = [r.replace("mmlu-0005,B", "mmlu-0005,C") for r in GOOD_ROWS]  # a two-option question
    assert "row 6, question_id 'mmlu-0005': 'C' is not an option of this question; use one letter A-B" == \
        the_one_problem(csv_bytes(*rows))


def test_it_lists_the_first_rows_of_a_long_list_and_counts_the_rest():
    questions = {f"q{i}": 4 for i in range(30)}
    found = problems(csv_bytes(*(f"q{i},X" for i in range(30))), questions=questions)
    assert len(found) == 11 and found[0].startswith("row 2, question_id 'q0': 'X'")
    assert found[-1] == "... and 20 more rows whose answer is not one of the question's options"


@pytest.mark.parametrize("row, column, prefix", [
    ("=HYPERLINK(\"http://x\"),A", "question_id", "'='"),
    ("mmlu-0001,=1+1", "predicted_answer", "'='"),
    ("mmlu-0001,+A", "predicted_answer", "'+'"),
    ("mmlu-0001,-A", "predicted_answer", "'-'"),
    ("@SUM(A1),A", "question_id", "'@'"),
    ('"\tmmlu-0001",A', "question_id", "'\\t'"),
    ('mmlu-0001,"\rA"', "predicted_answer", "'\\r'"),
    ("mmlu-0001,  =A", "predicted_answer", "'='"),
])
def test_it_refuses_cells_that_look_like_formulas(row, column, prefix):
    rows = [row if r.startswith("mmlu-0001") else r for r in GOOD_ROWS]
    found = problems(csv_bytes(*rows))
    assert found[0] == (f"row 2, column '{column}': the cell starts with {prefix}; cells starting with =, +, -, @, "
                        "a tab or a carriage return are refused (spreadsheet formulas): remove that character")
    if column == "predicted_answer":  # the id was readable: the question is not also reported missing
        assert len(found) == 1, found


def test_it_handles_broken_quotes():
    found = problems(csv_bytes("mmlu-0001,A", 'mmlu-0002,"B"x', "mmlu-0003,C"))
    assert found == ["row 3: the CSV cannot be read from here on (',' expected after '\"'); check the quotes of "
                     "this row (rows after it were not checked)"]


def test_it_handles_everything_at_once():
    rows = ["mmlu-0001,A", "mmlu-0001,B", "ghost-1,A", "mmlu-0002,Q", "mmlu-0003,=A", "mmlu-0004", ",A"]
    found = problems(csv_bytes(*rows))
    assert found == [
        "row 7 has 1 cell, the header has 2; each row is question_id,predicted_answer",
        "row 6, column 'predicted_answer': the cell starts with '='; cells starting with =, +, -, @, a tab or a "
        "carriage return are refused (spreadsheet formulas): remove that character",
        "row 8: the question_id is empty",
        "1 question_id is not in the open split (row 4 'ghost-1'); use the ids of the current open split "
        "(download its questions again)",
        "1 question_id appears more than once ('mmlu-0001' on rows 2, 3); keep exactly one row per question",
        "row 5, question_id 'mmlu-0002': 'Q' is not an option of this question; use one letter A-D",
        "3 of the 6 questions of the open split have no row (e.g. 'mmlu-0004', 'mmlu-0005', 'mmlu-0006'); "
        "every question needs exactly one predicted answer",
    ]
