"""Files a session fixture builds (tiny models, tokenizers, GGUF files, the demo models) are built once per test run,
for all its test processes (pytest-xdist) and phases (./dev.sh test), in a folder they share: the first process to ask builds under a file
lock, the others wait and take the same result. Tests only read them; a test that changes one copies it first
(tmp_path).

Slow builds that depend only on the code can also be kept between runs (`kept`): ./dev.sh test points
TEST_BUILD_CACHE at a folder in the user's cache, and a later run of the same code copies the files back rather than
building them again."""
from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import shutil
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


# The code a kept build depends on by default: every file under these folders of the repository. A build that names
# what it reads (`sources`, `inputs`) is kept across changes elsewhere.
KEPT_SOURCES = ("evaluator", "leaderboard")
KEEP_PER_NAME = 3  # builds of other code kept beside the newest, per name


def code_hash(sources=None) -> str:
    """The digest of the files of `sources` (folders or files of the repository; KEPT_SOURCES by default)."""
    repo = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for top in sources or KEPT_SOURCES:
        root = repo / top
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if path.is_file() and "__pycache__" not in path.parts:
                name = f"{top}/{path.relative_to(root)}" if root.is_dir() else str(top)
                digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def kept(name: str, folder: Path, build: Callable[[], T], *, sources=None, inputs: bytes = b"") -> T:
    """build(), which writes its files into `folder` and skips what is already there: with TEST_BUILD_CACHE set, the
    files of an earlier run of the same code (code_hash of `sources`), the same `inputs` (the data the build reads,
    e.g. the questions a model is trained on) and BUILD_PACKAGES are copied into `folder` first, and a new build's
    files are kept for the next run. Without it, build() as it is."""
    cache = os.environ.get("TEST_BUILD_CACHE")
    if not cache:
        return build()
    root = Path(cache)
    key = code_hash(sources) + (hashlib.sha256(inputs).hexdigest()[:8] if inputs else "")
    keep = root / f"{name}-{_build_versions()}-{key}"
    if keep.is_dir():
        shutil.copytree(keep, folder, dirs_exist_ok=True)
        os.utime(keep)  # used: the newest builds are the ones kept
        return build()
    result = build()
    root.mkdir(parents=True, exist_ok=True)
    staging = root / f".{keep.name}.{os.getpid()}"
    shutil.copytree(folder, staging, dirs_exist_ok=True)
    try:
        staging.rename(keep)  # whole or not at all; another run may have kept the same build meanwhile
        os.utime(keep)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    older = sorted(root.glob(f"{name}-*"), key=lambda path: path.stat().st_mtime, reverse=True)
    for stale in older[KEEP_PER_NAME + 1:]:
        shutil.rmtree(stale, ignore_errors=True)
    return result
