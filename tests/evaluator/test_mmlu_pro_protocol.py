"""MMLU-Pro's own protocol (evaluator/protocols.py) held to the official script (tests/evaluator/mmlu_pro_official.py):
the prompt byte for byte, the answer extraction, the k it lowers to, the seeded random guess; and the protocol run
end to end through the engine on tiny local models whose replies are known."""
from __future__ import annotations

import copy
import json

import pytest

from evaluator.backends import create_backend
from evaluator.decoding import GREEDY, GREEDY_STOP_QUESTION
from evaluator.engine import plan_evaluation, run_evaluation
from evaluator.protocols import (
    PROTOCOLS, ProtocolError, apply_guesses, extract_answer, fit_prompt, get_protocol, protocol_exemplars,
    render_prompt,
)
from evaluator.questions import LETTERS, Question

from . import mmlu_pro_official as official
from .conftest import write_jsonl
from tests.support.model_fixtures import COT_RAMBLE

COT = get_protocol("mmlu-pro-cot")
GUESS = get_protocol("mmlu-pro-cot-guess")


def record(qid, category, question, options, answer_index, cot=None):
    """A row as MMLU-Pro publishes it (the official functions read these keys)."""
    rec = {"question_id": qid, "question": question, "options": list(options), "answer": LETTERS[answer_index],
           "answer_index": answer_index, "category": category, "src": f"ori_mmlu-{category}"}
    if cot is not None:
        rec["cot_content"] = cot
    return rec


def engine_question(rec) -> Question:
    """The same row as our engine sees it (selectors.engine_questions: options as stored, extra carried)."""
    extra = {k: rec[k] for k in ("src", "cot_content") if k in rec}
    return Question(str(rec["question_id"]), rec["question"], tuple(rec["options"]), frozenset(rec["answer"]),
                    rec["category"], extra)


def cot(letter, steps="We add the two numbers."):
    return f"A: Let's think step by step. {steps} The answer is ({letter})."


TEN = [f"{n} apples" for n in range(10)]
DEV = [
    *[record(i, "math", f"What is {i} + {i}? ", TEN, i % 10, cot(LETTERS[i % 10])) for i in range(7)],
    record(10, "law", "Which court hears appeals?\nChoose one.", ["Trial", "Supreme", "Small claims", "N/A"], 1,
           cot("B", "Appeals go up.\nSo the higher court.")),
    record(11, "law", "Is a verbal contract binding?", ["Yes", "No", "Only in writing", "Never"], 0, cot("A")),
    *[record(20 + i, "law", f"Law case {i}?", ["W", "X", "Y", "Z", "N/A", "N/A"], i % 4, cot(LETTERS[i % 4]))
      for i in range(4)],
    record(30, "computer science", "What does CPU stand for?", ["Central processing unit", "Core power unit"], 0,
           cot("A", "CPU abbreviates central processing unit.")),
    record(31, "computer science", "Which is a sorting algorithm?", ["Dijkstra", "Quicksort", "TCP"], 1,
           "A: Let's think step by step. Quicksort sorts. The answer is (B)."),
]
TEST = [
    record(100, "math", "Find x if 2x = 6.", TEN, 3),
    record(101, "math", "  What is 9 * 9?\n", [*TEN[:7], "N/A", "N/A", "N/A"], 2),
    record(102, "law", "Who signs a bill into law?", ["The clerk", "The president", "A judge", "N/A"], 1),
    record(103, "law", "What is a tort?\n(civil law)", ["A cake", "A civil wrong", "A crime", "A contract",
                                                      "A court", "A deed", "A fee", "A lien", "A writ", "A bond"], 1),
    record(104, "computer science", "What is RAM?", ["Memory", "Disk", "Screen", "Keyboard"], 0),
]


