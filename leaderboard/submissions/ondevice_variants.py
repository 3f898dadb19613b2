"""On-device variants of a submitted 16-bit model (issue 24 §2b): the GGUF files a phone app would ship, made by
this server with the plain community recipe (llama.cpp's converter, then its quantizer at Q8_0, Q4_K_M and Q4_0;
no importance matrix) and evaluated as models of their own beside it.

- Each variant is a model entry (``org/model@Q4_K_M``, ``made_from`` the 16-bit entry) and one run per benchmark,
  queued with the submission's own runs and listed on its status page. The GPU worker makes the file
  (evaluations/gguf_make.py) and records its sha256, size and recipe on the run.
- Open split only, with the submission's answer orders: the sealed test figure stays the 16-bit model's, and
  variants spend no Ladder budget (they would give an adversary more sealed queries and say nothing new about
  contamination).
- Asked for or not at intake; left unsaid, made for models up to ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS (8B).
"""
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from evaluator.gguf_convert import QUANTS
from leaderboard.benchmarks.models import Split
from leaderboard.evaluations import lifecycle
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.models import EvaluationRun, RunStatus

from .errors import SubmissionError
from .models import VARIANT_SEPARATOR, ModelEntry, Precision

Q8_BYTES_PER_PARAM = 34 / 32  # Q8_0: 32 weights in 34 bytes, the largest of the variants
VARIANT_QUANTS = tuple(q for q, (_, ftype) in QUANTS.items() if ftype)  # what the quantizer makes: q8_0, q4_0, q4_k_m


def quants() -> list[str]:
    """The quantizations made, as the converter names them (q8_0, q4_k_m, q4_0)."""
    names = [q.lower() for q in settings.ONDEVICE_VARIANT_QUANTS]
    unknown = [q for q in names if q not in VARIANT_QUANTS]
    if unknown:
        raise ImproperlyConfigured(f"ONDEVICE_VARIANT_QUANTS: {', '.join(unknown)} is not a quantization llama.cpp's "
                                   f"quantizer makes here; use q8_0, q4_k_m or q4_0")
    return names


def label(quant: str) -> str:
    """llama.cpp's name of a quantization: q4_k_m -> Q4_K_M."""
    return quant.upper()


def variants_wanted(*, choice: bool | None, params: int | None, precision: str) -> bool:
    """Whether a submission gets on-device variants: as asked, else for models up to the default size. Refused with
    a reason where they cannot be made: from a GGUF file (it is one already), or a model whose Q8_0 file would be
    over the GGUF size cap the workers take (GGUF_MAX_BYTES)."""
    if precision == Precision.GGUF:
        if choice:
            raise SubmissionError("on-device variants are made from a 16-bit checkpoint, not from a GGUF file",
                                  hint="leave ondevice_variants out for a GGUF file", code="ONDEVICE_VARIANTS",
                                  field="ondevice_variants")
        return False
    if choice is None:
        return params is not None and params <= settings.ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS
    if choice and params and params * Q8_BYTES_PER_PARAM > settings.GGUF_MAX_BYTES:
        raise SubmissionError(
            f"the model has {params:,} parameters: its Q8_0 file would be {params * Q8_BYTES_PER_PARAM / 2**30:.1f} "
            f"GiB, over the {settings.GGUF_MAX_BYTES / 2**30:.0f} GiB the workers take for a GGUF file",
            hint="submit without on-device variants (ondevice_variants false)", code="ONDEVICE_VARIANTS",
            field="ondevice_variants")
    return bool(choice)


def variant_entry_for(*, base: ModelEntry, quant: str) -> ModelEntry:
    """The model entry of `base`'s `quant` file (created if new, refreshed from the base's facts)."""
    name = label(quant)
    facts = dict(made_from=base, gguf_file=f"{base.hub_id.rsplit('/', 1)[-1]}-{name}.gguf", quantization=name,
                 namespace=base.namespace, params=base.params, license=base.license, architecture=base.architecture,
                 model_type=base.model_type)
    entry, created = ModelEntry.objects.get_or_create(hub_id__iexact=f"{base.hub_id}{VARIANT_SEPARATOR}{name}",
                                                      defaults={"hub_id": f"{base.hub_id}{VARIANT_SEPARATOR}{name}",
                                                                **facts})
    if not created:
        ModelEntry.objects.filter(pk=entry.pk).update(**facts)
        entry.refresh_from_db()
    return entry


def queue_variant_runs(*, submission, version, mode: str) -> list[EvaluationRun]:
    """One open-split run per quantization of `submission`'s model on `version`, unless that file at that commit
    already has a live run of this plan (a second submission of the same commit makes no second file)."""
    runs = []
    for quant in quants():
        entry = variant_entry_for(base=submission.model, quant=quant)
        live = EvaluationRun.objects.filter(
            model_ref=entry.hub_id, model_revision=submission.revision_sha, benchmark_version=version,
            split=Split.VALIDATION, use_chat_template=submission.use_chat_template, mode=mode,
        ).exclude(status__in=(RunStatus.FAILED, RunStatus.CANCELLED))
        if live.exists():
            continue
        run = run_services.run_create(
            version=version, split=Split.VALIDATION, variants=settings.SUBMISSION_VALIDATION_VARIANTS,
            submission=submission, model_ref=entry.hub_id, model_revision=submission.revision_sha,
            precision=Precision.GGUF, backend="llamacpp", use_chat_template=submission.use_chat_template, mode=mode,
            gguf_recipe={"quant": quant, "source": submission.model.hub_id})
        lifecycle.run_enqueue(run=run, route=True)
        runs.append(run)
    return runs
