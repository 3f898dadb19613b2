"""check_model: a real huggingface_hub client against the fake hub (tests/support/fake_hub.py), never the network."""
import json

import pytest

from leaderboard.hub.checks import check_model
from leaderboard.hub.errors import CODES, SubmissionRefused
from leaderboard.hub.facts import ModelFacts
from leaderboard.hub.ids import ModelRef
from tests.support.fake_hub import json_file, readme, safetensors_file

REPO_ID = "invented-org/tiny-llama"
LLAMA_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 1, "num_key_value_heads": 4, "vocab_size": 128,
    "torch_dtype": "bfloat16", "bos_token_id": 1, "eos_token_id": 2,
}
TENSORS = {  # 128*64 + 64*64 + 64 + 128*64 = 20_544 elements
    "model.embed_tokens.weight": ("BF16", [128, 64]),
    "model.layers.0.mlp.up_proj.weight": ("BF16", [64, 64]),
    "model.norm.weight": ("F32", [64]),
    "lm_head.weight": ("BF16", [128, 64]),
}
PARAMS = 20_544
CARD = {"license": "apache-2.0", "language": ["en"], "pipeline_tag": "text-generation"}
INFO = {"library_name": "transformers", "pipeline_tag": "text-generation"}


def model_files(config=LLAMA_CONFIG, *, weights=None, card=CARD, extra=None, drop=()):
    files = {
        "config.json": json_file(config),
        "generation_config.json": json_file({"bos_token_id": 1, "eos_token_id": 2}),
        "tokenizer.json": json_file({"version": "1.0", "model": {"type": "BPE"}}),
        "tokenizer_config.json": json_file({"tokenizer_class": "PreTrainedTokenizerFast"}),
        "README.md": readme(card, "# Tiny llama\nAn invented test model.\n"),
        **(weights if weights is not None else {"model.safetensors": safetensors_file(TENSORS)}),
        **(extra or {}),
    }
    for name in drop:
        files.pop(name)
    return files


def add_model(hub, repo_id=REPO_ID, files=None, **kwargs):
    kwargs.setdefault("info", INFO)
    return hub.add_repo(repo_id, repo_type="model", files=model_files() if files is None else files, **kwargs)


def refused(code, hub_id=REPO_ID, revision="main", *, precision="bfloat16", **kwargs) -> SubmissionRefused:
    with pytest.raises(SubmissionRefused) as info:
        check_model(ModelRef(hub_id, revision), precision=precision, **kwargs)
    error = info.value
    assert error.code == code, f"{error.code}: {error.message}"
    assert error.code in CODES and error.message and error.hint
    assert error.as_dict() == {"code": code, "detail": error.message, "hint": error.hint}
    return error


def assert_says(error, *fragments):
    text = f"{error.message}\n{error.hint}"
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"


# --- it works --------------------------------------------------------------------

def test_it_works(fake_hub):
    repo = add_model(fake_hub)
    facts = check_model(ModelRef(REPO_ID, "main"), precision="bfloat16")

    assert isinstance(facts, ModelFacts)
    assert facts.revision_sha == repo.sha and facts.revision == "main"
    assert (facts.params, facts.stored_params) == (PARAMS, PARAMS)
    assert facts.safetensors_dtypes == {"BF16": 20_480, "F32": 64}
    assert (facts.license, facts.license_name) == ("apache-2.0", None)
    assert (facts.architectures, facts.architecture, facts.model_type) == (("LlamaForCausalLM",),
                                                                           "LlamaForCausalLM", "llama")
    assert (facts.pipeline_tag, facts.library) == ("text-generation", "transformers")
    assert (facts.gated, facts.private, facts.custom_code, facts.code_files) == (False, False, False, ())
    assert (facts.quantization, facts.quantization_bits) == (None, None)
    assert facts.siblings == 6 and facts.precision == "bfloat16"
    json.dumps(facts.as_dict())  # storable as JSON

    # two requests: the info (revision resolved there), then config.json at the pinned sha, never at "main"
    seen = [(r.method, r.path) for r in fake_hub.requests]
    assert seen == [("GET", f"/api/models/{REPO_ID}/revision/main"),
                    ("GET", f"/{REPO_ID}/resolve/{repo.sha}/config.json")]
    assert "safetensors" in fake_hub.requests[0].query["expand"]


