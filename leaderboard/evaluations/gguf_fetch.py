"""The GPU worker's download of a GGUF submission's file: every part at the pinned commit, into the hub cache, each
checked against the sha256 intake pinned before the path is handed to the llamacpp backend.

A GGUF run's ``model_ref`` is ``<namespace>/<repo>/<path of the file in the repo>`` (the model entry's hub id,
``ModelEntry.gguf_file`` the path), its ``model_revision`` the commit sha and its ``model_files`` each part's file,
size and sha256 as intake pinned them (hub.gguf_checks.GGUFFacts.parts; on the run, which the GPU worker's
database role may read, not on the submission, which it may not).
"""
from __future__ import annotations

import hashlib
from pathlib import Path


class GGUFChecksumMismatch(RuntimeError):
    """A downloaded file is not the one intake pinned (its bytes differ from the sha256 in the listing)."""


def split_ref(model_ref: str) -> tuple[str, str]:
    """(repository id, file path) of a GGUF run's model_ref ``ns/repo/path/file.gguf``."""
    namespace, repo, path = model_ref.split("/", 2)
    return f"{namespace}/{repo}", path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_gguf(*, model_ref: str, revision: str, parts: list[dict], token=None) -> Path:
    """The local path of the file's first part, every part downloaded at ``revision`` and verified. ``parts``:
    [{"file", "sha256"}, ...] as intake stored them. A part whose bytes differ is deleted from the cache (a later
    attempt downloads it afresh) and GGUFChecksumMismatch names it."""
    from huggingface_hub import hf_hub_download

    repo_id, first = split_ref(model_ref)
    if not parts or parts[0]["file"] != first:
        raise GGUFChecksumMismatch(f"{model_ref}: the submission pins no sha256 for {first}")
    paths = []
    for part in parts:
        path = Path(hf_hub_download(repo_id, part["file"], revision=revision, token=token))
        actual = file_sha256(path)
        if actual != part["sha256"]:
            # the cache's link and the blob it points to: a blob left behind would be linked again next time
            path.resolve().unlink(missing_ok=True)
            path.unlink(missing_ok=True)
            raise GGUFChecksumMismatch(
                f"{repo_id}/{part['file']} at {revision[:12]}: the downloaded file's sha256 is {actual}, not the "
                f"{part['sha256']} pinned at submission; it was deleted from the cache and is downloaded again on "
                "the next attempt")
        paths.append(path)
    return paths[0]