@pytest.fixture
def official_dir(tmp_path, monkeypatch):
    """The official generate_cot_prompt opens cot_prompt_lib/initial_prompt.txt from the working directory."""
    (tmp_path / "cot_prompt_lib").mkdir()
    (tmp_path / "cot_prompt_lib" / "initial_prompt.txt").write_text(official.INITIAL_PROMPT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def official_prompt(curr, k=5):
    val_df = official.preprocess(copy.deepcopy(DEV))
    return official.generate_cot_prompt(val_df, official.preprocess([copy.deepcopy(curr)])[0], k)


def our_prompt(curr, k=5):
    dev = [engine_question(r) for r in DEV]
    exemplars = protocol_exemplars(COT, [engine_question(curr)], dev)[curr["category"]]
    return render_prompt(COT, curr["question"], curr["options"], curr["category"], exemplars[:k])


@pytest.mark.parametrize("curr", TEST, ids=lambda r: f"{r['category']}-{len(r['options'])}-options")
def test_the_prompt_is_byte_identical_to_the_official_script(official_dir, curr):
    ours, theirs = our_prompt(curr), official_prompt(curr)
    assert ours.encode() == theirs.encode()
    assert ours.startswith(f"The following are multiple choice questions (with answers) about {curr['category']}.")
    assert ours.endswith("Answer: Let's think step by step.") and "N/A" not in ours


def test_exemplars_are_the_categorys_first_five_in_dev_order_or_fewer(official_dir):
    prompt = our_prompt(TEST[0])
    assert prompt.count("Question:\n") == 6  # five of the seven math exemplars, then the question
    assert "What is 5 + 5?" not in prompt and "What is 4 + 4?" in prompt
    assert our_prompt(TEST[4]).count("Question:\n") == 3  # computer science has two
    assert "Answer: Let's think step by step. CPU abbreviates" in our_prompt(TEST[4])
    for k in range(6):  # fewer exemplars, as the script's lowered k gives them
        assert our_prompt(TEST[2], k) == official_prompt(TEST[2], k)


def test_k_is_lowered_as_the_script_lowers_it(official_dir):
    dev = [engine_question(r) for r in DEV]

    def words(text):  # any tokenizer will do: both sides count with the same one
        return len(text.split()) * 10

    used = []
    for curr in TEST:
        exemplars = protocol_exemplars(COT, [engine_question(curr)], dev)[curr["category"]]
        prompt, k = fit_prompt(COT, curr["question"], curr["options"], curr["category"], exemplars, words)
        assert prompt == official.official_k(official.preprocess(copy.deepcopy(DEV)),
                                                  official.preprocess([copy.deepcopy(curr)])[0], 5, words)
        used.append(k)
    assert used == [2, 2, 5, 4, 2]  # exemplars in the prompt (computer science has two)
    law = [engine_question(r) for r in DEV if r["category"] == "law"][:5]
    assert fit_prompt(COT, "q", ["a", "b"], "law", law, lambda text: 3000) is None  # not even zero-shot fits


EXTRACTION_CASES = [
    ("Both fit, but the answer is (C). Later: Answer: D", "C"),          # pattern 1 decides
    ("so the answer is D because", "D"),                                # pattern 1 without brackets
    ("Reasoning.\nFinal Answer: B\nAnswer: C", "B"),                    # pattern 2: the first line holding it
    ("We pick answer:  E then", "E"),                                   # pattern 2, lower case, spaces
    ("Options A and G look right; G is better.", "G"),                  # pattern 3: the last standalone letter
    ("I think B.\nActually, on reflection, H\nmaybe", "H"),              # pattern 3 across lines (DOTALL)
    ("The answer is (K).", None),                                       # K is no letter of [A-J]
    ("I cannot decide between them.", "I"),                             # the pronoun is a letter to the script
    ("Cannot decide between them.", None),                              # unparsed
    ("", None),
    ("the answer is (a) says nothing; ABC neither", None),
]


@pytest.mark.parametrize("text,expected", EXTRACTION_CASES)
def test_the_answer_is_read_by_the_official_patterns(text, expected, capsys):
    assert extract_answer(text) == official.extract_answer(text) == expected


def test_the_random_guess_reproduces_the_official_figures(tmp_path):
    """Many unread answers over three categories of uneven sizes: the per-category figures the script prints."""
    import random
    rng = random.Random(7)
    rows, res_by_subject, questions, answers = [], {}, [], {}
    # Processed in the sorted order of the categories as published, not this one, nor that of the topics' keys.
    for c, (topic, category) in enumerate([("physics", "physics"), ("biology", "biology"),
                                           ("computer_science", "computer science"),
                                           ("computer_aided", "computer-aided")]):  # the keys sort the other way
        for i in range(60 + 13 * c):
            n = rng.choice([4, 7, 10])
            opts = [f"o{j}" for j in range(n)] + ["N/A"] * (10 - n)  # N/A padding: the guess counts the shown ones
            answer_index = rng.randrange(n)
            pred = rng.choice([None, None, LETTERS[answer_index], "A"])
            qid = f"{category}-{i}"
            questions.append(Question(qid, "?", tuple(opts), None, topic, {"category": category}))
            answers[qid] = {LETTERS[answer_index]}
            rows.append({"question_id": qid, "topic": topic, "variant": "original", "predicted": pred,
                         "correct": pred == LETTERS[answer_index], "parsed": pred is not None})
            res_by_subject.setdefault(category, []).append(
                {"options": [o for o in opts if o != "N/A"], "answer_index": answer_index,
                 "answer": LETTERS[answer_index], "pred": pred})
    figures = official.official_figures(res_by_subject, str(tmp_path / "res.json"))
    scored = apply_guesses(GUESS, rows, questions, answers)
    for category, (_, corr, wrong) in figures.items():
        mine = [r for r in scored if r["question_id"].startswith(f"{category}-")]
        assert (sum(r["correct"] for r in mine), len(mine)) == (corr, corr + wrong)
    guessed = [r for r in scored if r.get("guessed")]
    assert len(guessed) == sum(r["predicted"] is None for r in rows) and 0 < sum(r["correct"] for r in guessed)
    assert apply_guesses(COT, rows, questions, answers) == rows  # the default: unread answers stay wrong


def test_the_protocols_are_named_versioned_and_hashed():
    assert set(PROTOCOLS) == {"mmlu-pro-cot", "mmlu-pro-cot-guess"}
    assert COT.hash != GUESS.hash and len(COT.hash) == 64
    card = COT.describe()
    assert card["version"] == 1 and card["decoding"]["stop"] == ["Question:"] and card["max_new_tokens"] == 2048
    assert card["unparsed"] == "wrong" and GUESS.describe()["guess_seed"] == 12345
    assert "stop" not in GREEDY.describe()  # greedy-v1, as existing runs recorded it
    assert GREEDY_STOP_QUESTION.finish("so (B)\nQuestion: next") == "so (B)\n"
    with pytest.raises(ProtocolError) as refused:
        get_protocol("mmlu-pro")
    assert refused.value.code == "UNKNOWN_PROTOCOL"


# --- end to end on tiny models ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reply_backend(cot_reply_model_dir):
    return create_backend("transformers", str(cot_reply_model_dir), device="cpu", batch_size=2)


@pytest.fixture(scope="module")
def ramble_backend(cot_ramble_model_dir):
    return create_backend("transformers", str(cot_ramble_model_dir), device="cpu", batch_size=2)


QUESTIONS = [engine_question(r) for r in TEST]
DEV_QUESTIONS = [engine_question(r) for r in DEV]


def test_a_run_stops_at_question_and_reads_the_stated_letter(reply_backend):
    calls = []
    generate = reply_backend.model.generate

    def counting(*args, **kwargs):
        out = generate(*args, **kwargs)
        calls.append(out.shape[1] - kwargs["input_ids"].shape[1])
        return out

    reply_backend.model.generate = counting
    try:
        result = run_evaluation(reply_backend, QUESTIONS, dev_questions=DEV_QUESTIONS, protocol="mmlu-pro-cot",
                                chunk_size=2)
    finally:
        reply_backend.model.generate = generate
    assert [r["output"] for r in result.rows] == [" The answer is (B)\n"] * len(QUESTIONS)
    assert max(calls) < 2048 and max(calls) <= 9  # ended at "Question:", not at 2,048 tokens
    by_id = {r["question_id"]: r for r in result.rows}
    assert {q: r["correct"] for q, r in by_id.items()} == {"100": False, "101": False, "102": True, "103": True,
                                                           "104": False}
    assert by_id["100"]["shots"] == 5 and by_id["104"]["shots"] == 2 and by_id["102"]["predicted_original"] == "B"
    assert result.summary["unparsed"]["n"] == 0 and result.summary["overall"]["correct"] == 2
    settings = result.settings
    assert settings["protocol"] == "mmlu-pro-cot" and settings["protocol_hash"] == COT.hash
    assert settings["decoding"]["name"] == "greedy-stop-question-v1" and settings["max_new_tokens"] == 2048
    assert settings["exemplars"] == {"computer science": 2, "law": 5, "math": 5}
    assert reply_backend.describe()["decoding"]["stop"] == ["Question:"]


def test_max_new_tokens_is_honoured_and_an_unread_answer_is_wrong(ramble_backend):
    result = run_evaluation(ramble_backend, QUESTIONS[:2], dev_questions=DEV_QUESTIONS, protocol="mmlu-pro-cot",
                            max_new_tokens=10)
    words = COT_RAMBLE.split()
    assert [r["output"] for r in result.rows] == [" " + " ".join((words * 2)[:10])] * 2
    assert [(r["parsed"], r["predicted"], r["correct"]) for r in result.rows] == [(False, None, False)] * 2
    assert result.summary["unparsed"] == {"n": 2, "rate": 1.0} and result.settings["max_new_tokens"] == 10


def test_protocols_have_plans_of_their_own():
    kwargs = dict(dev_questions=DEV_QUESTIONS, chunk_size=4)
    fingerprints = {plan_evaluation(QUESTIONS, **kwargs).fingerprint,
                    plan_evaluation(QUESTIONS, shots=5, mode="generate", **kwargs).fingerprint,
                    plan_evaluation(QUESTIONS, protocol="mmlu-pro-cot", **kwargs).fingerprint,
                    plan_evaluation(QUESTIONS, protocol="mmlu-pro-cot-guess", **kwargs).fingerprint}
    assert len(fingerprints) == 4


def test_a_category_without_worked_exemplars_is_refused():
    no_cot = [q for q in DEV_QUESTIONS if q.topic != "law"] + [
        Question("90", "Law?", ("a", "b"), frozenset("A"), "law", {"src": "x"})]
    with pytest.raises(ProtocolError) as refused:
        plan_evaluation(QUESTIONS, dev_questions=no_cot, protocol="mmlu-pro-cot")
    assert refused.value.code == "COT_CONTENT_MISSING" and "90" in str(refused.value)
    with pytest.raises(ProtocolError) as refused:
        plan_evaluation(QUESTIONS, dev_questions=[q for q in DEV_QUESTIONS if q.topic != "law"],
                        protocol="mmlu-pro-cot")
    assert refused.value.code == "NO_COT_EXEMPLARS" and "'law'" in str(refused.value)


def test_the_command_line_runs_the_protocol(cot_reply_model_dir, tmp_path):
    from evaluator.cli import main
    questions = write_jsonl(tmp_path / "q.jsonl", [{**r, "topic": r["category"]} for r in TEST])
    dev = write_jsonl(tmp_path / "dev.jsonl", [{**r, "topic": r["category"]} for r in DEV])
    out, summary = tmp_path / "rows.jsonl", tmp_path / "summary.json"
    code = main(["--model", str(cot_reply_model_dir), "--questions", str(questions), "--dev", str(dev),
                 "--out", str(out), "--protocol", "mmlu-pro-cot-guess", "--summary", str(summary), "--quiet"])
    assert code == 0
    report = json.loads(summary.read_text())
    assert report["settings"]["protocol"] == "mmlu-pro-cot-guess" and report["settings"]["guess_seed"] == 12345
    assert report["summary"]["overall"]["correct"] == 2 and "random_guess" not in report["summary"]
    assert [json.loads(line)["output"] for line in out.read_text().splitlines()] == [" The answer is (B)\n"] * 5


def test_the_command_line_refuses_a_dev_file_without_worked_answers(cot_reply_model_dir, tmp_path, capsys):
    from evaluator.cli import main
    questions = write_jsonl(tmp_path / "q.jsonl", [{**r, "topic": r["category"]} for r in TEST])
    dev = write_jsonl(tmp_path / "dev.jsonl", [{k: v for k, v in r.items() if k != "cot_content"} | {
        "topic": r["category"]} for r in DEV])
    code = main(["--model", str(cot_reply_model_dir), "--questions", str(questions), "--dev", str(dev),
                 "--out", str(tmp_path / "rows.jsonl"), "--protocol", "mmlu-pro-cot", "--quiet"])
    assert code == 2 and "error: COT_CONTENT_MISSING:" in capsys.readouterr().err