def test_it_works_with_a_tag_a_branch_and_a_sha(fake_hub):
    repo = add_model(fake_hub)
    first = repo.sha
    repo.tag("v1.0", first)
    second = repo.commit(model_files(extra={"NOTES.md": "v2"}))
    assert second != first

    assert check_model(ModelRef(REPO_ID, "v1.0"), precision="float16").revision_sha == first
    assert check_model(ModelRef(REPO_ID, "main"), precision="float16").revision_sha == second
    assert check_model(ModelRef(REPO_ID, first), precision="float16").revision_sha == first
    assert check_model(ModelRef(REPO_ID), precision="float16").revision == "main"  # the default revision


def test_it_works_with_a_token_from_the_environment(fake_hub, monkeypatch):
    token = "hf_invented_reader"
    add_model(fake_hub, gated="manual", tokens=[token])
    monkeypatch.setenv("HF_TOKEN", token)
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", "/nonexistent")  # only the environment

    facts = check_model(ModelRef(REPO_ID), precision="bfloat16")
    assert facts.gated == "manual"
    assert all(r.headers.get("authorization") == f"Bearer {token}" for r in fake_hub.requests)


# --- UNKNOWN_PRECISION: refused before any request (the id and revision arrive validated, see test_ids) ------

def test_it_handles_an_unknown_precision_without_asking_the_hub(fake_hub):
    add_model(fake_hub)
    assert_says(refused("UNKNOWN_PRECISION", precision="float32"), "unknown precision 'float32'",
                "use one of bfloat16, float16, fp8, int8, gptq-8bit, gptq-4bit, awq-4bit, bnb-4bit")
    assert fake_hub.requests == []


# --- MODEL_NOT_FOUND, REVISION_NOT_FOUND ------------------------------------------------

def test_it_handles_a_missing_model(fake_hub):
    error = refused("MODEL_NOT_FOUND", "invented-org/no-such-model")
    assert_says(error, "no model 'invented-org/no-such-model' on the hub", "or it is private",
                "copying the id from the model's hub page")


@pytest.mark.parametrize("kind", ["dataset", "space"])
def test_it_handles_the_id_of_a_dataset_or_a_space(fake_hub, kind):
    fake_hub.add_repo("invented-org/mobile-things", repo_type=kind, files={"README.md": "# not a model\n"})
    error = refused("MODEL_NOT_FOUND", "invented-org/mobile-things")
    assert_says(error, f"'invented-org/mobile-things' is a {kind} repository on the hub, not a model",
                "submit the id of a model repository")


def test_it_handles_a_disabled_model(fake_hub):
    add_model(fake_hub, disabled=True)
    assert_says(refused("MODEL_NOT_FOUND"), f"{REPO_ID} is disabled on the hub")


def test_it_handles_a_missing_revision(fake_hub):
    repo = add_model(fake_hub)
    assert_says(refused("REVISION_NOT_FOUND", revision="v9.9"),
                f"revision 'v9.9' does not exist in {REPO_ID}", "Files and versions")
    assert_says(refused("REVISION_NOT_FOUND", revision=repo.sha[:7]), "use the full 40-character sha")
    assert_says(refused("REVISION_NOT_FOUND", revision="f" * 40), "does not exist")


# --- GATED, PRIVATE ----------------------------------------------------------------

def test_it_handles_a_gated_model_without_access(fake_hub):
    add_model(fake_hub, gated="manual", tokens=["hf_invented_granted"])
    error = refused("GATED")  # anonymous
    assert_says(error, f"{REPO_ID} is gated (manual approval)", "has no access",
                f"accept the model's conditions on https://huggingface.co/{REPO_ID}", "read token")

    outsider = fake_hub.add_token("hf_invented_outsider")  # a valid token without a grant
    assert_says(refused("GATED", token=outsider), "is gated")

    facts = check_model(ModelRef(REPO_ID), precision="bfloat16", token="hf_invented_granted")
    assert facts.gated == "manual"


