"""Everything the submission path asks the Hugging Face hub, in one place, on ``huggingface_hub``.

``check_model`` answers "may this model be evaluated?" with ``ModelFacts`` or refuses with
``SubmissionRefused(code, message, hint)`` (ARCHITECTURE §9). It never downloads weights: the parameter count comes
from the safetensors metadata the hub computes from the file headers.

A successful check makes two hub requests:

1. ``GET /api/models/{id}/revision/{revision}?expand=...`` (``HfApi.model_info``): resolves the revision to a
   commit sha and returns the file list, the hub's config summary, the card data (license), the gate and
   privacy flags and the safetensors parameter counts by dtype;
2. ``GET /{id}/resolve/{sha}/config.json``: the full config at the pinned sha (``auto_map``,
   ``quantization_config``, ``architectures``). It is also the access check: a gated repo's info is public,
   its files are not. It is read through huggingface_hub's own session, header builder and error mapping
   (what ``model_info`` uses), capped at 1 MiB and never written to the cache.

Only when the hub has no safetensors summary for a repo that does have ``.safetensors`` files does
``get_safetensors_metadata`` read the headers (byte ranges, a few more requests). Refusals that need only the
first answer stop there; an id, revision or precision that is malformed is refused before any request.

Pure module: no Django models, no settings; the caller passes the limits and the allow-list.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import re
from dataclasses import asdict, dataclass

from .hub_ids import HubIdError, validate_hub_id, validate_revision

# --- refusal codes -------------------------------------------------------------

INVALID_ID = "INVALID_ID"
MODEL_NOT_FOUND = "MODEL_NOT_FOUND"
REVISION_NOT_FOUND = "REVISION_NOT_FOUND"
GATED = "GATED"
PRIVATE = "PRIVATE"
NO_SAFETENSORS = "NO_SAFETENSORS"
CUSTOM_CODE = "CUSTOM_CODE"
TOO_LARGE = "TOO_LARGE"
NO_LICENSE = "NO_LICENSE"
NO_CONFIG = "NO_CONFIG"
HUB_UNAVAILABLE = "HUB_UNAVAILABLE"
UNKNOWN_PRECISION = "UNKNOWN_PRECISION"
CODES = (INVALID_ID, MODEL_NOT_FOUND, REVISION_NOT_FOUND, GATED, PRIVATE, NO_SAFETENSORS, CUSTOM_CODE, TOO_LARGE,
         NO_LICENSE, NO_CONFIG, HUB_UNAVAILABLE, UNKNOWN_PRECISION)


class SubmissionRefused(Exception):
    """A model the leaderboard will not evaluate: ``code`` (one of CODES), ``message`` (what), ``hint`` (fix).

    ``retryable`` is true only for HUB_UNAVAILABLE: the same request may pass later (an API would answer 503).
    """

    def __init__(self, code: str, message: str, hint: str = ""):
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.hint = code, message, hint

    @property
    def retryable(self) -> bool:
        return self.code == HUB_UNAVAILABLE

    def as_dict(self) -> dict:
        return {"code": self.code, "detail": self.message, "hint": self.hint}


# --- precisions ----------------------------------------------------------------

@dataclass(frozen=True)
class Precision:
    """A precision a submission can ask for: its weight bits (they set the size cap) and what it loads."""

    name: str
    bits: int
    loads: str  # the checkpoints it accepts and how vLLM runs them (documentation, shown in refusals)
    unquantized_ok: bool  # also runs an unquantized 16/32-bit checkpoint (cast, or quantized on the fly)


PRECISIONS: dict[str, Precision] = {p.name: p for p in (
    Precision("bfloat16", 16, "an unquantized checkpoint, run with dtype=bfloat16", True),
    Precision("float16", 16, "an unquantized checkpoint, run with dtype=float16", True),
    Precision("fp8", 8, "an FP8 checkpoint (quant_method fp8 / fbgemm_fp8, or compressed-tensors with 8-bit "
                        "float weights), or an unquantized one quantized on load (vLLM quantization=fp8)", True),
    Precision("int8", 8, "an INT8 checkpoint: compressed-tensors with 8-bit integer weights (W8A8 / W8A16); "
                         "not bitsandbytes load_in_8bit (vLLM 0.33 has no bitsandbytes)", False),
    Precision("gptq-8bit", 8, "a GPTQ checkpoint with bits=8 (vLLM gptq / gptq_marlin)", False),
    Precision("gptq-4bit", 4, "a GPTQ checkpoint with bits=4 (vLLM gptq / gptq_marlin)", False),
    Precision("awq-4bit", 4, "an AWQ checkpoint with bits=4 (vLLM awq / awq_marlin)", False),
    # Kept so that stored submissions keep their precision; intake refuses it on this site's engines
    # (evaluator/precisions.py): neither vLLM 0.33 nor the transformers backend runs bitsandbytes.
    Precision("bnb-4bit", 4, "a bitsandbytes load_in_4bit checkpoint; refused at intake: bitsandbytes is not "
                             "supported by vLLM 0.33 and the transformers backend runs 16-bit checkpoints only",
              False),
)}
DEFAULT_MAX_PARAMS_16BIT = 100e9
MAX_CONFIG_BYTES = 1 << 20


def params_cap(precision: str, max_params_16bit: float = DEFAULT_MAX_PARAMS_16BIT) -> int:
    """The parameter cap at a precision: the 16-bit cap x2 at 8 bits, x4 at 4 bits (the same weight memory)."""
    return int(max_params_16bit * 16 // PRECISIONS[precision].bits)


# --- facts -----------------------------------------------------------------------

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


# --- helpers -------------------------------------------------------------------------

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
OTHER_WEIGHT_SUFFIXES = (".gguf", ".h5", ".msgpack", ".onnx", ".ot", ".tflite", ".keras", ".npz")
EXPAND = ["sha", "private", "gated", "siblings", "config", "cardData", "tags", "safetensors", "library_name",
          "pipeline_tag", "transformersInfo"]
NETWORK_HINT = "the hub could not be reached or answered with an error; try again in a few minutes"


def _transport_errors() -> tuple:
    """Connection failures of the HTTP client huggingface_hub uses (httpx2; httpx for older versions).

    They are not OSErrors, and huggingface_hub lets them through unwrapped.
    """
    found = []
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError")):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            pass
    return tuple(found)


def human_count(n: float) -> str:
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= size:
            return f"{n / size:.3g}{suffix}"
    return str(int(n))


def _page(hub_id: str) -> str:
    return f"https://huggingface.co/{hub_id}"


def _other_kind(api, hub_id: str, token) -> str | None:
    """'dataset' or 'space' when ``hub_id`` names one of those instead of a model (best effort)."""
    for kind in ("dataset", "space"):
        with contextlib.suppress(Exception):  # only a hint: any failure just means "no"
            if api.repo_exists(hub_id, repo_type=kind, token=token):
                return kind
    return None


@contextlib.contextmanager
def _hub_errors(api, hub_id: str, revision: str, token, gate_mode=None):
    """Turn huggingface_hub's exceptions into SubmissionRefused with a reason and a fix."""
    from huggingface_hub.errors import (
        DisabledRepoError, GatedRepoError, HfHubHTTPError, HFValidationError, RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    try:
        yield
    except HFValidationError as exc:
        raise SubmissionRefused(INVALID_ID, f"the hub client refused the id {hub_id!r}: {exc}",
                                "enter the id as namespace/name, as the model's hub page shows it") from None
    except GatedRepoError:  # before RepositoryNotFoundError, its parent
        raise _gated(hub_id, gate_mode) from None
    except RepositoryNotFoundError:
        kind = _other_kind(api, hub_id, token)
        if kind:
            raise SubmissionRefused(
                MODEL_NOT_FOUND, f"{hub_id!r} is a {kind} repository on the hub, not a model",
                "submit the id of a model repository (one whose page is https://huggingface.co/namespace/name)",
            ) from None
        raise SubmissionRefused(
            MODEL_NOT_FOUND, f"no model {hub_id!r} on the hub (or it is private and cannot be seen with the "
                             "leaderboard's hub token)",
            "check the spelling by copying the id from the model's hub page; a private model must be made "
            "public before it can be submitted") from None
    except RevisionNotFoundError:
        if re.fullmatch(r"[0-9a-fA-F]{7,39}", revision):
            hint = "this looks like a short commit sha: use the full 40-character sha (or a branch or tag name)"
        else:
            hint = (f"use a branch, tag or full 40-character commit sha that exists in {hub_id} "
                    f"(see 'Files and versions' on {_page(hub_id)})")
        raise SubmissionRefused(REVISION_NOT_FOUND, f"revision {revision!r} does not exist in {hub_id}",
                                hint) from None
    except DisabledRepoError:
        raise SubmissionRefused(MODEL_NOT_FOUND, f"{hub_id} is disabled on the hub",
                                "a disabled repository cannot be downloaded; submit another model") from None
    except HfHubHTTPError as exc:  # 401 invalid token, 403, 429, 5xx: say what the hub said
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
        detail = getattr(exc, "server_message", None) or ""
        if status == 401:
            hint = "the hub refused the leaderboard's token: an administrator must replace it (HF_TOKEN)"
        else:
            hint = NETWORK_HINT
        raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub answered HTTP {status or '?'}"
                                + (f": {detail.strip()}" if detail.strip() else ""), hint) from None
    except (OSError, *_transport_errors()) as exc:
        raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub could not be reached ({exc.__class__.__name__})",
                                NETWORK_HINT) from None
    except (ValueError, TypeError, KeyError) as exc:  # an answer that is not the JSON the client expects
        raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub's answer could not be read ({exc.__class__.__name__})",
                                NETWORK_HINT) from None


