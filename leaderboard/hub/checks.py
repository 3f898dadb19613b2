"""May this model be evaluated? ``check_model`` answers with ``ModelFacts`` or refuses with
``SubmissionRefused(code, message, hint)`` (ARCHITECTURE §9). It never downloads weights: the parameter count comes
from the safetensors metadata the hub computes from the file headers.

A successful check makes two hub requests:

1. ``GET /api/models/{id}/revision/{revision}?expand=...`` (``HfApi.model_info``): resolves the revision to a
   commit sha and returns the file list, the hub's config summary, the card data (license), the gate and
   privacy flags and the safetensors parameter counts by dtype;
2. ``GET /{id}/resolve/{sha}/config.json``: the full config at the pinned sha (``auto_map``,
   ``quantization_config``, ``architectures``). It is also the access check: a gated repo's info is public,
   its files are not. It is capped at 1 MiB and never written to the cache (``HubClient.read_file``).

Only when the hub has no safetensors summary for a repo that does have ``.safetensors`` files are the headers read
(byte ranges, a few more requests). Refusals that need only the first answer stop there; an unknown precision is
refused before any request, and the id and revision arrive validated (``ids.ModelRef``).

Pure module: no Django, no settings; the caller passes the limits and the allow-list.
"""
from __future__ import annotations

import contextlib
import re

from .client import HubClient
from .errors import (
    CUSTOM_CODE, GATED, HUB_UNAVAILABLE, INVALID_ID, MODEL_NOT_FOUND, NO_CONFIG, NO_LICENSE, NO_SAFETENSORS, PRIVATE,
    REVISION_NOT_FOUND, TOO_LARGE, UNKNOWN_PRECISION, FileTooLarge, HubAnswerUnreadable, HubError, HubHTTPError,
    HubUnreachable, InvalidRepoId, RepoDisabled, RepoGated, RepoNotFound, RevisionNotFound, SafetensorsUnreadable,
    SubmissionRefused,
)
from .facts import (
    ModelFacts, auto_map_reasons, code_files, estimated_params, human_count, license_of, parse_config,
    weights_problem,
)
from .ids import ModelRef
from .precisions import (
    DEFAULT_MAX_PARAMS_16BIT, PRECISIONS, PrecisionSpec, describe_checkpoint, fitting_precisions, params_cap,
    precision_accepts, precision_named, quantization,
)

EXPAND = ["sha", "private", "gated", "siblings", "config", "cardData", "tags", "safetensors", "library_name",
          "pipeline_tag", "transformersInfo"]
MAX_CONFIG_BYTES = 1 << 20
NETWORK_HINT = "the hub could not be reached or answered with an error; try again in a few minutes"


def check_model(ref: ModelRef, *, precision: str, token: str | bool | None = None,
                allow_custom_code_revisions=frozenset(), max_params_16bit: float = DEFAULT_MAX_PARAMS_16BIT,
                timeout: float = 15.0) -> ModelFacts:
    """May ``ref`` (a validated id and revision) be evaluated at ``precision``? ``ModelFacts`` if so, else
    SubmissionRefused.

    ``token``: as in huggingface_hub (None: the environment's HF_TOKEN / stored token; False: anonymous).
    ``allow_custom_code_revisions``: commit shas an administrator reviewed; only they may need custom code.
    ``max_params_16bit``: the parameter cap at 16 bits; x2 at 8 bits, x4 at 4 bits (``params_cap``).

    Checks, in order: the precision (no request); the repo and revision exist and are a model
    (MODEL_NOT_FOUND, REVISION_NOT_FOUND); public (PRIVATE); config.json readable (NO_CONFIG, GATED);
    safetensors weights at the root (NO_SAFETENSORS); no custom code (CUSTOM_CODE); a license (NO_LICENSE);
    the precision fits the checkpoint (UNKNOWN_PRECISION); the size cap (TOO_LARGE).
    """
    wanted = precision_named(precision)
    client = HubClient(token=token, timeout=timeout)
    info = _public_model_info(client, ref)
    where = f"{ref.hub_id} at {info.sha[:12]}"
    files = [sibling.rfilename for sibling in info.siblings or []]
    config = _config(client, ref, info, files, where)
    problem = weights_problem(files, where)
    if problem:
        raise problem
    custom_code = _check_custom_code(config, info, where, allow_custom_code_revisions)
    license_id, license_name = _check_license(info, where)
    method, bits = _check_precision_fits(wanted, config, where)
    dtypes, stored = _safetensors_counts(client, ref, info, where)
    params = _check_size(wanted, estimated_params(dtypes, method, bits), stored, where, max_params_16bit)
    return ModelFacts(
        hub_id=ref.hub_id, revision=ref.revision, revision_sha=info.sha, precision=precision, params=params,
        stored_params=stored, safetensors_dtypes=dtypes, license=license_id, license_name=license_name,
        architectures=tuple(str(a) for a in config.get("architectures") or ()),
        model_type=str(config["model_type"]), pipeline_tag=info.pipeline_tag, library=info.library_name,
        gated=info.gated or False, private=bool(info.private), siblings=len(files), quantization=method,
        quantization_bits=bits, custom_code=custom_code, code_files=code_files(files),
    )