def test_it_handles_a_private_model(fake_hub):
    add_model(fake_hub, private=True, tokens=["hf_invented_owner"])
    assert_says(refused("MODEL_NOT_FOUND"), "or it is private")  # without access: indistinguishable from absent
    error = refused("PRIVATE", token="hf_invented_owner")
    assert_says(error, f"{REPO_ID} is a private model", "make the repository public")
    assert len(fake_hub.requests) >= 1 and fake_hub.requests[-1].path.startswith("/api/models/")


# --- NO_CONFIG -----------------------------------------------------------------------

def test_it_handles_a_missing_config(fake_hub):
    add_model(fake_hub, files=model_files(drop=["config.json"]))
    error = refused("NO_CONFIG")
    assert_says(error, "has no config.json at the repository root", "save_pretrained")
    assert len(fake_hub.requests) == 1  # the file list was enough


@pytest.mark.parametrize("raw, fragment", [
    (b'{"architectures": ["LlamaForCausalLM"], "model_type": "llama",', "is not valid JSON"),
    (b'["LlamaForCausalLM"]', "is not a JSON object"),
    (b"\xff\xfe{}", "is not UTF-8 text"),
    (json_file({"architectures": ["LlamaForCausalLM"]}), "has no model_type"),
    (json_file({"model_type": "llama"}), "has no architectures"),
    (json_file({"model_type": "llama", "architectures": "LlamaForCausalLM"}), "has no architectures (as a list)"),
    (b" " * (1 << 20) + b"{}", "is larger than 1024 KiB"),
])
def test_it_handles_a_broken_config(fake_hub, raw, fragment):
    files = model_files()
    files["config.json"] = raw
    add_model(fake_hub, files=files)
    assert_says(refused("NO_CONFIG"), fragment)


# --- NO_SAFETENSORS ------------------------------------------------------------------------

@pytest.mark.parametrize("weights, fragment", [
    ({"pytorch_model.bin": b"\x80\x02pickle"}, "has only pickle weights (pytorch_model.bin)"),
    ({"model.pt": b"x", "consolidated.00.pth": b"x", "last.ckpt": b"x"}, "has only pickle weights"),
    ({"model-q4_k_m.gguf": b"GGUF"}, "has no safetensors weights, only model-q4_k_m.gguf"),
    ({}, "has no weight files at all"),
    ({"checkpoint-500/model.safetensors": safetensors_file(TENSORS)}, "only in sub-folders"),
])
def test_it_handles_a_model_without_safetensors(fake_hub, weights, fragment):
    add_model(fake_hub, files=model_files(weights=weights))
    assert_says(refused("NO_SAFETENSORS"), fragment, "convert the weights to safetensors")


def test_it_handles_unreadable_safetensors_headers(fake_hub):
    add_model(fake_hub, files=model_files(weights={"model.safetensors": b"\xff" * 64}))
    assert_says(refused("NO_SAFETENSORS"), "safetensors headers", "could not be read")


def test_it_reads_the_headers_when_the_hub_has_no_parameter_count(fake_hub):
    add_model(fake_hub, info={**INFO, "safetensors": None})
    facts = check_model(ModelRef(REPO_ID), precision="bfloat16")
    assert (facts.params, facts.safetensors_dtypes) == (PARAMS, {"BF16": 20_480, "F32": 64})
    # the fallback reads byte ranges of the weights' headers, never the whole file
    ranged = [r for r in fake_hub.requests if r.path.endswith("model.safetensors") and r.method == "GET"]
    assert ranged and all("range" in r.headers for r in ranged)


# --- CUSTOM_CODE -------------------------------------------------------------------------

CUSTOM_CONFIG = {**LLAMA_CONFIG, "architectures": ["TinyForCausalLM"], "model_type": "tiny",
                 "auto_map": {"AutoConfig": "configuration_tiny.TinyConfig",
                              "AutoModelForCausalLM": "modeling_tiny.TinyForCausalLM"}}
