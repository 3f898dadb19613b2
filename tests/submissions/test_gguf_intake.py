"""POST /api/v1/submissions/ with gguf_file: a GGUF file on the (fake) hub as a model of its own. Accepted with its
header's facts and llamacpp runs; each refusal with its code and nothing stored; duplicates by the file's sha256;
one sealed run per pinned file; the worker's download checked against the pinned sha256."""
import hashlib

import pytest
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry, Submission
from tests.support.fake_hub import readme
from tests.support.tiny_gguf import tiny_gguf

pytestmark = pytest.mark.django_db
REPO = "org/tiny-GGUF"


@pytest.fixture
def api(client, author):
    """POST a GGUF submission as the author: the Q8_0 file of REPO unless told otherwise."""
    client.force_login(author)
    return lambda **data: client.post(reverse("api-submissions"), {
        "hub_id": REPO, "gguf_file": "tiny-Q8_0.gguf", **data}, content_type="application/json")


@pytest.fixture
def gguf_repo(fake_hub):
    files = {"README.md": readme({"license": "apache-2.0", "base_model": "org/tiny"}),
             "tiny-Q8_0.gguf": tiny_gguf(), "tiny-Q4_0.gguf": tiny_gguf(file_type=2)}
    return fake_hub.add_repo(REPO, repo_type="model", files=files)


def test_a_gguf_file_is_accepted_with_its_facts_and_llamacpp_runs(api, gguf_repo):
    response = api()
    assert response.status_code == 201, response.content
    body = response.json()
    data = gguf_repo.commits[gguf_repo.sha].files["tiny-Q8_0.gguf"].data
    assert body["hub_id"] == f"{REPO}/tiny-Q8_0.gguf" and body["revision_sha"] == gguf_repo.sha
    assert (body["gguf_file"], body["gguf_quantization"], body["precision"]) == ("tiny-Q8_0.gguf", "Q8_0", "gguf")
    assert body["gguf_sha256"] == hashlib.sha256(data).hexdigest()
    facts = Submission.objects.get(pk=body["id"]).gguf_facts
    assert (facts["architecture"], facts["context_length"], facts["base_model"], facts["size"]) == (
        "llama", 2048, "org/tiny", len(data))
    entry = ModelEntry.objects.get(hub_id=f"{REPO}/tiny-Q8_0.gguf")
    assert (entry.gguf_file, entry.quantization, entry.architecture, entry.params, entry.repo_id) == (
        "tiny-Q8_0.gguf", "Q8_0", "llama", 32, REPO)
    runs = EvaluationRun.objects.filter(submission_id=body["id"])
    assert {r.split for r in runs} == {"validation", "test"}
    assert {(r.backend, r.model_ref, r.model_revision, r.precision) for r in runs} == {
        ("llamacpp", f"{REPO}/tiny-Q8_0.gguf", gguf_repo.sha, "gguf")}
    # what the GPU worker checks the download against, on the run (its database role cannot read submissions)
    assert all(r.model_files == [{"file": "tiny-Q8_0.gguf", "size": len(data), "sha256": body["gguf_sha256"]}]
               for r in runs)


def _bad_repo(fake_hub, name, files, **card):
    fake_hub.add_repo(f"org/{name}", repo_type="model",
                      files={"README.md": readme({"license": "mit", **card}), **files})
    return f"org/{name}"


