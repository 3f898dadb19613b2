"""A GGUF run's lm-evaluation-harness JSON names the file it loaded: its name, sha256, type and bytes in `config`,
and `model_args` as the harness loads a GGUF file (the repository and `gguf_file`); a checkpoint's has none of it."""
import pytest
from django.urls import reverse

from tests.boards import ondevice_world as world

pytestmark = pytest.mark.django_db


def _config(client, run):
    response = client.get(reverse("api-run-lm-eval", args=[run.pk]))
    assert response.status_code == 200, response.content[:300]
    return response.json()["config"]


def test_a_submitted_files_document_names_the_file_and_its_sha256(client, demo_loaded):
    config = _config(client, world.file_run("Q4_K_M"))
    size, sha = world.FILES["Q4_K_M"][1], world.sha_of("Q4_K_M")
    assert (config["gguf_file"], config["gguf_sha256"], config["gguf_quantization"], config["gguf_file_bytes"]) == (
        "tiny-Q4_K_M.gguf", sha, "Q4_K_M", size)
    assert config["gguf_parts"] == [{"file": "tiny-Q4_K_M.gguf", "size": size, "sha256": sha}]
    assert config["model_args"] == f"pretrained=org/tiny-GGUF,gguf_file=tiny-Q4_K_M.gguf,revision={'a' * 40}"


def test_a_sealed_gguf_run_names_its_file_too(client, demo_loaded):
    config = _config(client, world.file_run("Q8_0", split="test"))
    assert (config["gguf_file"], config["gguf_sha256"]) == ("tiny-Q8_0.gguf", world.sha_of("Q8_0"))


def test_a_file_made_here_and_a_checkpoint(client, demo_loaded):
    from tests.results.quantized_runs import letter_run, questions

    base = letter_run(world.BASE, world.first_right(world.BASE_RIGHT, len(questions())))
    config = _config(client, world.made_run())
    assert (config["gguf_file"], config["gguf_sha256"], config["gguf_quantization"]) == ("tiny-F16.gguf", "e" * 64,
                                                                                         "F16")
    assert config["model_args"].startswith(f"pretrained={world.MADE},gguf_file=tiny-F16.gguf,")
    assert config["gguf_made_by"]["steps"] == ["convert_hf_to_gguf.py --outtype f16"]
    assert config["gguf_made_by"]["imatrix"] is None and config["gguf_parts"] == []
    checkpoint = _config(client, base)
    assert not [key for key in checkpoint if key.startswith("gguf")]
    assert checkpoint["model_args"] == f"pretrained={world.BASE},revision={'a' * 40},dtype=bfloat16"
