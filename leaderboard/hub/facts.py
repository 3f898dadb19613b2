"""What the hub's answers say about a model: ``ModelFacts``, and the readings of config.json, the file list, the
card and the safetensors counts it is built from. Pure functions of the answers: nothing here asks the hub."""
from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass

from .errors import NO_CONFIG, NO_SAFETENSORS, SubmissionRefused


@dataclass(frozen=True)
class ModelFacts:
    """What the hub says about one model at one commit; stored with the submission."""

    hub_id: str
    revision: str  # as asked (branch, tag or sha)
    revision_sha: str  # the commit it resolved to: evaluate exactly this
    precision: str
    params: int  # parameter count (packed quantized integers expanded, see stored_params)
    stored_params: int  # tensor elements in the safetensors files, as the hub shows them
    safetensors_dtypes: dict  # {"BF16": 7_000_000_000, ...} tensor elements per safetensors dtype
    license: str | None  # the card's license id ("apache-2.0", "other", ...)
    license_name: str | None  # the card's license_name (with license: other)
    architectures: tuple  # config.json "architectures"
    model_type: str  # config.json "model_type"
    pipeline_tag: str | None
    library: str | None  # the hub's library_name
    gated: bool | str  # False, "auto" or "manual"
    private: bool
    siblings: int  # files in the repository at that commit
    quantization: str | None  # the checkpoint's quantization_config.quant_method, None if unquantized
    quantization_bits: int | None
    custom_code: bool  # needs trust_remote_code (then its sha was allow-listed)
    code_files: tuple  # *.py files at the repository root (informative; never run)

    @property
    def architecture(self) -> str | None:
        return self.architectures[0] if self.architectures else None

    def as_dict(self) -> dict:
        data = asdict(self)
        data.update(architectures=list(self.architectures), code_files=list(self.code_files),
                    architecture=self.architecture)
        return data


PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
OTHER_WEIGHT_SUFFIXES = (".gguf", ".h5", ".msgpack", ".onnx", ".ot", ".tflite", ".keras", ".npz")


def human_count(n: float) -> str:
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= size:
            return f"{n / size:.3g}{suffix}"
    return str(int(n))


def parse_config(raw: bytes, where: str) -> dict:
    """config.json as a dict with model_type and architectures (what loaders pick the class by), else NO_CONFIG."""
    try:
        config = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise SubmissionRefused(NO_CONFIG, f"config.json of {where} is not UTF-8 text",
                                "upload the config.json that save_pretrained writes") from None
    except ValueError as exc:
        raise SubmissionRefused(NO_CONFIG, f"config.json of {where} is not valid JSON ({exc})",
                                "fix the file (save_pretrained writes a valid one) and submit the new revision") \
            from None
    if not isinstance(config, dict):
        raise SubmissionRefused(NO_CONFIG, f"config.json of {where} is not a JSON object",
                                "upload the config.json that save_pretrained writes")
    missing = [key for key in ("model_type", "architectures") if not config.get(key)]
    if not isinstance(config.get("architectures", []), list):
        missing.append("architectures (as a list)")
    if missing:
        raise SubmissionRefused(
            NO_CONFIG, f"config.json of {where} has no {' and no '.join(missing)}",
            "transformers and vLLM pick the model class from model_type and architectures; "
            "save the model with save_pretrained, which writes both")
    return config


def weights_problem(files: list[str], where: str) -> SubmissionRefused | None:
    """NO_SAFETENSORS unless safetensors weights sit at the repository root (what the evaluator loads)."""
    root_safetensors = [f for f in files if "/" not in f and f.endswith(".safetensors")]
    if root_safetensors:
        return None
    nested = [f for f in files if f.endswith(".safetensors")]
    pickles = [f for f in files if f.lower().endswith(PICKLE_SUFFIXES)]
    others = [f for f in files if f.lower().endswith(OTHER_WEIGHT_SUFFIXES)]
    hint = ("convert the weights to safetensors (model.save_pretrained(..., safe_serialization=True), or the "
            "hub's convert space) and submit the revision that has them at the repository root")
    if nested:
        return SubmissionRefused(NO_SAFETENSORS, f"{where} has safetensors weights only in sub-folders "
                                                 f"({', '.join(nested[:3])}); the evaluator loads the weights "
                                                 "at the repository root", hint)
    if pickles:
        listed = ", ".join(pickles[:5]) + (f" and {len(pickles) - 5} more" if len(pickles) > 5 else "")
        return SubmissionRefused(NO_SAFETENSORS, f"{where} has only pickle weights ({listed}), which can run code "
                                                 "when loaded; the leaderboard loads safetensors only", hint)
    if others:
        return SubmissionRefused(NO_SAFETENSORS, f"{where} has no safetensors weights, only "
                                                 f"{', '.join(others[:5])}", hint)
    return SubmissionRefused(NO_SAFETENSORS, f"{where} has no weight files at all", hint)


def code_files(files: list[str]) -> tuple:
    return tuple(f for f in files if "/" not in f and f.endswith(".py"))


def auto_map_reasons(config: dict, hub_config: dict, transformers_info) -> list[str]:
    """Why loading needs trust_remote_code: auto_map in config.json (or in the hub's summary of it, or of
    tokenizer_config.json), or a custom class the hub detected."""
    reasons = []
    tokenizer_config = hub_config.get("tokenizer_config")
    for source, auto_map in (("config.json", config.get("auto_map")),
                             ("the hub's config summary", hub_config.get("auto_map")),
                             ("tokenizer_config.json",
                              tokenizer_config.get("auto_map") if isinstance(tokenizer_config, dict) else None)):
        if auto_map and not (source == "the hub's config summary" and reasons):
            if isinstance(auto_map, dict):
                pairs = [f"{key} -> {' / '.join(map(str, filter(None, value))) if isinstance(value, list) else value}"
                         for key, value in list(auto_map.items())[:3]]
                reasons.append(f"{source} has auto_map ({'; '.join(pairs)})")
            else:
                reasons.append(f"{source} has auto_map")
    custom_class = getattr(transformers_info, "custom_class", None) if transformers_info else None
    if custom_class and not reasons:
        reasons.append(f"the hub lists the custom class {custom_class}")
    return reasons


def estimated_params(dtypes: dict, method: str | None, bits: int | None) -> int:
    """Tensor elements, with packed integer weights expanded: GPTQ/AWQ/compressed-tensors keep 32/bits weights
    in one I32, bitsandbytes 4-bit two in one U8. An estimate: a few small I32 tensors (g_idx) are not packed."""
    factors = {}
    if method in ("gptq", "awq", "compressed-tensors") and bits and bits < 32:
        factors["I32"] = 32 / bits
    if method == "bitsandbytes" and bits == 4:
        factors["U8"] = 2
    return int(round(sum(count * factors.get(dtype, 1) for dtype, count in dtypes.items())))


def license_of(info) -> tuple[str | None, str | None]:
    """(license id, license_name) from the card data, else the hub's ``license:`` tag; Nones if it declares none."""
    card = {}
    if info.card_data is not None:
        with contextlib.suppress(Exception):
            card = info.card_data.to_dict() if hasattr(info.card_data, "to_dict") else dict(info.card_data)
    license_id = card.get("license")
    if isinstance(license_id, list):
        license_id = ", ".join(str(x) for x in license_id if x) or None
    if not license_id:
        license_id = next((tag.split(":", 1)[1] for tag in info.tags or [] if tag.startswith("license:")), None)
    name = card.get("license_name") if license_id == "other" else None
    return (str(license_id).strip() or None) if license_id else None, (str(name) if name else None)
