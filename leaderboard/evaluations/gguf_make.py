"""The GPU worker's making of an on-device variant's file (submissions/ondevice_variants.py): the run's
``gguf_recipe`` says which checkpoint (``source``, at the run's commit) and which quantization; the file is made with
the project's pipeline (evaluator/gguf_convert.py: llama.cpp's converter to f32, then its quantizer; no importance
matrix) and kept under RUN_MADE_GGUF_DIR, so a retry and the other benchmarks' runs of the same file reuse it.

What was made (file name, bytes, sha256, steps, llama.cpp's commit) is written back into the run's ``gguf_recipe``,
a column the worker's database role may write: the run card and the board read it there (``file_facts``). A re-run
copies the recipe, sha256 included, and the file made again must have the same bytes (the quantizer is
deterministic on one build): otherwise the run fails rather than mix two files' predictions.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from django.conf import settings

from . import selectors
from .models import EvaluationRun

MADE_KEYS = ("file", "bytes", "sha256", "steps", "imatrix", "llama_cpp_python", "llama_cpp_commit")


class MadeFileMismatch(RuntimeError):
    """The file made for a re-run or resumed run is not the one its earlier attempt made."""


def file_facts(run: EvaluationRun) -> dict | None:
    """{file, bytes, sha256, made} of the GGUF file a run loads: the submitted file's pinned parts, or the file this
    server made (``made``: its recipe); None for a checkpoint run or a made file not made yet."""
    if run.model_files:
        parts = run.model_files
        return {"file": parts[0]["file"], "bytes": sum(p.get("size") or 0 for p in parts),
                "sha256": parts[0]["sha256"], "made": None}
    recipe = run.gguf_recipe or {}
    if recipe.get("sha256"):
        return {"file": recipe["file"], "bytes": recipe["bytes"], "sha256": recipe["sha256"], "made": recipe}
    return None


def _folder_key(source: str, location: str, revision: str | None) -> str:
    """Where a checkpoint's made files live: the hub id and commit, or for a local folder (the demo models) a digest
    of its files' names, sizes and times, so a rebuilt folder is converted afresh."""
    if location == source and revision:
        return f"{source.replace('/', '--')}/{revision}"
    stamp = hashlib.sha256()
    for path in sorted(Path(location).iterdir()):
        if path.is_file():
            info = path.stat()
            stamp.update(f"{path.name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return f"{source.replace('/', '--')}/local-{stamp.hexdigest()[:16]}"


def _make(location: str, out: Path, quant: str, revision: str | None) -> None:
    """Convert and quantize into a folder of this attempt's own, then move the file and its recipe into place (two
    workers making the same file each write whole files; the last rename wins with the same bytes)."""
    from evaluator.gguf_convert import convert

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".making-") as tmp:
        made = Path(tmp) / out.name
        convert(location, made, quant, revision=revision)
        os.replace(made, out)
        os.replace(f"{made}.recipe.json", f"{out}.recipe.json")


def made_file(run: EvaluationRun) -> Path:
    """The local path of the run's made file (made now unless kept from earlier), its facts written to the run."""
    recipe = run.gguf_recipe
    source, quant = recipe["source"], recipe["quant"]
    location = selectors.model_location(model_ref=source)
    revision = run.model_revision or None
    out = (Path(settings.RUN_MADE_GGUF_DIR) / _folder_key(source, location, revision)
           / f"{source.rsplit('/', 1)[-1]}-{quant.upper()}.gguf")
    if not (out.is_file() and Path(f"{out}.recipe.json").is_file()):
        _make(location, out, quant, revision)
    made = json.loads(Path(f"{out}.recipe.json").read_text(encoding="utf-8"))
    if recipe.get("sha256") and recipe["sha256"] != made["sha256"]:
        raise MadeFileMismatch(f"{out.name} made again has sha256 {made['sha256']}, not the {recipe['sha256']} pinned "
                               "for this run (by its earlier attempt, or the run it repeats): the checkpoint or the "
                               "llama.cpp build differs; queue the model's variants afresh")
    facts = {**recipe, **{key: made[key] for key in MADE_KEYS}}
    if facts != recipe:
        EvaluationRun.objects.filter(pk=run.pk).update(gguf_recipe=facts)
        run.gguf_recipe = facts
    return out
