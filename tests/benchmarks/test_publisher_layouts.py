"""Other publishers' file layouts (MMLU-Pro's Parquet, MMLU-CF's subject files) through every route: create_benchmark
--topics-from, import_benchmark --path (file or folder) and --hub at a pinned revision (the fake hub)."""
import io

import pytest
from django.core.management import CommandError, call_command

from leaderboard.benchmarks.content_hashes import split_content_hash, stored_questions
from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.models import BenchmarkVersion, Question, Topic
from leaderboard.evaluations import selectors
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from tests.support.fake_hub import files_from_folder
from tests.support.publisher_layouts import (
    CF_SUBJECTS, PRO_CATEGORIES, PRO_TEST, PRO_VALIDATION, make_cf_rows, make_pro_rows, write_cf_file,
    write_mmlu_cf, write_mmlu_pro, write_pro_file,
)
from tests.support.refusals import refusal_of

pytestmark = pytest.mark.django_db
PRO_REPO, CF_REPO = "invented-org/MMLU-Pro-fixture", "invented-org/MMLU-CF-fixture"


def create(slug, source):
    out = io.StringIO()
    call_command("create_benchmark", "--slug", slug, "--topics-from", str(source), stdout=out)
    return out.getvalue()


def run_import(slug, split, *args):
    out = io.StringIO()
    call_command("import_benchmark", "--benchmark", slug, "--split", split, *map(str, args), stdout=out,
                 verbosity=0)
    return out.getvalue()


def stored(slug, split):
    return {q.uid: q for q in Question.objects.filter(version__benchmark__slug=slug, split=split)
            .select_related("topic")}


def refused(snapshot, command, *args):
    """The problems of a refused command, after checking it changed nothing."""
    before = snapshot()
    with pytest.raises(CommandError) as info:
        call_command(command, *map(str, args), stdout=io.StringIO(), verbosity=0)
    assert snapshot() == before, "a refused command changed the database"
    refusal = refusal_of(info.value)
    assert refusal.code == "IMPORT_REFUSED" and info.value.returncode == 2
    return refusal.problems


def only_problem(snapshot, command, *args):
    (problem,) = refused(snapshot, command, *args)
    return problem


def kept_options(row):
    return [option for option in row["options"] if option != "N/A"]


# --- MMLU-Pro ------------------------------------------------------------------

@pytest.fixture
def pro(tmp_path):
    return write_mmlu_pro(tmp_path / "MMLU-Pro")


def test_mmlu_pro_imports_from_its_parquet_files(pro):
    assert "14 topics" in create("mmlu-pro", pro / PRO_TEST)
    assert sorted(Topic.objects.filter(benchmark__slug="mmlu-pro").values_list("name", flat=True)) == list(
        PRO_CATEGORIES)
    run_import("mmlu-pro", "dev", "--path", pro / PRO_VALIDATION)  # the 5-shot CoT exemplars
    report = run_import("mmlu-pro", "validation", "--path", pro / PRO_TEST)  # public, so open here

    test_rows, dev_rows = make_pro_rows(), make_pro_rows(per_category=1, first_id=0, worked=True)
    dev, validation = stored("mmlu-pro", "dev"), stored("mmlu-pro", "validation")
    assert sorted(validation) == sorted(str(r["question_id"]) for r in test_rows)  # int64 ids, stored as text
    assert sorted(dev) == sorted(str(r["question_id"]) for r in dev_rows)
    for row in test_rows:
        q = validation[str(row["question_id"])]
        assert q.topic.name == row["category"] and q.text == row["question"] and q.answer == row["answer"]
        assert q.options == kept_options(row)
        assert q.extra == {"src": row["src"]}  # the test split's cot_content is empty: no key
    for row in dev_rows:
        assert dev[str(row["question_id"])].extra == {"src": row["src"], "cot_content": row["cot_content"]}
    padded = [r for r in test_rows if "N/A" in r["options"]]
    assert padded and f"Dropped {2 * len(padded)} 'N/A' option(s) of {len(padded)} question(s)" in report


def test_mmlu_pro_reimport_is_a_no_op_and_a_changed_chain_of_thought_is_new_content(pro, tmp_path):
    create("mmlu-pro", pro / PRO_TEST)
    run_import("mmlu-pro", "dev", "--path", pro / PRO_VALIDATION)
    assert "nothing changed" in run_import("mmlu-pro", "dev", "--path", pro / PRO_VALIDATION)
    rows = make_pro_rows(per_category=1, first_id=0, worked=True)
    rows[0]["cot_content"] += " Reworded."
    changed = write_pro_file(tmp_path / "changed.parquet", rows)
    assert "replaced the dev split" in run_import("mmlu-pro", "dev", "--path", changed)
    assert stored("mmlu-pro", "dev")["0"].extra["cot_content"].endswith("Reworded.")
    version = BenchmarkVersion.objects.get(benchmark__slug="mmlu-pro")  # stored content hashes as imported
    assert split_content_hash(stored_questions(version=version, split="dev")) == version.split_hashes["dev"]


