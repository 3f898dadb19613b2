"""A published GGUF file that is already on this machine, answered as the hub answers for it, so GGUF intake's own
checks (hub.gguf_checks.check_gguf: the header read by ranges with the intake's parser and limits, the size cap, the
license, the architecture, the tokenizer, the quantization from the tensors' types) read it unchanged.

The demo has no hub: its real model's file comes from a package (evaluator/real_gguf.py). What the hub would list
for it is what the file's record says (RealGGUF: repository, file name, size, the LFS sha256, licence and base
model, as its model card declares them), at one fixed revision of the demo (``demo_revision``), not a hub commit.
The bytes are the file's own; the worker's download checks their sha256 again (evaluations/gguf_fetch.py).
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from evaluator.real_gguf import RealGGUF


def demo_revision(model: RealGGUF) -> str:
    """The demo's revision of a real file: the first 40 hex digits of its sha256. A fixed, commit-shaped name (the
    hub cache and the runs keep commit shas), one per file; no hub commit has it by design of neither."""
    return model.sha256[:40]


class LocalFileHub:
    """HubClient's answers (model_info, files_info, read_range, read_file) for one file of one repository, read from
    `path`."""

    def __init__(self, model: RealGGUF, path: Path):
        self.model, self.path, self.revision = model, Path(path), demo_revision(model)

    def model_info(self, hub_id: str, revision: str, *, expand):
        card = {"license": self.model.license, "base_model": self.model.base_model}
        return SimpleNamespace(sha=self.revision, private=False, gated=False, tags=[f"license:{self.model.license}"],
                               siblings=[SimpleNamespace(rfilename=self.model.file_name)], card_data=card)

    def files_info(self, repo_id: str, paths: list[str], sha: str) -> dict[str, tuple[int, str | None]]:
        return {p: (self.path.stat().st_size, self.model.sha256) for p in paths if p == self.model.file_name}

    def read_range(self, repo_id: str, filename: str, sha: str, *, start: int, end: int) -> bytes:
        with open(self.path, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start + 1)

    def read_file(self, repo_id: str, filename: str, sha: str, *, max_bytes: int) -> bytes | None:
        return None  # only small non-LFS files are read whole; the GGUF file is listed with its sha256

    def other_kind(self, hub_id: str) -> str | None:
        return None