def _gated(hub_id: str, mode) -> SubmissionRefused:
    how = f" ({mode} approval)" if isinstance(mode, str) else ""
    return SubmissionRefused(
        GATED, f"{hub_id} is gated{how} and the hub token used for the check has no access to its files",
        f"accept the model's conditions on {_page(hub_id)} with the account whose token the leaderboard uses "
        "(or check with a read token that has been granted access); the evaluator downloads the weights with "
        "the same access")


def _fetch_config(hub_id: str, sha: str, token, timeout: float) -> bytes | None:
    """config.json at ``sha``: one GET through huggingface_hub's session; None if the file does not exist."""
    from huggingface_hub import hf_hub_url
    from huggingface_hub.errors import RemoteEntryNotFoundError
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    url = hf_hub_url(hub_id, "config.json", revision=sha)
    with get_session().stream("GET", url, headers=build_hf_headers(token=token), timeout=timeout) as response:
        try:
            hf_raise_for_status(response)
        except RemoteEntryNotFoundError:
            return None
        data = bytearray()
        for chunk in response.iter_bytes():
            data += chunk
            if len(data) > MAX_CONFIG_BYTES:
                raise SubmissionRefused(NO_CONFIG, f"config.json of {hub_id} is larger than "
                                                   f"{MAX_CONFIG_BYTES // 1024} KiB",
                                        "a model config is a few KiB of JSON; upload the one save_pretrained writes")
    return bytes(data)