def test_mmlu_pro_cot_content_is_never_stored_for_the_sealed_split(pro):
    create("mmlu-pro", pro / PRO_TEST)
    report = run_import("mmlu-pro", "test", "--sealed", "--path", pro / PRO_VALIDATION)  # worked answers inside
    rows = make_pro_rows(per_category=1, first_id=0, worked=True)
    assert f"cot_content of {len(rows)} question(s) was not stored" in report and "sealed" in report
    sealed = stored("mmlu-pro", "test")
    assert len(sealed) == len(rows)
    for row in rows:
        q = sealed[str(row["question_id"])]
        assert q.extra == {"src": row["src"]} and q.answer == "" and decrypt_answer(q.answer_sealed) == row["answer"]
    assert not Question.objects.filter(extra__has_key="cot_content").exists()


def test_mmlu_pro_imports_from_its_folder_with_files_chosen(pro, snapshot):
    create("mmlu-pro", pro / PRO_TEST)
    problem = only_problem(snapshot, "import_benchmark", "--benchmark", "mmlu-pro", "--split", "dev", "--path", pro)
    assert problem.file == str(pro / "data") and "'test', 'validation'" in problem.message
    assert "--files 'data/test-*.parquet'" in problem.hint
    run_import("mmlu-pro", "dev", "--path", pro, "--files", "data/validation-*.parquet")
    assert len(stored("mmlu-pro", "dev")) == len(PRO_CATEGORIES)


def test_mmlu_pro_imports_from_the_hub_at_a_pinned_revision(pro, fake_hub):
    files = files_from_folder(pro)
    files["README.md"] = b"---\nlicense: mit\n---\n# Invented fixture\n"
    repo = fake_hub.add_repo(PRO_REPO, files=files)
    pinned = repo.sha
    repo.commit({**files, PRO_TEST: b"not parquet"})  # main moves on; the pinned commit is what is read
    create("mmlu-pro", pro / PRO_TEST)
    run_import("mmlu-pro", "validation", "--hub", PRO_REPO, "--revision", pinned, "--files", "data/test-*.parquet")
    run_import("mmlu-pro", "dev", "--hub", PRO_REPO, "--revision", pinned, "--files", "data/validation-*")

    assert len(stored("mmlu-pro", "validation")) == len(make_pro_rows())
    assert stored("mmlu-pro", "dev")["0"].extra["cot_content"].startswith("A: Let's think step by step.")
    assert BenchmarkVersion.objects.get(benchmark__slug="mmlu-pro").source_revision == pinned
    downloads = {r.path.partition(f"/resolve/{pinned}/")[2] for r in fake_hub.requests if "/resolve/" in r.path}
    assert downloads == {PRO_TEST, PRO_VALIDATION}  # at the pinned commit, only what --files chose (no README)


@pytest.mark.parametrize("options,answer,index,column,fragment", [
    (["a", "N/A", "c", "d"], "C", 2, "options", "'N/A' option (option B) comes at or before the answer 'C'"),
    (["a", "b", "N/A", "d"], "C", 2, "options", "'N/A' option (option C) comes at or before the answer 'C'"),
    (["a", "b", "c", "d"], "B", 2, "answer_index", "answer 'B' disagrees with answer_index '2' (option C)"),
    (["a", "N/A", "N/A", "N/A"], "A", 0, "options", "1 option(s) after dropping 3 'N/A' option(s)"),
    ([f"o{i}" for i in range(11)], "A", 0, "options", "11 options; at most 10"),
])
def test_mmlu_pro_refusals_name_file_row_and_column(tmp_path, snapshot, options, answer, index, column, fragment):
    create("mmlu-pro", write_pro_file(tmp_path / "good.parquet", make_pro_rows()))
    rows = make_pro_rows()
    rows[3].update(options=options, answer=answer, answer_index=index)
    path = write_pro_file(tmp_path / "bad.parquet", rows)
    problem = only_problem(snapshot, "import_benchmark", "--benchmark", "mmlu-pro", "--split", "validation",
                           "--path", path)
    assert (problem.file, problem.row, problem.column) == (str(path), 4, column)
    assert fragment in problem.message and problem.hint


