import json

import pytest

from evaluator.questions import QuestionFileError, load_questions


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_it_loads_jsonl_with_options_list(tmp_path):
    p = write(tmp_path, "q.jsonl", "\n".join(json.dumps(r) for r in [
        {"question_id": "q1", "question": "Q?", "options": ["x", "y", "z"], "answer": "B", "topic": "T"},
        {"question_id": "q2", "question": "Q2?", "options": ["x", "y"], "answer": "A,B"},
        {"question_id": "q3", "question": "Q3?", "A": "x", "B": "y", "C": "z", "D": "w"},
    ]) + "\n\n")
    q1, q2, q3 = load_questions(p)
    assert q1.options == ("x", "y", "z") and q1.answer == {"B"} and q1.topic == "T"
    assert q2.answer == {"A", "B"}
    assert q3.options == ("x", "y", "z", "w") and q3.answer is None and q3.letters == "ABCD"


def test_it_loads_csv_with_letter_columns(tmp_path):
    p = write(tmp_path, "q.csv", "question_id,Question,A,B,C,D,answer,topic\n"
                                 'q1,"Pick, one",a,b,c,d,C,First Aid\nq2,Q2,a,b,,,"A, B",\n')
    q1, q2 = load_questions(p)
    assert q1.question == "Pick, one" and q1.answer == {"C"} and q1.topic == "First Aid"
    assert q2.options == ("a", "b") and q2.answer == {"A", "B"} and q2.topic == ""


@pytest.mark.parametrize("name,text,needle", [
    ("q.csv", "question_id,question,A,B\n,Q,a,b\n", "row 2, column 'question_id'"),
    ("q.csv", "question_id,question,A,B,answer\nq1,Q,a,b,E\n", "row 2, column 'answer'"),
    ("q.csv", "question_id,question,A,B,C\nq1,Q,a,,c\n", "row 2, column 'B': empty while column 'C' is set"),
    ("q.csv", "question_id,question,A\nq1,Q,a\n", "1 options, need 2..10"),
    ("q.csv", "question_id,question,A,B\nq1,Q,a,b\nq1,Q,a,b\n", "row 3, column 'question_id': duplicate id 'q1' (first at row 2)"),
    ("q.csv", "question_id,question,A,B\nq1,,a,b\n", "column 'question'"),
    ("q.jsonl", '{"question_id": "a", "question": "Q", "options": ["x","y"]}\n{bad\n', "line 2: invalid JSON"),
    ("q.jsonl", '{"question_id": "a", "question": "Q", "options": "x"}\n', "line 1, column 'options'"),
    ("q.jsonl", '[1, 2]\n', "line 1: expected a JSON object"),
    ("q.txt", "x", "unsupported file type"),
    ("q.csv", "", "empty CSV"),
])
def test_it_names_file_row_and_column_on_bad_input(tmp_path, name, text, needle):
    p = write(tmp_path, name, text)
    with pytest.raises(QuestionFileError) as info:
        load_questions(p)
    assert needle in str(info.value)
    assert str(p) in str(info.value)


def test_it_handles_a_missing_file(tmp_path):
    with pytest.raises(QuestionFileError, match="no such file"):
        load_questions(tmp_path / "nope.jsonl")