CUSTOM_CODE_FILES = {"modeling_tiny.py": "import os\n", "configuration_tiny.py": "import os\n"}


def test_it_handles_a_model_that_needs_custom_code(fake_hub):
    repo = add_model(fake_hub, files=model_files(CUSTOM_CONFIG, extra=CUSTOM_CODE_FILES))
    error = refused("CUSTOM_CODE")
    assert_says(error, "needs code from its repository to load (trust_remote_code)",
                "config.json has auto_map (AutoConfig -> configuration_tiny.TinyConfig; "
                "AutoModelForCausalLM -> modeling_tiny.TinyForCausalLM)",
                "never runs code from a model repository", f"allow-list commit {repo.sha}")
    assert_says(refused("CUSTOM_CODE", allow_custom_code_revisions=frozenset({"0" * 40})), "auto_map")

    facts = check_model(ModelRef(REPO_ID), precision="bfloat16", allow_custom_code_revisions=frozenset({repo.sha}))
    assert facts.custom_code is True
    assert facts.code_files == ("configuration_tiny.py", "modeling_tiny.py")


def test_it_handles_a_custom_class_only_the_hub_detected(fake_hub):
    add_model(fake_hub, info={**INFO, "transformersInfo": {"auto_model": "AutoModelForCausalLM",
                                                           "custom_class": "modeling_tiny.TinyForCausalLM"}})
    assert_says(refused("CUSTOM_CODE"), "the hub lists the custom class modeling_tiny.TinyForCausalLM")


def test_it_handles_a_custom_tokenizer(fake_hub):
    add_model(fake_hub, config={**LLAMA_CONFIG, "tokenizer_config": {
        "auto_map": {"AutoTokenizer": ["tokenization_tiny.TinyTokenizer", None]}}})
    assert_says(refused("CUSTOM_CODE"), "tokenizer_config.json has auto_map (AutoTokenizer -> "
                                        "tokenization_tiny.TinyTokenizer)")


def test_it_works_with_python_files_that_are_not_needed(fake_hub):
    add_model(fake_hub, files=model_files(extra={"convert_checkpoint.py": "print('hi')\n"}))
    facts = check_model(ModelRef(REPO_ID), precision="bfloat16")
    assert (facts.custom_code, facts.code_files) == (False, ("convert_checkpoint.py",))


# --- NO_LICENSE -------------------------------------------------------------------------------

def test_it_handles_a_model_without_a_license(fake_hub):
    add_model(fake_hub, files=model_files(card={"language": ["en"]}))
    assert_says(refused("NO_LICENSE"), "declares no license", "license: apache-2.0", "README.md")


def test_it_works_with_other_license_forms(fake_hub):
    add_model(fake_hub, files=model_files(card={"license": "other", "license_name": "invented-community",
                                                "license_link": "LICENSE"}))
    facts = check_model(ModelRef(REPO_ID), precision="bfloat16")
    assert (facts.license, facts.license_name) == ("other", "invented-community")

    add_model(fake_hub, "invented-org/tagged", files=model_files(card=None), tags=["license:mit"])
    assert check_model(ModelRef("invented-org/tagged"), precision="bfloat16").license == "mit"


# --- TOO_LARGE and precisions -----------------------------------------------------------------

def test_it_handles_a_model_over_the_size_cap(fake_hub):
    add_model(fake_hub, safetensors=150_000_000_000)  # what the hub reports for a 150B bf16 model
    error = refused("TOO_LARGE", precision="bfloat16")
    assert_says(error, "has about 150B parameters, over the cap of 100B at bfloat16 (16-bit)",
                "16-bit 100B, 8-bit 200B, 4-bit 400B", "quantized checkpoint")
    assert check_model(ModelRef(REPO_ID), precision="fp8").params == 150_000_000_000  # fp8 on load: cap 200B
    assert len([r for r in fake_hub.requests if "/resolve/" in r.path and "safetensors" in r.path]) == 0