def _parse_config(raw: bytes, where: str) -> dict:
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


def _weights_problem(files: list[str], where: str) -> SubmissionRefused | None:
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


def _auto_map_reasons(config: dict, hub_config: dict, transformers_info) -> list[str]:
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


def _quantization(config: dict) -> tuple[str | None, int | None, str | None]:
    """(quant_method, weight bits, weight type "int"/"float") of a pre-quantized checkpoint; Nones if unquantized."""
    qc = config.get("quantization_config")
    if not isinstance(qc, dict) or not qc:
        return None, None, None
    method = str(qc.get("quant_method") or "").lower()
    if not method and (qc.get("load_in_4bit") or qc.get("load_in_8bit")):
        method = "bitsandbytes"
    method = method or "unknown"
    kind = None
    if method == "bitsandbytes":
        bits = 4 if qc.get("load_in_4bit") else 8 if qc.get("load_in_8bit") else None
    elif method in ("fp8", "fbgemm_fp8"):
        bits, kind = 8, "float"
    elif method == "compressed-tensors":
        bits = None
        for group in (qc.get("config_groups") or {}).values():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict) and weights.get("num_bits"):
                bits, kind = weights.get("num_bits"), str(weights.get("type") or "int").lower()
                break
    else:
        bits = qc.get("bits") or qc.get("w_bit") or qc.get("weight_bits")
    try:
        bits = int(bits) if bits is not None else None
    except (TypeError, ValueError):
        bits = None
    return method, bits, kind


