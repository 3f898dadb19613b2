"""What a GPU worker does with a run id: claim, load the model, predict chunk by chunk, hand off scoring.

It never reads a sealed answer: scoring happens on the default (trusted) queue.
"""
import logging

from django.conf import settings
from django.db import transaction

from evaluator.backends import create_backend

from . import lifecycle, selectors, services
from .models import RunStatus

log = logging.getLogger(__name__)

PRECISION_DTYPES = {"bfloat16": "bfloat16", "float16": "float16"}  # quantized formats: the backend decides


def predict(run_id: int) -> dict:
    run = lifecycle.run_claim_for_worker(run_id=run_id)
    if run is None:
        log.info("run %s: not claimable (already taken or finished); message dropped", run_id)
        return {"run": run_id, "claimed": False}
    log.info("run %s: claimed, attempt %s", run_id, run.attempts)
    loading = True
    try:
        device = settings.RUN_DEVICE
        _limit_cpu_threads(device)
        dtype = PRECISION_DTYPES.get(run.precision, "auto") if device.startswith("cuda") else "auto"
        extra = ({"tensor_parallel_size": settings.RUN_TENSOR_PARALLEL_SIZE}
                 if run.backend == "vllm" and settings.RUN_TENSOR_PARALLEL_SIZE > 1 else {})
        backend = create_backend(run.backend, selectors.model_location(model_ref=run.model_ref),
                                 revision=run.model_revision or None, device=device, dtype=dtype,
                                 batch_size=settings.RUN_BATCH_SIZE, seed=run.seed, **extra)
        loading = False
        lifecycle.run_heartbeat(run=run)
        services.run_predict(run=run, backend=backend, chunk_size=settings.RUN_CHUNK_SIZE,
                             on_progress_chunk=lambda: lifecycle.run_heartbeat(run=run))
    except Exception as exc:  # noqa: BLE001 — every failure becomes a retry or a recorded reason
        status = lifecycle.run_attempt_failed(run_id=run_id, exc=exc, during_load=loading)
        log.warning("run %s: attempt failed (%s) -> %s", run_id, type(exc).__name__, status)
        return {"run": run_id, "claimed": True, "status": status}
    with transaction.atomic():
        transaction.on_commit(lambda: lifecycle.send_score(run_id))
    return {"run": run_id, "claimed": True, "status": RunStatus.SCORING}


def _limit_cpu_threads(device: str):
    if settings.RUN_TORCH_THREADS and device == "cpu":
        import torch

        torch.set_num_threads(settings.RUN_TORCH_THREADS)