def test_each_refusal_has_its_code_and_stores_nothing(api, fake_hub, settings, snapshot):
    good = tiny_gguf()
    cases = {
        "NOT_GGUF": ({"m.gguf": b"PK\x03\x04" + bytes(200)}, "m.gguf", "GGUF magic"),
        "GGUF_TRUNCATED": ({"m.gguf": tiny_gguf(tokens=3000)[:20000]}, "m.gguf", "cut short"),
        "GGUF_SPLIT_INCOMPLETE": ({"m-00001-of-00003.gguf": tiny_gguf(split=(0, 3)),
                                   "m-00003-of-00003.gguf": tiny_gguf(split=(2, 3), metadata=False)},
                                  "m-00001-of-00003.gguf", "m-00002-of-00003.gguf"),
        "GGUF_ARCH_UNSUPPORTED": ({"m.gguf": tiny_gguf(arch="tinyphone")}, "m.gguf", "'tinyphone'"),
        "GGUF_NO_TOKENIZER": ({"m.gguf": tiny_gguf(tokenizer=False)}, "m.gguf", "tokenizer.ggml.model"),
        "GGUF_NOT_FOUND": ({"m.gguf": good}, "other.gguf", "m.gguf"),
    }
    before = snapshot()
    for code, (files, name, words) in cases.items():
        repo = _bad_repo(fake_hub, code.lower().replace("_", "-"), files)
        response = api(hub_id=repo, gguf_file=name)
        assert response.status_code == 400 and response.json()["code"] == code, (code, response.content)
        assert words in response.json()["detail"] and response.json()["hint"], response.json()
    settings.GGUF_MAX_BYTES = len(good) - 1
    response = api(hub_id=_bad_repo(fake_hub, "large", {"m.gguf": good}), gguf_file="m.gguf")
    assert response.json()["code"] == "GGUF_TOO_LARGE" and "over the cap" in response.json()["detail"]
    response = api(gguf_file="../tiny.gguf")
    assert response.status_code == 400 and response.json()["code"] == "INVALID_ID"
    settings.GGUF_MAX_BYTES = 1 << 30
    fake_hub.add_repo("org/gated", repo_type="model", gated="auto",
                      files={"README.md": readme({"license": "mit"}), "m.gguf": good})
    response = api(hub_id="org/gated", gguf_file="m.gguf")  # its header cannot be read without access
    assert response.json()["code"] == "GATED" and "org/gated" in response.json()["detail"]
    assert snapshot() == before


def test_the_same_file_twice_is_a_duplicate_and_another_file_is_another_model(api, client, gguf_repo, snapshot):
    first = api().json()
    before = snapshot()
    again = api()
    assert again.status_code == 409 and again.json()["existing_submission"] == first["id"]
    # The same bytes at a new commit, or in another repository, are the same pinned file.
    gguf_repo.commit({**{p: b.data for p, b in gguf_repo.commits[gguf_repo.sha].files.items()},
                      "notes.txt": b"new commit"})
    moved = api()
    assert moved.status_code == 409 and snapshot() == before
    other = api(gguf_file="tiny-Q4_0.gguf")
    assert other.status_code == 201 and other.json()["hub_id"] == f"{REPO}/tiny-Q4_0.gguf"
    assert other.json()["gguf_quantization"] == "Q4_0"
    assert ModelEntry.objects.filter(hub_id__startswith=REPO).count() == 2
    rows = client.get(reverse("api-submissions"), {"format": "csv"}).content.decode().splitlines()
    assert rows[0].split(",")[9:12] == ["gguf_file", "gguf_sha256", "gguf_quantization"]
    assert any(",tiny-Q4_0.gguf," in row and ",Q4_0," in row for row in rows[1:])


def test_the_sealed_split_runs_once_per_pinned_file(api, gguf_repo):
    first = api().json()
    assert sorted(r["split"] for r in first["runs"]) == ["test", "validation"]
    chat = api(use_chat_template=True)  # other settings: a submission of its own, but no second sealed run
    assert chat.status_code == 201 and [r["split"] for r in chat.json()["runs"]] == ["validation"]
    # a new commit where the file is unchanged: still the same pinned file
    gguf_repo.commit({**{p: b.data for p, b in gguf_repo.commits[gguf_repo.sha].files.items()}, "x.txt": b"x"})
    moved = api(model_type="instruct", use_chat_template=False)
    assert moved.status_code == 201 and [r["split"] for r in moved.json()["runs"]] == ["validation"]


def test_the_quota_counts_gguf_submissions(api, gguf_repo, settings, snapshot):
    settings.SUBMISSION_QUOTA = 1
    assert api().status_code == 201
    before = snapshot()
    refused = api(gguf_file="tiny-Q4_0.gguf")
    assert refused.status_code == 429 and refused.json()["code"] == "QUOTA_EXCEEDED" and snapshot() == before


