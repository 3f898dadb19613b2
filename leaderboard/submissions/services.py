"""Writes for submissions: accept a model (hub checks, duplicate and quota rules) and queue its runs."""
import re
from dataclasses import replace
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from evaluator.precisions import PrecisionUnsupported, check_precision, supported_precisions
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import Split
from leaderboard.core.leases import serialise
from leaderboard.evaluations import lifecycle
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.notices import webhook_url_problem
from leaderboard.hub.checks import check_model
from leaderboard.hub.gguf_checks import IntakeLimits, check_gguf
from leaderboard.hub.ids import ModelRef, validate_gguf_path
from leaderboard.hub.precisions import precision_named

from . import selectors
from .errors import DuplicateSubmission, QuotaExceeded, SubmissionError
from .identity import canonical_name
from .ondevice_variants import queue_variant_runs, variants_wanted
from .models import CustomCodeAllowance, ModelEntry, ModelType, Precision, Submission, hub_namespace

CHAT_TEMPLATE_TYPES = (ModelType.INSTRUCT, ModelType.REASONING)
SHA_RE = re.compile(r"[0-9a-f]{40}")  # a full commit sha, as the hub writes it


def quota_lock(*, user, namespace: str):
    """Inside a transaction, before any check: serialise submissions per user and per namespace, so two
    concurrent requests cannot both pass the duplicate and quota checks."""
    serialise(f"user:{user.pk}")
    serialise(f"namespace:{canonical_name(namespace)}")


def quota_check(*, user, namespace):
    """Per account: every live submission of the account, models and uploaded predictions alike. Per namespace
    (an organisation's quota): only submissions of its models by accounts that own it, and only asked of such an
    account: a stranger neither uses up an organisation's quota nor is refused by it (their own quota holds them)."""
    days, limit = settings.SUBMISSION_QUOTA_DAYS, settings.SUBMISSION_QUOTA
    since = selectors.quota_window_start(days)
    # (scope, who, used): the API's body names the spent quota as `scope` ("account" or "namespace").
    scopes = [({"scope": "account"}, "you already have", selectors.quota_used(since=since, user=user))]
    if selectors.owns_namespace(user, namespace):
        scopes.append(({"scope": "namespace", "namespace": canonical_name(namespace)},
                       f"the accounts that own the namespace {canonical_name(namespace)!r} already have",
                       selectors.quota_used(since=since, namespace=namespace)))
    for scope, who, used in scopes:
        if used.count() >= limit:
            frees_at = used.first().created_at + timedelta(days=days)
            raise QuotaExceeded(
                f"{who} {limit} accepted submissions (models and uploaded predictions) in the last {days} days; "
                f"the next slot frees up at {frees_at:%Y-%m-%d %H:%M} UTC.",
                hint="failed and cancelled submissions do not count", frees_at=frees_at.isoformat(), **scope)


def model_entry_for(*, hub_id: str) -> ModelEntry:
    """The model entry of ``hub_id``, created if new. Hub ids are compared case-insensitively: an existing entry
    keeps the spelling it was stored with. Call inside the transaction that holds ``quota_lock``."""
    model, _ = ModelEntry.objects.get_or_create(hub_id__iexact=hub_id, defaults={
        "hub_id": hub_id, "namespace": hub_namespace(hub_id)})
    return model


def stored_spelling(hub_id: str) -> str:
    """``hub_id`` as the board stores it when the model is known (``DEMO/x`` -> ``demo/x``), else as given: its
    quota, duplicates, allowances and runs are then the known model's."""
    model = selectors.model_entry_get(hub_id=hub_id)
    return model.hub_id if model else hub_id


def _benchmark_versions(slugs):
    versions = []
    for slug in slugs:
        benchmark = bench_selectors.benchmark_get(slug=slug)
        version = benchmark and bench_selectors.version_current(benchmark=benchmark)
        if version is None or Split.VALIDATION not in version.split_hashes:
            raise SubmissionError(f"benchmark {slug!r} is not available for evaluation",
                                  hint="choose one of the benchmarks listed at /api/v1/benchmarks/", code="BENCHMARK")
        versions.append(version)
    return versions