def _precision_accepts(precision: str, method: str | None, bits: int | None, kind: str | None) -> bool:
    if method is None:
        return PRECISIONS[precision].unquantized_ok
    return {
        "fp8": method in ("fp8", "fbgemm_fp8") or (method == "compressed-tensors" and bits == 8 and kind == "float"),
        "int8": method == "compressed-tensors" and bits == 8 and kind != "float",
        "gptq-8bit": method == "gptq" and bits == 8,
        "gptq-4bit": method == "gptq" and bits == 4,
        "awq-4bit": method == "awq" and bits == 4,
        "bnb-4bit": method == "bitsandbytes" and bits == 4,
    }.get(precision, False)


def fitting_precisions(config: dict) -> tuple[str, ...]:
    """The precisions (PRECISIONS order) that can run a checkpoint with this config.json."""
    method, bits, kind = _quantization(config)
    return tuple(name for name in PRECISIONS if _precision_accepts(name, method, bits, kind))


def _describe_checkpoint(method, bits) -> str:
    if method is None:
        return "an unquantized checkpoint (its config.json has no quantization_config)"
    return f"a {method} checkpoint" + (f" with {bits}-bit weights" if bits else "")


def _estimated_params(dtypes: dict, method: str | None, bits: int | None) -> int:
    """Tensor elements, with packed integer weights expanded: GPTQ/AWQ/compressed-tensors keep 32/bits weights
    in one I32, bitsandbytes 4-bit two in one U8. An estimate: a few small I32 tensors (g_idx) are not packed."""
    factors = {}
    if method in ("gptq", "awq", "compressed-tensors") and bits and bits < 32:
        factors["I32"] = 32 / bits
    if method == "bitsandbytes" and bits == 4:
        factors["U8"] = 2
    return int(round(sum(count * factors.get(dtype, 1) for dtype, count in dtypes.items())))


def _license(info) -> tuple[str | None, str | None]:
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


# --- the check ------------------------------------------------------------------------

