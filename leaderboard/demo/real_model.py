"""The demo's real model: a published phone model's GGUF file (evaluator/real_gguf.py: Gemma 3 270M in Q4_K_M, from
its package, sha256-checked) on the On-device board beside the demo models' toy variants, so a newcomer sees what a
real file's row, page and device table look like.

It enters as a submitted GGUF file does, by the same code, with the hub's part played by the file's record
(local_hub.LocalFileHub, at the fixed ``demo_revision``):

1. intake's checks (hub.gguf_checks.check_gguf) read its header with intake's parser and limits, and name its
   quantization from its tensors' types;
2. the file is placed where the GPU worker's download (evaluations/gguf_fetch.py: hf_hub_download at the pinned
   commit, then its sha256 checked) finds it without a hub: the Hugging Face cache's layout at that revision;
3. its model entry takes the facts as GGUF intake stores them (hub id ``<repo>/<file>``, gguf_file, quantization,
   parameters, architecture, licence), and one validation run of the demo bank pins the file (model_files);
4. the run is predicted and scored here on llama.cpp, with the file's cost profile (`load_real_gguf`).

No Submission: a submission queues its runs on the worker, which `./dev.sh serve` runs without llama.cpp, and a
sealed test run the demo does not need. The page labels it (``demo_real_model``): a real model on invented questions,
so its accuracy there means nothing and its speeds are real.
"""
from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from evaluator.real_gguf import GEMMA3_270M_Q4_K_M, RealGGUF
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.demo import DEMO_BENCHMARK
from leaderboard.benchmarks.models import Split
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.evaluations import services as run_services
from leaderboard.hub.gguf_checks import GGUFFacts, check_gguf
from leaderboard.hub.ids import model_ref
from leaderboard.submissions.models import ModelEntry, ModelType, Precision
from leaderboard.submissions.services import model_entry_for

from .local_hub import LocalFileHub, demo_revision

DEMO_REAL_MODELS = (GEMMA3_270M_Q4_K_M,)
# What the demo's run of a real file is: the open validation split of the demo bank, each question once, zero-shot.
RUN_SETTINGS = dict(split=Split.VALIDATION, template="default", shots=0, variants=["original"], seed=0,
                    mode="logprobs", use_chat_template=False, protocol="")
LABEL = "real model · demo questions"


def demo_real_model(hub_id: str, revision: str) -> RealGGUF | None:
    """The demo's real file that a row of (hub id, revision) is, if it is one: a submission of the same file from
    the hub has a hub commit, never the demo's revision, and is not labelled."""
    return next((m for m in DEMO_REAL_MODELS if m.hub_id.lower() == (hub_id or "").lower()
                 and revision == demo_revision(m)), None)


def label_note(model: RealGGUF) -> str:
    """What the label says on the board (its title) and on the model page."""
    return (f"A real, published model: {model.base_model}, the {model.quantization} GGUF file of {model.hub_repo} "
            f"(licence: {model.license}), installed from a package and run here by llama.cpp, on this demo's invented "
            "questions. Its accuracy here means nothing; its speeds (cost profile, device report) are real, measured "
            f"on this server's CPU. Its revision, {demo_revision(model)[:12]}, is the demo's (the start of the file's "
            "sha256), not a hub commit.")


def real_gguf_facts(model: RealGGUF, path: Path) -> GGUFFacts:
    """GGUF intake's facts of the local file (check_gguf through LocalFileHub); SubmissionRefused with intake's code
    where intake would refuse it."""
    ref = model_ref(model.hub_repo, demo_revision(model))
    return check_gguf(ref, model.file_name, max_bytes=settings.GGUF_MAX_BYTES, client=LocalFileHub(model, path))


def hub_cache_place(model: RealGGUF, path: Path, *, cache_dir: Path | None = None) -> Path:
    """The file at the demo's revision in the Hugging Face cache's layout (snapshots/<rev>/<file> -> blobs/<sha256>),
    where hf_hub_download finds it without asking the hub (a commit-sha revision already in the cache is answered
    from it). The blob is a hard link to `path` (a symbolic link across file systems): no second copy."""
    from huggingface_hub import constants

    repo = Path(cache_dir or constants.HF_HUB_CACHE) / f"models--{model.hub_repo.replace('/', '--')}"
    blob = repo / "blobs" / model.sha256
    pointer = repo / "snapshots" / demo_revision(model) / model.file_name
    if not blob.exists() or not os.path.samefile(blob, path):
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.unlink(missing_ok=True)
        try:
            os.link(path, blob)
        except OSError:
            blob.symlink_to(Path(path).resolve())
    if not pointer.is_symlink():
        pointer.parent.mkdir(parents=True, exist_ok=True)
        pointer.symlink_to(os.path.relpath(blob, pointer.parent))
    return pointer


def real_gguf_register(facts: GGUFFacts) -> ModelEntry:
    """The file's model entry with the facts GGUF intake stores (submissions.services.gguf_submission_create)."""
    entry = model_entry_for(hub_id=f"{facts.hub_id}/{facts.gguf_file}")
    ModelEntry.objects.filter(pk=entry.pk).update(
        params=facts.params, license=facts.license, architecture=facts.architecture, model_type=ModelType.PRETRAINED,
        gguf_file=facts.gguf_file, quantization=facts.quantization)
    entry.refresh_from_db()
    return entry


def demo_version():
    return bench_selectors.version_current(benchmark=bench_selectors.benchmark_get(slug=DEMO_BENCHMARK))


def real_gguf_run_done(entry: ModelEntry, version):
    """The file's earlier successful run of RUN_SETTINGS on `version`, if any."""
    return run_selectors.run_find_succeeded(version=version, model_ref=entry.hub_id, **RUN_SETTINGS)


def real_gguf_run_create(entry: ModelEntry, facts: GGUFFacts, version):
    """The file's validation run of the demo bank, pinned to the file as a GGUF submission's runs are (model_files:
    each part's file, size and sha256 as intake read them; the revision the demo's)."""
    return run_services.run_create(
        version=version, model_ref=entry.hub_id, model_revision=facts.revision_sha, backend="llamacpp",
        precision=Precision.GGUF, model_files=facts.as_dict()["parts"], **RUN_SETTINGS)
