"""The one precision catalogue: the checkpoints each precision runs, its size cap, and the submission model's
choices made from it."""
import pytest

from leaderboard.hub.precisions import PRECISIONS, fitting_precisions, params_cap
from tests.hub.test_checks import LLAMA_CONFIG


@pytest.mark.parametrize("quantization, accepted", [
    (None, ("bfloat16", "float16", "fp8")),
    ({"quant_method": "gptq", "bits": 4}, ("gptq-4bit",)),
    ({"quant_method": "gptq", "bits": 8}, ("gptq-8bit",)),
    ({"quant_method": "awq", "bits": 4, "version": "gemm"}, ("awq-4bit",)),
    ({"quant_method": "fp8", "activation_scheme": "dynamic"}, ("fp8",)),
    ({"quant_method": "fbgemm_fp8"}, ("fp8",)),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True}, ("bnb-4bit",)),
    ({"load_in_8bit": True}, ()),  # bitsandbytes: vLLM 0.33 has none
    ({"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "int"}}}}, ("int8",)),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}}}}, ("fp8",)),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int"}}}}, ()),
    ({"quant_method": "gptq", "bits": 3}, ()),
    ({"quant_method": "hqq", "nbits": 4}, ()),
])
def test_it_matches_precisions_to_checkpoints(quantization, accepted):
    config = dict(LLAMA_CONFIG, **({"quantization_config": quantization} if quantization else {}))
    assert fitting_precisions(config) == accepted


def test_it_caps_by_weight_bits():
    # gguf last: a GGUF file is capped by its size in bytes (GGUF_MAX_BYTES), not by this parameter cap
    assert [params_cap(name) for name in PRECISIONS] == [
        100_000_000_000, 100_000_000_000, 200_000_000_000, 200_000_000_000, 200_000_000_000,
        400_000_000_000, 400_000_000_000, 400_000_000_000, 100_000_000_000]
    assert params_cap("gptq-4bit", 7e9) == 28_000_000_000


def test_the_submission_choices_are_the_catalogue():
    from leaderboard.submissions.models import Precision

    assert Precision.values == list(PRECISIONS)
    assert (Precision.BFLOAT16, Precision.GPTQ_4BIT, Precision.BNB_4BIT) == ("bfloat16", "gptq-4bit", "bnb-4bit")
    assert dict(Precision.choices)["gptq-8bit"] == "Gptq 8Bit"  # the labels the field always had: no migration