def test_the_submit_form_takes_a_gguf_file(client, author, gguf_repo):
    client.force_login(author)
    page = client.get(reverse("submit"))
    assert b"GGUF file (optional)" in page.content
    refused = client.post(reverse("submit"), {"hub_id": REPO, "revision": "main", "gguf_file": "nope.gguf",
                                              "precision": "bfloat16", "model_type": "pretrained",
                                              "benchmarks": ["mobile-mmlu"]})
    assert refused.status_code == 200
    assert "nope.gguf" in refused.context["form"].errors["gguf_file"][0]
    accepted = client.post(reverse("submit"), {"hub_id": REPO, "revision": "main", "gguf_file": "tiny-Q8_0.gguf",
                                               "precision": "bfloat16", "model_type": "pretrained",
                                               "benchmarks": ["mobile-mmlu"]})
    assert accepted.status_code == 302
    assert Submission.objects.get().model.hub_id == f"{REPO}/tiny-Q8_0.gguf"


def test_the_worker_fetches_the_pinned_file_and_refuses_other_bytes(api, gguf_repo, monkeypatch):
    from leaderboard.evaluations import gguf_fetch, runner

    body = api().json()
    run = EvaluationRun.objects.get(submission_id=body["id"], split="validation")
    loaded = {}
    monkeypatch.setattr(runner, "create_backend", lambda name, path, **kwargs: loaded.update(name=name, path=path))
    runner.load_backend(run, device="cpu")
    assert loaded["name"] == "llamacpp" and loaded["path"].endswith("tiny-Q8_0.gguf")
    with open(loaded["path"], "rb") as handle:
        assert hashlib.sha256(handle.read()).hexdigest() == body["gguf_sha256"]

    run.model_files[0]["sha256"] = "0" * 64  # as if the hub served other bytes than were pinned
    run.save()
    with pytest.raises(gguf_fetch.GGUFChecksumMismatch) as caught:
        runner.load_backend(run, device="cpu")
    assert body["gguf_sha256"] in str(caught.value) and "0" * 64 in str(caught.value)
    from pathlib import Path
    assert not Path(loaded["path"]).exists()  # the bad copy is gone: the next attempt downloads afresh


def test_the_model_page_and_api_name_the_file_and_its_quantization(client, api, gguf_repo):
    api()
    entry = f"{REPO}/tiny-Q8_0.gguf"
    page = client.get(reverse("model-detail", args=[entry]))
    assert page.status_code == 200
    line = page.content.decode().split('id="model-gguf"')[1].split("</p>")[0]
    assert "tiny-Q8_0.gguf" in line and "(Q8_0)" in line and f'href="https://huggingface.co/{REPO}"' in line
    detail = client.get(reverse("api-model-detail", args=[entry])).json()
    assert (detail["gguf_file"], detail["quantization"], detail["architecture"]) == ("tiny-Q8_0.gguf", "Q8_0",
                                                                                      "llama")


def test_the_submit_command_and_a_rerun_keep_the_pinned_file(author, gguf_repo, capsys):
    import json

    from django.core.management import CommandError, call_command

    from leaderboard.evaluations.admin_services import run_rerun

    call_command("submit", REPO, "--user", "author", "--gguf-file", "tiny-Q4_0.gguf")
    body = json.loads(capsys.readouterr().out)
    assert (body["hub_id"], body["gguf_quantization"]) == (f"{REPO}/tiny-Q4_0.gguf", "Q4_0")
    with pytest.raises(CommandError, match="GGUF_NOT_FOUND"):
        call_command("submit", REPO, "--user", "author", "--gguf-file", "missing.gguf")
    run = EvaluationRun.objects.get(submission_id=body["id"], split="validation")
    again = run_rerun(run, actor=author, reason="a test")
    assert (again.backend, again.model_ref, again.model_files) == (run.backend, run.model_ref, run.model_files)
    assert again.model_files[0]["sha256"] == body["gguf_sha256"]