def _check_backend_runs(precision: str) -> None:
    """Refuse, before any hub request, a precision the deployment's backend (settings.RUN_BACKEND, the one every
    new run is stored with) cannot run: bitsandbytes on either engine, anything quantized on transformers."""
    backend = settings.RUN_BACKEND
    try:
        check_precision(backend, precision)
    except PrecisionUnsupported:
        reasons = []
        if precision == Precision.BNB_4BIT:
            reasons.append("bitsandbytes is not supported by vLLM 0.33")
        if backend == "transformers":
            reasons.append("the transformers backend runs 16-bit checkpoints only")
        if precision == Precision.GGUF:
            reasons.append("precision gguf is that of a GGUF file: name the file with gguf_file")
        runs = [p for p in Precision.values if p in supported_precisions(backend)]
        raise SubmissionError(
            f"precision {precision!r} cannot be run by this site's {backend} backend"
            + (f": {'; '.join(reasons)}" if reasons else ""),
            hint=f"the {backend} backend runs {', '.join(runs)}: submit a checkpoint in one of these precisions",
            code="PRECISION_UNSUPPORTED") from None


def submission_create(*, user, ref: ModelRef, precision: str = Precision.BFLOAT16,
                      model_type: str = ModelType.PRETRAINED, use_chat_template: bool | None = None,
                      benchmarks=None, webhook_url: str = "", probe: bool = False, gguf_file: str = "",
                      ondevice_variants: bool | None = None) -> Submission:
    """Check everything, then store the submission and its runs in one transaction and queue them on commit.
    ``ref``: the hub id and revision as validated where they were typed in (``hub.ids.model_ref``).
    ``gguf_file``: the path of a GGUF file in that repository, to evaluate that file (``gguf_submission_create``).
    ``ondevice_variants``: make and evaluate the model's on-device variants (Q8_0, Q4_K_M, Q4_0 GGUF files,
    ``ondevice_variants.py``); None: for models up to 8B parameters."""
    if gguf_file:
        variants_wanted(choice=ondevice_variants, params=None, precision=Precision.GGUF)
        return gguf_submission_create(user=user, ref=ref, gguf_file=gguf_file, model_type=model_type,
                                      use_chat_template=use_chat_template, benchmarks=benchmarks,
                                      webhook_url=webhook_url, probe=probe)
    precision_named(precision)
    _check_backend_runs(precision)
    use_chat_template, slugs, versions, webhook_url = _common_settings(model_type, use_chat_template, benchmarks,
                                                                       webhook_url)

    # Quota and duplicates first: a refused submission must not spend the shared hub token. These reads take
    # no lock (the hub is asked outside any transaction: network calls hold no locks); the same checks run
    # again under the lock below, where a concurrent submission cannot slip between check and insert.
    ref = replace(ref, hub_id=stored_spelling(ref.hub_id))
    hub_id, revision = ref.hub_id, ref.revision
    namespace = hub_namespace(hub_id)
    if SHA_RE.fullmatch(revision):  # a pinned sha: a duplicate is known before the hub resolves anything
        _duplicate_check(model=selectors.model_entry_get(hub_id=hub_id), revision_sha=revision,
                         precision=precision, model_type=model_type, use_chat_template=use_chat_template,
                         benchmarks=slugs)
    quota_check(user=user, namespace=namespace)

    allowed = frozenset(CustomCodeAllowance.objects.filter(hub_id__iexact=hub_id)
                        .values_list("revision_sha", flat=True))
    facts = check_model(ref, precision=precision, allow_custom_code_revisions=allowed,
                        max_params_16bit=settings.SUBMISSION_MAX_PARAMS_16BIT)
    ondevice_variants = variants_wanted(choice=ondevice_variants, params=facts.params, precision=precision)

    with transaction.atomic():
        quota_lock(user=user, namespace=namespace)
        model = model_entry_for(hub_id=hub_id)
        _duplicate_check(model=model, revision_sha=facts.revision_sha, precision=precision, model_type=model_type,
                         use_chat_template=use_chat_template, benchmarks=slugs)
        quota_check(user=user, namespace=namespace)
        ModelEntry.objects.filter(pk=model.pk).update(params=facts.params, license=facts.license or "",
                                                      architecture=facts.architecture or "", model_type=model_type)
        submission = Submission.objects.create(
            submitter=user, model=model, revision=revision, revision_sha=facts.revision_sha, precision=precision,
            model_type=model_type, use_chat_template=use_chat_template, benchmarks=slugs, webhook_url=webhook_url,
            probe=probe, ondevice_variants=ondevice_variants)
        for version in versions:
            _queue_runs(submission=submission, version=version)
    return submission


