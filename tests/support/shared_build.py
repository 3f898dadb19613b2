"""Files a session fixture builds (tiny models, tokenizers, GGUF files, the demo models) are built once per test run,
for all its test processes (pytest-xdist) and phases (./dev.sh test), in a folder they share: the first process to ask builds under a file
lock, the others wait and take the same result. Tests only read them; a test that changes one copies it first
(tmp_path)."""
from __future__ import annotations

import fcntl
import os
import pickle
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")


# What the built files depend on besides the code: environments at other versions of these build their own.
BUILD_PACKAGES = ("torch", "transformers", "tokenizers", "sentencepiece")


def run_folder(tmp_path_factory, name: str) -> Path:
    """A folder of this test run shared by its processes. TEST_SHARED_DIR (./dev.sh test sets it for all its phases)
    is shared by every phase whose environment has the same BUILD_PACKAGES: the main and llama.cpp phases build the
    demo models once between them. Otherwise the pytest run's own: under pytest-xdist each worker's temporary base
    is pytest-N/popen-gwK, so the run's own is its parent."""
    shared = os.environ.get("TEST_SHARED_DIR")
    if shared:
        folder = Path(shared) / f"{name}-{_build_versions()}"
    else:
        base = tmp_path_factory.getbasetemp()
        if os.environ.get("PYTEST_XDIST_WORKER"):
            base = base.parent
        folder = base / f"shared-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _build_versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    def installed(package):
        try:
            return version(package)
        except PackageNotFoundError:
            return "none"
    return "-".join(f"{p}{installed(p)}" for p in BUILD_PACKAGES).replace("+", "_")


def once(folder: Path, name: str, build: Callable[[], T]) -> T:
    """build()'s result, built by the first process of the run that asks for `name` in `folder` (pickled beside it:
    paths, dicts of paths)."""
    done = folder / f".{name}.done"
    with open(folder / f".{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if build() raises
        if done.exists():
            return pickle.loads(done.read_bytes())
        result = build()
        done.write_bytes(pickle.dumps(result))
        return result
