"""POST /api/v1/submissions/ with a GGUF file whose header lies or overflows (issue 31, findings 7 and 8), on
PostgreSQL: a claimed type its tensors contradict and a shape past bigint are 400s with their codes that store
nothing; header text with NUL, or longer than its column, is stored replaced and cut."""
import gguf
import pytest
from django.urls import reverse

from leaderboard.submissions.models import ModelEntry, Submission
from tests.support.fake_hub import readme
from tests.support.raw_gguf import gguf_file, model_keys

pytestmark = pytest.mark.django_db
T = gguf.GGMLQuantizationType
WEIGHTS = [f"blk.{i}.{role}.weight" for i in range(2) for role in ("attn_q", "attn_k", "attn_v", "attn_output")]


@pytest.fixture
def submit(client, author, fake_hub):
    """Put a GGUF file on the fake hub (``card``: the model card's metadata) and submit it as the author."""
    client.force_login(author)

    def submit(data: bytes, repo: str = "org/raw-GGUF", **card):
        fake_hub.add_repo(repo, repo_type="model", files={"README.md": readme(card), "m.gguf": data})
        return client.post(reverse("api-submissions"), {"hub_id": repo, "gguf_file": "m.gguf"},
                           content_type="application/json")
    return submit


def test_a_file_claiming_q4_k_m_with_only_f32_tensors_is_refused(submit, snapshot):
    data = gguf_file(model_keys(file_type=gguf.LlamaFileType.MOSTLY_Q4_K_M), [(n, (32, 8), T.F32) for n in WEIGHTS])
    before = snapshot()
    response = submit(data, license="mit")
    body = response.json()
    assert response.status_code == 400 and body["code"] == "GGUF_QUANT_MISMATCH", body
    assert "Q4_K_M" in body["detail"] and "F32" in body["detail"]
    assert snapshot() == before
    honest = gguf_file(model_keys(file_type=gguf.LlamaFileType.ALL_F32), [(n, (32, 8), T.F32) for n in WEIGHTS])
    response = submit(honest, repo="org/honest-GGUF", license="mit")
    assert response.status_code == 201 and response.json()["gguf_quantization"] == "F32", response.content


@pytest.mark.parametrize("shape, kind", [((1 << 32, 1 << 32), 99), ((1 << 62, 2), T.F32)])
def test_parameters_past_bigint_are_refused_and_store_nothing(submit, snapshot, shape, kind):
    data = gguf_file(model_keys(), [("blk.0.attn_q.weight", shape, kind)], data=False)
    before = snapshot()
    response = submit(data, license="mit")
    assert response.status_code == 400 and response.json()["code"] == "GGUF_PARAMS_OUT_OF_RANGE", response.content
    assert snapshot() == before


def test_header_text_with_nul_or_past_its_column_is_stored_replaced_and_cut(submit):
    data = gguf_file(model_keys(name=b"Tiny\x00Model", license="apache-2.0\x00" + "x" * 400),
                     [(n, (32, 8), T.F32) for n in WEIGHTS])
    response = submit(data)  # no licence on the card: the file's general.license
    assert response.status_code == 201, response.content
    facts = Submission.objects.get(pk=response.json()["id"]).gguf_facts
    assert facts["name"] == "Tiny\ufffdModel" and facts["license"].startswith("apache-2.0\ufffdxxx")
    entry = ModelEntry.objects.get(hub_id="org/raw-GGUF/m.gguf")
    limit = ModelEntry._meta.get_field("license").max_length
    assert len(entry.license) == limit and entry.license.startswith("apache-2.0\ufffd") and entry.params == 2048