def test_mmlu_pro_refusals_on_the_sealed_split_hide_the_answer(tmp_path, snapshot):
    create("mmlu-pro", write_pro_file(tmp_path / "good.parquet", make_pro_rows()))
    rows = make_pro_rows()
    rows[3].update(options=["a", "b", "N/A", "d"], answer="D", answer_index=3)
    rows[4].update(answer="B", answer_index=2)
    path = write_pro_file(tmp_path / "bad.parquet", rows)
    problems = refused(snapshot, "import_benchmark", "--benchmark", "mmlu-pro", "--split", "test", "--sealed",
                       "--path", path)
    assert [(p.row, p.column) for p in problems] == [(4, "options"), (5, "answer_index")]
    text = " ".join(p.message for p in problems)
    assert "hidden: sealed split" in text and "'D'" not in text and "'B'" not in text and "option C" not in text


# --- MMLU-CF -------------------------------------------------------------------

@pytest.fixture
def cf(tmp_path):
    return write_mmlu_cf(tmp_path / "MMLU-CF", csv_subjects=("Law", "Math"))  # a folder mixing CSV and Parquet


def test_mmlu_cf_takes_subjects_from_its_file_names(cf):
    assert "14 topics" in create("mmlu-cf", cf / "val")
    topics = {t.hub_field: t.name for t in Topic.objects.filter(benchmark__slug="mmlu-cf")}
    assert topics == {subject: subject.replace("_", " ") for subject in CF_SUBJECTS}
    run_import("mmlu-cf", "validation", "--path", cf)  # the dataset's root: val/ is the validation split
    run_import("mmlu-cf", "dev", "--path", cf / "dev")

    for split, part in (("validation", "val"), ("dev", "dev")):
        questions = stored("mmlu-cf", split)
        assert len(questions) == 2 * len(CF_SUBJECTS)
        for subject in CF_SUBJECTS:
            for number, row in enumerate(make_cf_rows(subject, 2, part), start=1):
                q = questions[f"{subject}_{part}-{number}"]  # stable ids: file stem and position
                assert q.topic.hub_field == subject and q.text == row["Question"] and q.answer == row["Answer"]
                assert q.options == [row[letter] for letter in "ABCD"] and q.extra == {}


def test_mmlu_cf_ids_do_not_depend_on_the_file_format(cf, tmp_path):
    create("mmlu-cf", cf / "val")
    single = write_cf_file(tmp_path / "Biology_val.csv", make_cf_rows("Biology", 2, "val"))
    run_import("mmlu-cf", "validation", "--path", single)
    assert sorted(stored("mmlu-cf", "validation")) == ["Biology_val-1", "Biology_val-2"]
    assert "nothing changed" in run_import("mmlu-cf", "validation", "--path", cf / "val" / "Biology_val.parquet")


def test_mmlu_cf_imports_from_the_hub_at_a_pinned_revision(cf, fake_hub):
    repo = fake_hub.add_repo(CF_REPO, files=files_from_folder(cf))
    create("mmlu-cf", cf / "val")
    run_import("mmlu-cf", "validation", "--hub", CF_REPO, "--revision", repo.sha)
    run_import("mmlu-cf", "dev", "--hub", CF_REPO, "--revision", repo.sha)
    assert len(stored("mmlu-cf", "validation")) == len(stored("mmlu-cf", "dev")) == 2 * len(CF_SUBJECTS)
    assert stored("mmlu-cf", "dev")["Law_dev-2"].answer == make_cf_rows("Law", 2, "dev")[1]["Answer"]  # a CSV
    assert BenchmarkVersion.objects.get(benchmark__slug="mmlu-cf").source_revision == repo.sha


def test_mmlu_cf_refusals(cf, snapshot):
    create("mmlu-cf", cf / "val")
    write_cf_file(cf / "val" / "Biology_val.csv", make_cf_rows("Biology", 2, "val"))  # beside its Parquet copy
    problem = only_problem(snapshot, "import_benchmark", "--benchmark", "mmlu-cf", "--split", "validation",
                           "--path", cf)
    assert problem.file == str(cf / "val" / "Biology_val.parquet") and "Biology_val.csv and Biology_val.parquet" \
        in problem.message and "keep one" in problem.hint
    (cf / "val" / "Biology_val.csv").unlink()

    rows = make_cf_rows("Chemistry", 3, "val")
    rows[1]["Answer"] = "E"
    write_cf_file(cf / "val" / "Chemistry_val.parquet", rows)
    write_cf_file(cf / "val" / "Astrology_val.parquet", make_cf_rows("Astrology", 1, "val"))
    problems = refused(snapshot, "import_benchmark", "--benchmark", "mmlu-cf", "--split", "validation", "--path", cf)
    where = {(p.file.rsplit("/", 1)[-1], p.row, p.column) for p in problems}
    assert where == {("Astrology_val.parquet", None, None), ("Chemistry_val.parquet", 2, "answer")}
    assert any("unknown topic/field 'Astrology'" in p.message for p in problems)