def _common_settings(model_type, use_chat_template, benchmarks, webhook_url):
    """What every submission checks before asking the hub: (use_chat_template, benchmark slugs, their current
    versions, webhook URL)."""
    if model_type not in ModelType.values:
        raise SubmissionError(f"unknown model type {model_type!r}", hint=f"use one of {', '.join(ModelType.values)}",
                              code="MODEL_TYPE")
    if use_chat_template is None:
        use_chat_template = model_type in CHAT_TEMPLATE_TYPES
    slugs = sorted(set(benchmarks or settings.SUBMISSION_DEFAULT_BENCHMARKS))
    versions = _benchmark_versions(slugs)
    return use_chat_template, slugs, versions, _check_webhook_url(webhook_url)


def gguf_submission_create(*, user, ref: ModelRef, gguf_file: str, model_type: str = ModelType.PRETRAINED,
                           use_chat_template: bool | None = None, benchmarks=None, webhook_url: str = "",
                           probe: bool = False) -> Submission:
    """A GGUF file of a hub repository as a model of its own (precision "gguf", run by the llamacpp backend).

    Its entry's hub id is ``<repo id>/<file path>``: one model per file. The same intake as a checkpoint's: quota
    (the repository's namespace), duplicates (a live submission of the same file, by sha256, with the same
    settings), the sealed split once per pinned file (its sha256) and so the Ladder's budget, and
    ``hub.gguf_checks.check_gguf`` (the header read before anything is stored; each refusal has its code)."""
    validate_gguf_path(gguf_file)
    use_chat_template, slugs, versions, webhook_url = _common_settings(model_type, use_chat_template, benchmarks,
                                                                       webhook_url)
    repo_id = stored_spelling(ref.hub_id)
    entry_id = stored_spelling(f"{repo_id}/{gguf_file}")
    if len(entry_id) > ModelEntry._meta.get_field("hub_id").max_length:
        raise SubmissionError(f"the repository id and the file's path together are {len(entry_id)} characters, "
                              f"more than the board's {ModelEntry._meta.get_field('hub_id').max_length}",
                              hint="rename the file (or move it up a folder) and submit that revision",
                              code="INVALID_ID", field="gguf_file")
    namespace = hub_namespace(repo_id)
    quota_check(user=user, namespace=namespace)
    facts = check_gguf(replace(ref, hub_id=repo_id), gguf_file, max_bytes=settings.GGUF_MAX_BYTES,
                       intake=IntakeLimits(max_parts=settings.GGUF_MAX_PARTS,
                                           max_requests=settings.GGUF_MAX_HUB_REQUESTS,
                                           max_seconds=settings.GGUF_INTAKE_SECONDS))
    same = dict(gguf_sha256=facts.sha256, model_type=model_type, use_chat_template=use_chat_template,
                benchmarks=slugs)
    _gguf_duplicate_check(**same)

    with transaction.atomic():
        quota_lock(user=user, namespace=namespace)
        model = model_entry_for(hub_id=entry_id)
        _gguf_duplicate_check(**same)
        quota_check(user=user, namespace=namespace)
        ModelEntry.objects.filter(pk=model.pk).update(
            params=facts.params, license=_fitted(ModelEntry, "license", facts.license),
            architecture=facts.architecture, model_type=model_type, gguf_file=gguf_file,
            quantization=facts.quantization)
        submission = Submission.objects.create(
            submitter=user, model=model, revision=ref.revision, revision_sha=facts.revision_sha,
            precision=Precision.GGUF, model_type=model_type, use_chat_template=use_chat_template, benchmarks=slugs,
            webhook_url=webhook_url, probe=probe, gguf_file=gguf_file, gguf_sha256=facts.sha256,
            gguf_facts=facts.as_dict())
        for version in versions:
            _queue_runs(submission=submission, version=version)
    return submission


