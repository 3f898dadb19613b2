"""`manage.py import_benchmark --hub`: a real huggingface_hub client against the fake hub, never the network."""
import pytest
from django.core.management import CommandError, call_command

from leaderboard.benchmarks.models import BenchmarkVersion, Question
from tests.support.fake_hub import files_from_folder
from tests.support.questions import make_questions, write_answer_key, write_hub_folder
from tests.support.refusals import refusal_of

pytestmark = pytest.mark.django_db
REPO_ID = "invented-org/Mobile-MMLU-fixture"


def run_import(*args):
    call_command("import_benchmark", "--benchmark", "mobile-mmlu", "--split", "validation", *map(str, args),
                 verbosity=0)


def stored():
    return {q.uid: q for q in Question.objects.filter(split="validation", version__benchmark__slug="mobile-mmlu")}


def pinned_revision():
    return BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu").source_revision


def hub_files(tmp_path, rows, name="src"):
    """The hub layout (test/<field>.csv) plus a README, as files of a hub repo."""
    files = files_from_folder(write_hub_folder(tmp_path / name, rows))
    files["README.md"] = b"---\nlicense: mit\n---\n# Invented fixture\n"
    return files


@pytest.fixture
def rows():
    return make_questions()


@pytest.fixture
def key(tmp_path, rows):
    return write_answer_key(tmp_path / "key.csv", rows)


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


# --- it works ----------------------------------------------------------------

def test_it_imports_main_and_pins_the_resolved_commit(fake_hub, tmp_path, rows, key):
    repo = fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    run_import("--hub", REPO_ID, "--revision", "main", "--answers", key)

    questions = stored()
    assert sorted(questions) == sorted(r["question_id"] for r in rows)
    q = questions[rows[1]["question_id"]]
    assert q.topic.hub_field == "first_aid" and q.options == rows[1]["options"] and q.answer == rows[1]["answer"]
    assert pinned_revision() == repo.sha and len(repo.sha) == 40  # the sha, never the branch name
    # Every file came from the resolved commit, so a branch moving mid-download cannot mix two commits.
    downloads = [r.path for r in fake_hub.requests if "/resolve/" in r.path]
    assert downloads and all(f"/resolve/{repo.sha}/" in path for path in downloads)
    assert not any("README" in path for path in downloads)  # only the CSV files are fetched


def test_it_imports_a_pinned_sha_even_after_main_moved(fake_hub, tmp_path, rows, key):
    repo = fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    old_sha = repo.sha
    changed = make_questions()
    changed[0]["question"] = "A question reworded in a later commit?"
    repo.commit(hub_files(tmp_path, changed, name="v2"))
    assert repo.sha != old_sha

    run_import("--hub", REPO_ID, "--revision", old_sha, "--answers", key)
    assert stored()[rows[0]["question_id"]].text == rows[0]["question"]
    assert pinned_revision() == old_sha

    run_import("--hub", REPO_ID, "--revision", "main", "--answers", key)  # main now: the new content and sha
    assert stored()[rows[0]["question_id"]].text == "A question reworded in a later commit?"
    assert pinned_revision() == repo.sha


def test_it_resolves_a_tag_to_its_commit(fake_hub, tmp_path, rows, key):
    repo = fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    repo.tag("v1.0")
    run_import("--hub", REPO_ID, "--revision", "v1.0", "--answers", key)
    assert pinned_revision() == repo.sha


def test_it_defaults_to_main_and_treats_a_reimport_as_a_no_op(fake_hub, tmp_path, rows, key, snapshot, capsys):
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    run_import("--hub", REPO_ID, "--answers", key)  # no --revision
    before = snapshot()
    call_command("import_benchmark", "--benchmark", "mobile-mmlu", "--split", "validation", "--hub", REPO_ID,
                 "--answers", str(key), verbosity=0)
    assert snapshot() == before
    assert "identical content already imported" in capsys.readouterr().out


def test_it_reads_a_gated_dataset_with_a_token_that_has_access(fake_hub, tmp_path, rows, key, monkeypatch):
    repo = fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows), gated="manual", tokens=["hf_granted"])
    monkeypatch.setenv("HF_TOKEN", "hf_granted")
    run_import("--hub", REPO_ID, "--revision", "main", "--answers", key)
    assert len(stored()) == len(rows) and pinned_revision() == repo.sha


# --- it refuses, clearly, and writes nothing -----------------------------------

def test_it_handles_an_unknown_repository(fake_hub, snapshot, key):
    message = assert_refused(snapshot, ["--hub", "invented-org/no-such-dataset", "--revision", "main",
                                        "--answers", key],
                             "hub:invented-org/no-such-dataset@main", "not found")
    assert "HF_TOKEN" in message


def test_it_handles_an_unknown_revision(fake_hub, tmp_path, snapshot, rows, key):
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "no-such-branch", "--answers", key],
                   "revision 'no-such-branch' not found", "branch, tag or commit sha")
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "0" * 40, "--answers", key],
                   f"revision {'0' * 40!r} not found")


def test_it_handles_a_private_repository(fake_hub, tmp_path, snapshot, rows, key, monkeypatch):
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows), private=True, tokens=["hf_owner"])
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   "not found", "private", "HF_TOKEN")
    monkeypatch.setenv("HF_TOKEN", fake_hub.add_token("hf_someone_else"))
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key], "not found", "private")


def test_it_handles_a_gated_repository(fake_hub, tmp_path, snapshot, rows, key, monkeypatch):
    """The hub shows a gated repo's info and file list to anyone; only the downloads are refused."""
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows), gated="manual", tokens=["hf_granted"])
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   "the dataset is gated and HF_TOKEN is unset or has no access", "read token")
    monkeypatch.setenv("HF_TOKEN", fake_hub.add_token("hf_not_granted"))  # authenticated, not on the list
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   "the dataset is gated and HF_TOKEN is unset or has no access", "read token")


def test_it_handles_bad_questions_in_the_hub_files_like_local_ones(fake_hub, tmp_path, snapshot, rows, key):
    rows[2]["options"][1] = ""
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   "first_aid.csv, row 4, column 'B'", "option B is empty")


def test_it_handles_a_repository_without_question_files(fake_hub, snapshot, key):
    repo = fake_hub.add_repo(REPO_ID, files={"data/validation.json": b"[]", "README.md": b"# no CSV here\n"})
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   f"no CSV or Parquet files in the dataset at commit {repo.sha}", "test/<field>.csv")


def test_it_handles_an_invalid_repository_id(fake_hub, snapshot, key):
    assert_refused(snapshot, ["--hub", "https://huggingface.co/datasets/MBZUAI-LLM/Mobile-MMLU", "--answers", key],
                   "not a valid hub repository id", "ORG/NAME")
    assert not fake_hub.requests  # refused before any request


def test_it_handles_a_token_the_hub_rejects(fake_hub, tmp_path, snapshot, rows, key, monkeypatch):
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))  # public, but an invalid token is still refused
    monkeypatch.setenv("HF_TOKEN", "hf_expired")
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   "HTTP 401", "Invalid credentials", "check HF_TOKEN")


def test_it_handles_an_unreachable_hub(fake_hub, tmp_path, snapshot, rows, key):
    fake_hub.add_repo(REPO_ID, files=hub_files(tmp_path, rows))
    fake_hub.stop()  # connection refused from now on
    assert_refused(snapshot, ["--hub", REPO_ID, "--revision", "main", "--answers", key],
                   "download failed: ConnectError", "check network access to the hub", "--path")