def test_it_handles_the_cap_from_real_headers(fake_hub):
    add_model(fake_hub)
    assert_says(refused("TOO_LARGE", max_params_16bit=20_000), "20.5K parameters", "cap of 20K")
    assert check_model(ModelRef(REPO_ID), precision="bfloat16", max_params_16bit=20_544).params == PARAMS


def test_it_counts_packed_quantized_weights(fake_hub):
    gptq = {**LLAMA_CONFIG, "torch_dtype": "float16",
            "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}}
    packed = {"model.layers.0.mlp.up_proj.qweight": ("I32", [8, 64]),  # 64x64 4-bit weights, 8 per int32
              "model.layers.0.mlp.up_proj.scales": ("F16", [1, 64]),
              "model.embed_tokens.weight": ("F16", [128, 64])}
    add_model(fake_hub, files=model_files(gptq, weights={"model.safetensors": safetensors_file(packed)}))
    facts = check_model(ModelRef(REPO_ID), precision="gptq-4bit")
    assert (facts.quantization, facts.quantization_bits) == ("gptq", 4)
    assert facts.stored_params == 8 * 64 + 64 + 128 * 64
    assert facts.params == 64 * 64 + 64 + 128 * 64

    # a big GPTQ model: the hub shows 62B stored elements, the model has ~482B parameters
    add_model(fake_hub, "invented-org/huge-gptq", files=model_files(gptq),
              safetensors={"parameters": {"I32": 60_000_000_000, "F16": 2_000_000_000}, "total": 62_000_000_000})
    error = refused("TOO_LARGE", "invented-org/huge-gptq", precision="gptq-4bit")
    assert_says(error, "about 482B parameters (62B stored, packed)", "cap of 400B at gptq-4bit (4-bit)")


@pytest.mark.parametrize("quantization, precision, fragments", [
    ({"quant_method": "gptq", "bits": 4}, "bfloat16",
     ["precision 'bfloat16' (an unquantized checkpoint, run with dtype=bfloat16) does not fit",
      "it is a gptq checkpoint with 4-bit weights", "submit it with precision gptq-4bit"]),
    (None, "gptq-4bit", ["precision 'gptq-4bit' (a GPTQ checkpoint with bits=4", "it is an unquantized checkpoint",
                         "submit it with precision bfloat16 or float16 or fp8"]),
    (None, "bnb-4bit", ["precision 'bnb-4bit' (a bitsandbytes load_in_4bit checkpoint; refused at intake",
                        "not supported by vLLM 0.33", "submit it with precision bfloat16 or float16 or fp8"]),
    ({"load_in_8bit": True}, "int8", ["not bitsandbytes load_in_8bit", "it is a bitsandbytes checkpoint with 8-bit",
                                      "bitsandbytes checkpoints are not evaluated", "the unquantized checkpoint"]),
    ({"quant_method": "hqq", "nbits": 4}, "bnb-4bit", ["it is a hqq checkpoint",
                                                       "the evaluator loads: bfloat16: an unquantized checkpoint"]),
])
def test_it_handles_a_precision_that_does_not_fit_the_checkpoint(fake_hub, quantization, precision, fragments):
    config = dict(LLAMA_CONFIG, **({"quantization_config": quantization} if quantization else {}))
    add_model(fake_hub, files=model_files(config))
    assert_says(refused("UNKNOWN_PRECISION", precision=precision), *fragments)


# --- HUB_UNAVAILABLE ---------------------------------------------------------------------------------

def test_it_handles_an_unreachable_hub(fake_hub):
    add_model(fake_hub)
    fake_hub.stop()
    error = refused("HUB_UNAVAILABLE")
    assert error.retryable
    assert_says(error, "the hub could not be reached (ConnectError)", "try again in a few minutes")


def test_it_handles_a_token_the_hub_refuses(fake_hub):
    add_model(fake_hub)
    error = refused("HUB_UNAVAILABLE", token="hf_invented_revoked")
    assert_says(error, "the hub answered HTTP 401: Invalid credentials in Authorization header",
                "an administrator must replace it")