def _fitted(model, field: str, text: str) -> str:
    """Header text cut to its column (the facts' text is NUL-free and bounded already, hub.gguf_checks._clean)."""
    limit = model._meta.get_field(field).max_length
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _gguf_duplicate_check(*, gguf_sha256, **settings_):
    """409 if a live submission of the same file (its sha256: the bytes, wherever they are) has the same settings."""
    existing = selectors.gguf_duplicate_of(gguf_sha256=gguf_sha256, **settings_)
    if existing:
        raise DuplicateSubmission(f"this GGUF file (sha256 {gguf_sha256[:12]}...) was already submitted with these "
                                  f"settings (submission {existing.pk}, {existing.model.hub_id})",
                                  existing_submission=existing.pk)


def _duplicate_check(*, model, revision_sha, **settings_):
    """409 if a live submission of this model at this sha has the same precision and settings."""
    existing = model and selectors.duplicate_of(model=model, revision_sha=revision_sha, **settings_)
    if existing:
        raise DuplicateSubmission(f"this model, revision, precision and settings were already submitted "
                                  f"(submission {existing.pk})", existing_submission=existing.pk)


def _check_webhook_url(url: str) -> str:
    """The webhook must be https:// to a public host (notices.webhook_url_problem); refused here, before
    anything else is asked, with the field named. Resolved addresses are checked again when it is sent."""
    if not url:
        return ""
    problem = webhook_url_problem(url)
    if problem:
        raise SubmissionError(f"webhook_url: {problem}", code="INVALID_WEBHOOK", field="webhook_url",
                              hint="give an https:// URL on a public host, or leave webhook_url out")
    return url


def _queue_runs(*, submission, version):
    """Validation runs, and the one sealed test run of the pinned model (a GGUF: of the pinned file) if it has none.
    A GGUF submission's runs use the llamacpp backend, with model_ref ``<repo id>/<file path>`` at the pinned
    commit and the parts' sha256 in ``model_files`` (the GPU worker reads runs, not submissions: it downloads
    the file and checks it, ``evaluations.gguf_fetch``)."""
    mode = "generate" if submission.model_type == ModelType.REASONING else "logprobs"
    gguf = bool(submission.gguf_file)
    common = dict(version=version, model_ref=submission.model.hub_id, model_revision=submission.revision_sha,
                  precision=submission.precision, use_chat_template=submission.use_chat_template, mode=mode,
                  backend="llamacpp" if gguf else settings.RUN_BACKEND, probe=submission.probe,
                  model_files=submission.gguf_facts.get("parts", []) if gguf else [])
    splits = [(Split.VALIDATION, settings.SUBMISSION_VALIDATION_VARIANTS)]
    if gguf:
        sealed_done = selectors.gguf_test_run_exists(gguf_sha256=submission.gguf_sha256)
    else:
        sealed_done = selectors.test_run_exists(model=submission.model, revision_sha=submission.revision_sha,
                                                precision=submission.precision)
    if Split.TEST in version.split_hashes and not sealed_done:
        splits.append((Split.TEST, ["original"]))
    for split, variants in splits:
        run = run_services.run_create(split=split, variants=variants, submission=submission, **common)
        lifecycle.run_enqueue(run=run, route=True)
    if submission.ondevice_variants:
        queue_variant_runs(submission=submission, version=version, mode=mode)