def check_model(hub_id: str, revision: str = "main", *, precision: str, token: str | bool | None = None,
                allow_custom_code_revisions=frozenset(), max_params_16bit: float = DEFAULT_MAX_PARAMS_16BIT,
                timeout: float = 15.0) -> ModelFacts:
    """May ``hub_id`` at ``revision`` be evaluated at ``precision``? ``ModelFacts`` if so, else SubmissionRefused.

    ``token``: as in huggingface_hub (None: the environment's HF_TOKEN / stored token; False: anonymous).
    ``allow_custom_code_revisions``: commit shas an administrator reviewed; only they may need custom code.
    ``max_params_16bit``: the parameter cap at 16 bits; x2 at 8 bits, x4 at 4 bits (``params_cap``).

    Checks, in order: id, revision and precision (no request); the repo and revision exist and are a model
    (MODEL_NOT_FOUND, REVISION_NOT_FOUND); public (PRIVATE); config.json readable (NO_CONFIG, GATED);
    safetensors weights at the root (NO_SAFETENSORS); no custom code (CUSTOM_CODE); a license (NO_LICENSE);
    the precision fits the checkpoint (UNKNOWN_PRECISION); the size cap (TOO_LARGE).
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import NotASafetensorsRepoError, SafetensorsParsingError

    try:
        hub_id = validate_hub_id(hub_id)
        revision = validate_revision(revision)
    except HubIdError as exc:
        raise SubmissionRefused(INVALID_ID, exc.message,
                                "enter namespace/name and a branch, tag or commit sha") from None
    if precision not in PRECISIONS:
        raise SubmissionRefused(UNKNOWN_PRECISION, f"unknown precision {precision!r}",
                                f"use one of {', '.join(PRECISIONS)}")
    wanted = PRECISIONS[precision]

    api = HfApi()
    with _hub_errors(api, hub_id, revision, token):
        info = api.model_info(hub_id, revision=revision, expand=EXPAND, token=token, timeout=timeout)
    sha = info.sha
    if not sha:
        raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub did not say which commit {revision!r} is",
                                NETWORK_HINT)
    where = f"{hub_id} at {sha[:12]}"
    if info.private:
        raise SubmissionRefused(PRIVATE, f"{hub_id} is a private model",
                                "make the repository public on the hub (Settings -> Change visibility): results "
                                "on a public leaderboard must be reproducible by anyone")
    files = [sibling.rfilename for sibling in info.siblings or []]

    if "config.json" not in files:
        raise SubmissionRefused(NO_CONFIG, f"{where} has no config.json at the repository root",
                                "transformers and vLLM need config.json next to the weights; save the model "
                                "with save_pretrained, which writes it, and submit that revision")
    with _hub_errors(api, hub_id, revision, token, gate_mode=info.gated):
        raw = _fetch_config(hub_id, sha, token, timeout)
    if raw is None:
        raise SubmissionRefused(NO_CONFIG, f"{where} has no config.json at the repository root",
                                "save the model with save_pretrained, which writes config.json")
    config = _parse_config(raw, where)

    weights_problem = _weights_problem(files, where)
    if weights_problem:
        raise weights_problem

    hub_config = info.config if isinstance(info.config, dict) else {}
    reasons = _auto_map_reasons(config, hub_config, info.transformers_info)
    if reasons and sha not in allow_custom_code_revisions:
        raise SubmissionRefused(
            CUSTOM_CODE, f"{where} needs code from its repository to load (trust_remote_code): "
                         + "; ".join(reasons),
            "the evaluator never runs code from a model repository: submit a checkpoint of an architecture that "
            "transformers and vLLM support natively (no auto_map), or ask an administrator to review and "
            f"allow-list commit {sha}")

    license_id, license_name = _license(info)
    if not license_id:
        raise SubmissionRefused(NO_LICENSE, f"the model card of {where} declares no license",
                                "add a license to the YAML metadata at the top of README.md (e.g. "
                                "'license: apache-2.0', or 'license: other' with license_name and license_link) "
                                "and submit that revision")

    method, bits, kind = _quantization(config)
    if not _precision_accepts(precision, method, bits, kind):
        fits = fitting_precisions(config)
        if method == "bitsandbytes" and not fits:
            hint = ("bitsandbytes checkpoints are not evaluated (vLLM 0.33 has no bitsandbytes quantization): "
                    "submit the unquantized checkpoint, or one quantized with GPTQ, AWQ, FP8 or "
                    "compressed-tensors")
        else:
            hint = (f"submit it with precision {' or '.join(fits)}" if fits else
                    "the evaluator loads: " + "; ".join(f"{p.name}: {p.loads}" for p in PRECISIONS.values()))
        raise SubmissionRefused(UNKNOWN_PRECISION, f"precision {precision!r} ({wanted.loads}) does not fit "
                                                   f"{where}: it is {_describe_checkpoint(method, bits)}", hint)

    dtypes, stored = None, None
    if info.safetensors is not None and info.safetensors.total:
        dtypes, stored = dict(info.safetensors.parameters), int(info.safetensors.total)
    else:  # the hub has no summary (e.g. too many shards): read the headers by byte ranges
        try:
            with _hub_errors(api, hub_id, revision, token):
                metadata = api.get_safetensors_metadata(hub_id, revision=sha, token=token, timeout=timeout)
        except (NotASafetensorsRepoError, SafetensorsParsingError) as exc:
            raise SubmissionRefused(NO_SAFETENSORS, f"the safetensors headers of {where} could not be read "
                                                    f"({exc.__class__.__name__})",
                                    "re-save the weights with safetensors (save_pretrained writes valid files and "
                                    "model.safetensors.index.json for shards)") from None
        dtypes = dict(metadata.parameter_count)
        stored = sum(dtypes.values())
    params = _estimated_params(dtypes, method, bits)
    cap = params_cap(precision, max_params_16bit)
    if params > cap:
        packed = f" ({human_count(stored)} stored, packed)" if params != stored else ""
        caps = ", ".join(f"{b}-bit {human_count(max_params_16bit * 16 // b)}" for b in (16, 8, 4))
        raise SubmissionRefused(
            TOO_LARGE, f"{where} has about {human_count(params)} parameters{packed}, over the cap of "
                       f"{human_count(cap)} at {precision} ({wanted.bits}-bit)",
            f"the caps by weight precision are {caps}: submit a smaller model, or a quantized checkpoint with "
            "the matching precision")

    return ModelFacts(
        hub_id=hub_id, revision=revision, revision_sha=sha, precision=precision, params=params,
        stored_params=stored, safetensors_dtypes=dtypes, license=license_id, license_name=license_name,
        architectures=tuple(str(a) for a in config.get("architectures") or ()),
        model_type=str(config["model_type"]), pipeline_tag=info.pipeline_tag, library=info.library_name,
        gated=info.gated or False, private=bool(info.private), siblings=len(files), quantization=method,
        quantization_bits=bits, custom_code=bool(reasons), code_files=tuple(f for f in files if "/" not in f
                                                                            and f.endswith(".py")),
    )