# --- the steps, in the order check_model takes them ---------------------------------------------------

def _public_model_info(client: HubClient, ref: ModelRef):
    """The hub's answer on the model at its revision, resolved to a commit: MODEL_NOT_FOUND, REVISION_NOT_FOUND,
    PRIVATE."""
    with _refusing(client, ref):
        info = client.model_info(ref.hub_id, ref.revision, expand=EXPAND)
    if not info.sha:
        raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub did not say which commit {ref.revision!r} is",
                                NETWORK_HINT)
    if info.private:
        raise SubmissionRefused(PRIVATE, f"{ref.hub_id} is a private model",
                                "make the repository public on the hub (Settings -> Change visibility): results "
                                "on a public leaderboard must be reproducible by anyone")
    return info


def _config(client: HubClient, ref: ModelRef, info, files: list[str], where: str) -> dict:
    """config.json at the pinned sha, read (its access is the gate's: GATED) and parsed (NO_CONFIG)."""
    if "config.json" not in files:
        raise SubmissionRefused(NO_CONFIG, f"{where} has no config.json at the repository root",
                                "transformers and vLLM need config.json next to the weights; save the model "
                                "with save_pretrained, which writes it, and submit that revision")
    try:
        with _refusing(client, ref, gate_mode=info.gated):
            raw = client.read_file(ref.hub_id, "config.json", info.sha, max_bytes=MAX_CONFIG_BYTES)
    except FileTooLarge:
        raise SubmissionRefused(NO_CONFIG, f"config.json of {ref.hub_id} is larger than "
                                           f"{MAX_CONFIG_BYTES // 1024} KiB",
                                "a model config is a few KiB of JSON; upload the one save_pretrained writes") \
            from None
    if raw is None:
        raise SubmissionRefused(NO_CONFIG, f"{where} has no config.json at the repository root",
                                "save the model with save_pretrained, which writes config.json")
    return parse_config(raw, where)


def _check_custom_code(config: dict, info, where: str, allowed) -> bool:
    """Whether loading needs trust_remote_code; CUSTOM_CODE unless an administrator allow-listed the commit."""
    hub_config = info.config if isinstance(info.config, dict) else {}
    reasons = auto_map_reasons(config, hub_config, info.transformers_info)
    if reasons and info.sha not in allowed:
        raise SubmissionRefused(
            CUSTOM_CODE, f"{where} needs code from its repository to load (trust_remote_code): "
                         + "; ".join(reasons),
            "the evaluator never runs code from a model repository: submit a checkpoint of an architecture that "
            "transformers and vLLM support natively (no auto_map), or ask an administrator to review and "
            f"allow-list commit {info.sha}")
    return bool(reasons)


def _check_license(info, where: str) -> tuple[str, str | None]:
    license_id, license_name = license_of(info)
    if not license_id:
        raise SubmissionRefused(NO_LICENSE, f"the model card of {where} declares no license",
                                "add a license to the YAML metadata at the top of README.md (e.g. "
                                "'license: apache-2.0', or 'license: other' with license_name and license_link) "
                                "and submit that revision")
    return license_id, license_name


def _check_precision_fits(wanted: PrecisionSpec, config: dict, where: str) -> tuple[str | None, int | None]:
    """The checkpoint's (quant_method, weight bits); UNKNOWN_PRECISION if ``wanted`` cannot run it."""
    method, bits, kind = quantization(config)
    if precision_accepts(wanted.name, method, bits, kind):
        return method, bits
    fits = fitting_precisions(config)
    if method == "bitsandbytes" and not fits:
        hint = ("bitsandbytes checkpoints are not evaluated (vLLM 0.33 has no bitsandbytes quantization): "
                "submit the unquantized checkpoint, or one quantized with GPTQ, AWQ, FP8 or compressed-tensors")
    else:
        hint = (f"submit it with precision {' or '.join(fits)}" if fits else
                "the evaluator loads: " + "; ".join(f"{p.name}: {p.loads}" for p in PRECISIONS.values()))
    raise SubmissionRefused(UNKNOWN_PRECISION, f"precision {wanted.name!r} ({wanted.loads}) does not fit "
                                               f"{where}: it is {describe_checkpoint(method, bits)}", hint)


def _safetensors_counts(client: HubClient, ref: ModelRef, info, where: str) -> tuple[dict, int]:
    """(tensor elements per dtype, their total): the hub's summary, else the headers read by byte ranges (the
    hub has no summary, e.g. for too many shards)."""
    if info.safetensors is not None and info.safetensors.total:
        return dict(info.safetensors.parameters), int(info.safetensors.total)
    try:
        with _refusing(client, ref):
            dtypes = client.safetensors_counts(ref.hub_id, info.sha)
    except SafetensorsUnreadable as exc:
        raise SubmissionRefused(NO_SAFETENSORS, f"the safetensors headers of {where} could not be read "
                                                f"({exc.detail})",
                                "re-save the weights with safetensors (save_pretrained writes valid files and "
                                "model.safetensors.index.json for shards)") from None
    return dtypes, sum(dtypes.values())