def test_create_benchmark_refuses_a_missing_folder_and_a_file_without_topics(tmp_path, snapshot):
    problem = only_problem(snapshot, "create_benchmark", "--slug", "x", "--topics-from", tmp_path / "nowhere")
    assert "no such file or folder" in problem.message
    path = write_cf_file(tmp_path / "questions.parquet", make_cf_rows("Biology", 1))  # a subject file, misnamed
    problem = only_problem(snapshot, "create_benchmark", "--slug", "x", "--topics-from", path)
    assert (problem.file, problem.row, problem.column) == (str(path), 1, "topic") and "file" in problem.hint


# --- Mobile-MMLU-Pro's root file in a folder ----------------------------------------

def test_a_folder_file_with_its_own_topic_column_keeps_it(tmp_path):
    """Mobile-MMLU-Pro keeps all fields in one root file, mobile-mmlu-pro.csv, with a Field column: the file name
    is not its topic."""
    (tmp_path / "pro").mkdir()
    (tmp_path / "pro" / "mobile-mmlu-pro.csv").write_text(
        "question_id,Question,A,B,C,D,Field,answer\n"
        "p1,An invented first aid question?,a,b,c,d,first_aid,B\n"
        "p2,An invented pet care question?,a,b,c,d,pet_care,D\n")
    run_import("mobile-mmlu-pro", "validation", "--path", tmp_path / "pro")
    questions = stored("mobile-mmlu-pro", "validation")
    assert {uid: q.topic.hub_field for uid, q in questions.items()} == {"p1": "first_aid", "p2": "pet_care"}


def test_files_chooses_files_of_a_folder_only(pro, snapshot):
    create("mmlu-pro", pro / PRO_TEST)
    args = ("import_benchmark", "--benchmark", "mmlu-pro", "--split", "dev")
    problem = only_problem(snapshot, *args, "--path", pro / PRO_VALIDATION, "--files", "*.parquet")
    assert problem.file == "--files" and "--path FILE without it" in problem.hint
    for pattern in ("data/dev-*.parquet", "/abs/*.parquet"):
        problem = only_problem(snapshot, *args, "--path", pro, "--files", pattern)
        assert problem.file == str(pro) and f"matches --files {pattern!r}" in problem.message
        assert "relative to the dataset's root" in problem.hint


# --- Imported, then evaluated --------------------------------------------------

def evaluate(model_dir, benchmark, *args):
    out = io.StringIO()
    call_command("evaluate", "--model", str(model_dir), "--benchmark", benchmark, "--split", "validation",
                 "--no-efficiency", "--line", *args, stdout=out, verbosity=0)
    return EvaluationRun.objects.filter(benchmark_version__benchmark__slug=benchmark).latest("pk")


def test_mmlu_cf_as_published_imports_and_evaluates_zero_and_few_shot(cf, biased_model_dir):
    """The validation folder is scored by the engine (the model always answers C), and the dev folder gives each
    subject its exemplars."""
    create("mmlu-cf", cf / "val")
    run_import("mmlu-cf", "validation", "--path", cf / "val")
    run_import("mmlu-cf", "dev", "--path", cf / "dev")
    rows = [row for subject in CF_SUBJECTS for row in make_cf_rows(subject, 2, "val")]
    expected = sum(row["Answer"] == "C" for row in rows) / len(rows)
    for shots in ("0", "2"):
        run = evaluate(biased_model_dir, "mmlu-cf", "--shots", shots)
        assert run.status == RunStatus.SUCCEEDED and run.summary["overall"]["n"] == len(rows) == 28
        assert run.summary["overall"]["accuracy"] == pytest.approx(expected)
        assert len(run.summary["per_topic"]) == len(CF_SUBJECTS)


def test_mmlu_pro_as_published_imports_and_evaluates_up_to_ten_options(tmp_path, biased_model_dir):
    root = write_mmlu_pro(tmp_path / "MMLU-Pro")
    create("mmlu-pro", root / PRO_TEST)
    run_import("mmlu-pro", "validation", "--path", root / PRO_TEST)
    run = evaluate(biased_model_dir, "mmlu-pro")
    rows = {str(r["question_id"]): r for r in make_pro_rows()}
    assert run.status == RunStatus.SUCCEEDED and run.summary["overall"]["n"] == len(rows)
    predicted = {r["question_id"]: r for r in selectors.run_rows(run=run)}
    assert max(len(kept_options(r)) for r in rows.values()) == 10
    for qid, row in rows.items():
        letters = "ABCDEFGHIJ"[:len(kept_options(row))]
        assert set(predicted[qid]["letter_probs"]) == set(letters)  # every kept option scored, N/A never
        if "C" in letters:
            assert predicted[qid]["predicted"] == "C" and predicted[qid]["correct"] == (row["answer"] == "C")
