"""The web image installs without torch or vLLM; the GPU image pins vLLM and torch at safe versions."""
import json
import subprocess
import venv

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.deploy.compose import REPO

HEAVY = ("torch", "vllm", "nvidia", "triton", "transformers", "xformers", "flashinfer")
NETWORK_TROUBLE = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
                   "Max retries exceeded", "ConnectTimeoutError")


def requirements(name) -> dict[str, Requirement]:
    parsed = {}
    for line in (REPO / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            req = Requirement(line)
            parsed[req.name.lower()] = req
    return parsed


def pinned(req: Requirement) -> Version:
    (spec,) = req.specifier
    assert spec.operator == "==", f"{req} is not pinned to one version"
    return Version(spec.version)


def test_it_works():
    gpu = requirements("requirements-gpu.txt")
    assert pinned(gpu["vllm"]) >= Version("0.18")  # remote-code-execution fixes
    assert pinned(gpu["torch"]) >= Version("2.6")  # torch.load weights_only by default
    cpu = requirements("docker/requirements-cpu-worker.txt")
    assert pinned(cpu["torch"]) == pinned(gpu["torch"]) and "vllm" not in cpu  # same engine, no vLLM on CPU


def test_it_keeps_heavy_packages_out_of_the_web_requirements():
    names = requirements("requirements.txt")
    assert not [n for n in names if n.startswith(HEAVY)]
    assert "prometheus-client" in {n.replace("_", "-") for n in names}


def test_the_web_image_can_write_brotli_static_files():
    """WhiteNoise's collectstatic writes a .br beside each .gz only where brotli is installed: the web image installs
    it from its lock (tests/deploy/test_static_files.py checks what a production collectstatic writes)."""
    from tests.deploy.test_locks import pins

    web = pins("web")
    assert "brotli" in web and "whitenoise" in web, "requirements/web.lock: no brotli, so production serves gzip only"
    assert "brotli" in requirements("requirements.txt"), "brotli belongs to the web requirements, not the dev ones"


@pytest.mark.slow
def test_it_installs_the_web_requirements_in_a_clean_virtualenv_without_torch(tmp_path):
    """What `pip install -r requirements/web.lock` in the web image would install, resolved in a fresh venv
    (--dry-run --report: resolved and reported, nothing installed)."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    report = tmp_path / "report.json"
    result = subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), "-r", str(REPO / "requirements" / "web.lock")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0 and any(sign in output for sign in NETWORK_TROUBLE):
        pytest.skip(f"the package index is unreachable from this machine: {output[-300:]}")
    assert result.returncode == 0, output[-2000:]
    resolved = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    assert {"django", "celery", "gunicorn", "psycopg", "prometheus-client"} <= {n.replace("_", "-") for n in resolved}
    assert not [n for n in resolved if n.startswith(HEAVY)], sorted(resolved)