def _check_size(wanted: PrecisionSpec, params: int, stored: int, where: str, max_params_16bit: float) -> int:
    cap = params_cap(wanted.name, max_params_16bit)
    if params > cap:
        packed = f" ({human_count(stored)} stored, packed)" if params != stored else ""
        caps = ", ".join(f"{b}-bit {human_count(max_params_16bit * 16 // b)}" for b in (16, 8, 4))
        raise SubmissionRefused(
            TOO_LARGE, f"{where} has about {human_count(params)} parameters{packed}, over the cap of "
                       f"{human_count(cap)} at {wanted.name} ({wanted.bits}-bit)",
            f"the caps by weight precision are {caps}: submit a smaller model, or a quantized checkpoint with "
            "the matching precision")
    return params


# --- failed hub requests, as refusals with a reason and a fix -----------------------------------------

@contextlib.contextmanager
def _refusing(client: HubClient, ref: ModelRef, gate_mode=None):
    try:
        yield
    except HubError as error:
        refusal = _refusal(error, client, ref, gate_mode)
        if refusal is None:
            raise
        raise refusal from None


def _refusal(error: HubError, client: HubClient, ref: ModelRef, gate_mode) -> SubmissionRefused | None:
    hub_id = ref.hub_id
    if isinstance(error, InvalidRepoId):
        return SubmissionRefused(INVALID_ID, f"the hub client refused the id {hub_id!r}: {error.detail}",
                                 "enter the id as namespace/name, as the model's hub page shows it")
    if isinstance(error, RepoGated):
        how = f" ({gate_mode} approval)" if isinstance(gate_mode, str) else ""
        return SubmissionRefused(
            GATED, f"{hub_id} is gated{how} and the hub token used for the check has no access to its files",
            f"accept the model's conditions on {_page(hub_id)} with the account whose token the leaderboard uses "
            "(or check with a read token that has been granted access); the evaluator downloads the weights with "
            "the same access")
    if isinstance(error, RepoNotFound):
        return _not_a_model(client, hub_id)
    if isinstance(error, RevisionNotFound):
        return _no_revision(ref)
    if isinstance(error, RepoDisabled):
        return SubmissionRefused(MODEL_NOT_FOUND, f"{hub_id} is disabled on the hub",
                                 "a disabled repository cannot be downloaded; submit another model")
    if isinstance(error, HubHTTPError):  # 401 invalid token, 403, 429, 5xx: say what the hub said
        hint = ("the hub refused the leaderboard's token: an administrator must replace it (HF_TOKEN)"
                if error.status == 401 else NETWORK_HINT)
        detail = error.detail.strip()
        return SubmissionRefused(HUB_UNAVAILABLE, f"the hub answered HTTP {error.status or '?'}"
                                 + (f": {detail}" if detail else ""), hint)
    if isinstance(error, HubAnswerUnreadable):
        return SubmissionRefused(HUB_UNAVAILABLE, f"the hub's answer could not be read ({error.detail})", NETWORK_HINT)
    if isinstance(error, HubUnreachable):
        return SubmissionRefused(HUB_UNAVAILABLE, f"the hub could not be reached ({error.detail})", NETWORK_HINT)
    return None  # raised by the step itself (FileTooLarge, SafetensorsUnreadable): it words it


def _not_a_model(client: HubClient, hub_id: str) -> SubmissionRefused:
    kind = client.other_kind(hub_id)
    if kind:
        return SubmissionRefused(
            MODEL_NOT_FOUND, f"{hub_id!r} is a {kind} repository on the hub, not a model",
            "submit the id of a model repository (one whose page is https://huggingface.co/namespace/name)")
    return SubmissionRefused(
        MODEL_NOT_FOUND, f"no model {hub_id!r} on the hub (or it is private and cannot be seen with the "
                         "leaderboard's hub token)",
        "check the spelling by copying the id from the model's hub page; a private model must be made "
        "public before it can be submitted")


def _no_revision(ref: ModelRef) -> SubmissionRefused:
    if re.fullmatch(r"[0-9a-fA-F]{7,39}", ref.revision):
        hint = "this looks like a short commit sha: use the full 40-character sha (or a branch or tag name)"
    else:
        hint = (f"use a branch, tag or full 40-character commit sha that exists in {ref.hub_id} "
                f"(see 'Files and versions' on {_page(ref.hub_id)})")
    return SubmissionRefused(REVISION_NOT_FOUND, f"revision {ref.revision!r} does not exist in {ref.hub_id}", hint)


def _page(hub_id: str) -> str:
    return f"https://huggingface.co/{hub_id}"
