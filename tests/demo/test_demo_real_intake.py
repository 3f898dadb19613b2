"""The demo's real model enters by GGUF intake's own checks, not as a hand-made row: load_real_gguf reads the file's
header with intake's parser, names its quantization from its tensors and refuses, storing nothing, what intake would
refuse (here a header that claims Q4_K_M over F32 weights). Tiny files written with the gguf package's writer stand
in for the real one (tests/demo/test_demo_real_gguf.py reads the real one in the llama.cpp phase)."""
import io

import pytest
from django.core.management import CommandError, call_command

from evaluator.gguf_convert import file_sha256
from evaluator.real_gguf import RealGGUF
from leaderboard.demo import real_model
from leaderboard.demo.local_hub import demo_revision
from leaderboard.demo.management.commands import load_real_gguf
from leaderboard.evaluations.gguf_fetch import fetch_gguf
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry
from tests.support.tiny_gguf import tiny_gguf

pytestmark = pytest.mark.django_db
WEIGHTS = {"blk.0.attn_q.weight": (64, 256), "blk.0.ffn_up.weight": (64, 256), "blk.0.attn_norm.weight": (256,)}


def stand_in(monkeypatch, tmp_path, data: bytes) -> RealGGUF:
    path = tmp_path / "tiny-Q4_K_M.gguf"
    path.write_bytes(data)
    model = RealGGUF(package="-", file_name=path.name, size=len(data), sha256=file_sha256(path),
                     hub_repo="demo-test/tiny-GGUF", base_model="org/tiny", quantization="Q4_K_M", license="mit")
    monkeypatch.setattr(real_model, "DEMO_REAL_MODELS", (model,))
    monkeypatch.setattr(load_real_gguf, "DEMO_REAL_MODELS", (model,))
    monkeypatch.setattr(load_real_gguf, "real_gguf_file", lambda m: path)
    return model


def test_the_file_is_registered_with_intakes_facts_where_the_workers_download_finds_it(
        fake_hub, demo_loaded, monkeypatch, tmp_path):
    model = stand_in(monkeypatch, tmp_path, tiny_gguf(file_type=15, tensors=WEIGHTS, tokens=40))  # MOSTLY_Q4_K_M
    out = io.StringIO()
    call_command("load_real_gguf", "--register-only", stdout=out)
    entry = ModelEntry.objects.get(hub_id=model.hub_id)
    assert (entry.gguf_file, entry.quantization, entry.architecture, entry.license, entry.params) == (
        model.file_name, "Q4_K_M", "llama", "mit", 2 * 64 * 256 + 256)
    assert f"revision {demo_revision(model)[:12]} (the demo's)" in out.getvalue()
    parts = [{"file": model.file_name, "size": model.size, "sha256": model.sha256}]
    path = fetch_gguf(model_ref=entry.hub_id, revision=demo_revision(model), parts=parts)
    assert path.read_bytes() == (tmp_path / model.file_name).read_bytes() and fake_hub.requests == []


def test_a_file_intake_refuses_is_refused_with_its_code_and_nothing_stored(fake_hub, demo_loaded, monkeypatch,
                                                                           tmp_path):
    types = {"blk.0.attn_q.weight": "F32", "blk.0.ffn_up.weight": "F32"}  # says Q4_K_M, holds F32 weights
    model = stand_in(monkeypatch, tmp_path, tiny_gguf(file_type=15, tensors=WEIGHTS, types=types))
    with pytest.raises(CommandError, match=r"GGUF_QUANT_MISMATCH: demo-test/tiny-GGUF/tiny-Q4_K_M\.gguf: .*F32"):
        call_command("load_real_gguf", stdout=io.StringIO())
    assert not ModelEntry.objects.filter(hub_id=model.hub_id).exists() and not EvaluationRun.objects.exists()
