"""docker-compose.yml (and its CPU variant) is a valid compose file whose services would start as designed.

The schema is the Compose Specification's JSON schema (compose-spec/compose-spec, schema/compose-spec.json,
Apache-2.0, see compose-spec.LICENSE), vendored from the check-jsonschema 0.39.0 wheel
(check_jsonschema/builtin_schemas/vendor/compose-spec.json, sha256 d549057e...). To refresh it:
`pip download --no-deps check-jsonschema` and copy that file here.
"""
import json
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest

from tests.deploy.compose import (COMPOSE, COMPOSE_CPU, REPO, dockerfile_args, interpolate, load, requirement_names,
                                  strip_resets, variants)

SCHEMA = json.loads((Path(__file__).parent / "compose-spec.json").read_text())
SECRETS = ("SECRET_KEY", "SEALED_ANSWER_KEYS", "POSTGRES_PASSWORD")
TRUSTED = ("web", "worker", "beat")
BACKEND_LIBRARY = {"vllm": "vllm", "transformers": "transformers"}  # RUN_BACKEND -> the package it imports


@pytest.fixture(scope="module")
def stacks():
    return variants()


def errors_of(document):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


@pytest.mark.parametrize("name", ["gpu", "cpu"])
def test_it_works(stacks, name):
    assert errors_of(stacks[name]) == []


def test_it_validates_the_cpu_override_file_alone():
    assert errors_of(strip_resets(load(COMPOSE_CPU))) == []


def test_it_handles_an_invalid_file():
    """The check has teeth: a typo in a service key is caught."""
    broken = load(COMPOSE)
    broken["services"]["web"]["restrat"] = "always"
    assert any("restrat" in e for e in errors_of(broken))


def test_it_has_the_services_of_the_design(stacks):
    assert set(stacks["gpu"]["services"]) == {"postgres", "redis", "cache", "web", "worker", "beat", "gpu-worker",
                                                    "backup"}
    for name, service in stacks["gpu"]["services"].items():
        assert service.get("restart") in ("unless-stopped", "always"), name


def test_it_waits_for_healthy_dependencies(stacks):
    services = stacks["gpu"]["services"]
    for name in ("postgres", "redis", "cache", "web"):
        assert services[name]["healthcheck"]["test"], name
    for name in ("web", "worker", "beat", "gpu-worker"):
        conditions = {dep: spec["condition"] for dep, spec in services[name]["depends_on"].items()}
        assert conditions and set(conditions.values()) == {"service_healthy"}, name
    # Workers start once the web container has migrated (and granted the GPU role its tables).
    assert "web" in services["worker"]["depends_on"] and "web" in services["gpu-worker"]["depends_on"]


def test_it_keeps_the_broker_from_dropping_messages(stacks):
    command = stacks["gpu"]["services"]["redis"]["command"]
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert stacks["gpu"]["services"]["postgres"]["volumes"][0].startswith("pgdata:")


def test_it_keeps_secrets_from_the_gpu_worker(stacks):
    for name in ("gpu", "cpu"):
        gpu = stacks[name]["services"]["gpu-worker"]
        assert "env_file" not in gpu  # docker/.env holds the site's secrets
        environment = gpu["environment"]
        assert not set(environment) & set(SECRETS)
        assert environment["DJANGO_SETTINGS_MODULE"] == "leaderboard.settings.gpu_worker"
        assert environment["DATABASE_URL"].startswith("postgresql://gpu_worker:")  # the least-privilege role
        assert gpu["networks"] == ["gpu"]  # PostgreSQL and the broker; not web, not the cache
    networks = {n: s.get("networks", []) for n, s in stacks["gpu"]["services"].items()}
    assert {n for n, nets in networks.items() if "gpu" in nets} == {"postgres", "redis", "gpu-worker"}
    # The trusted services do get them.
    assert stacks["gpu"]["services"]["web"]["env_file"] == "docker/.env"
    example = (REPO / "docker" / "env.example").read_text()
    assert all(f"\n{key}=" in example for key in (*SECRETS, "GPU_WORKER_DB_PASSWORD", "ALLOWED_HOSTS"))


def test_it_keeps_the_cache_out_of_the_gpu_workers_reach(stacks):
    """The web tier unpickles cache entries, so the cache is a Redis server the GPU worker cannot reach."""
    services = stacks["gpu"]["services"]
    environment = services["web"]["environment"]
    cache = urlsplit(environment["CACHE_URL"]).hostname
    assert cache != urlsplit(environment["CELERY_BROKER_URL"]).hostname
    assert "gpu" not in services[cache]["networks"]
    # Production settings also require the /metrics token, which docker/.env carries.
    assert "\nMETRICS_TOKEN=" in (REPO / "docker" / "env.example").read_text()


def test_it_reserves_a_gpu_for_the_gpu_worker(stacks):
    gpu = stacks["gpu"]["services"]["gpu-worker"]
    (device,) = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert device["capabilities"] == ["gpu"] and device["driver"] == "nvidia"
    assert gpu["command"] == ["docker/start-worker.sh", "gpu"]
    assert gpu["environment"]["RUN_DEVICE"] == "cuda"


def test_it_runs_the_gpu_worker_on_cpu_in_the_cpu_variant(stacks):
    gpu = stacks["cpu"]["services"]["gpu-worker"]
    assert gpu["environment"]["RUN_DEVICE"] == "cpu"
    assert "deploy" not in gpu  # no GPU to reserve
    args = gpu["build"]["args"]
    assert args["REQUIREMENTS"] == "docker/requirements-cpu-worker.txt" and "cpu" in args["PIP_EXTRA_INDEX_URL"]
    assert (REPO / args["REQUIREMENTS"]).exists()
    # Everything else is the GPU host's stack, but for the backend the trusted side stores on new runs.
    def without_backend(service):
        environment = {k: v for k, v in service["environment"].items() if k != "RUN_BACKEND"}
        return {**service, "environment": environment}

    for name in TRUSTED:
        cpu, gpu_host = stacks["cpu"]["services"][name], stacks["gpu"]["services"][name]
        assert cpu["environment"]["RUN_BACKEND"] == "transformers"
        assert without_backend(cpu) == without_backend(gpu_host), name


def run_backend(stack, service, env=None):
    return interpolate(str(stack["services"][service]["environment"]["RUN_BACKEND"]), env)


@pytest.mark.parametrize("name, backend", [("gpu", "vllm"), ("cpu", "transformers")])
def test_it_creates_runs_for_the_backend_its_gpu_worker_image_has(stacks, name, backend):
    """RUN_BACKEND is stored on each run when the trusted side creates it, so web, worker and beat agree on it,
    and the prediction worker's image installs that backend's library."""
    stack = stacks[name]
    assert {service: run_backend(stack, service) for service in TRUSTED} == dict.fromkeys(TRUSTED, backend)
    gpu = stack["services"]["gpu-worker"]
    assert "RUN_BACKEND" not in gpu["environment"]  # it runs each run's stored backend, never reads this
    args = {**dockerfile_args(REPO / gpu["build"]["dockerfile"]), **gpu["build"].get("args", {})}
    assert BACKEND_LIBRARY[backend] in requirement_names(REPO / args["REQUIREMENTS"]), args["REQUIREMENTS"]
    if name == "cpu":  # the CPU image has no vLLM, so an operator's RUN_BACKEND=vllm cannot reach it
        assert "vllm" not in requirement_names(REPO / args["REQUIREMENTS"])
        assert run_backend(stack, "web", {"RUN_BACKEND": "vllm"}) == "transformers"
    else:  # one setting in docker/.env switches every trusted service at once
        assert {run_backend(stack, s, {"RUN_BACKEND": "transformers"}) for s in TRUSTED} == {"transformers"}


def test_it_keeps_the_gpu_workers_caches_on_volumes(stacks):
    """Model weights, vLLM's torch.compile cache and the GGUF files made here survive a restart; the image creates
    the folders, so the named volumes start owned by the app user."""
    dockerfile = (REPO / "docker" / "gpu-worker.Dockerfile").read_text()
    for name in ("gpu", "cpu"):
        gpu = stacks[name]["services"]["gpu-worker"]
        mounts = dict(volume.split(":", 1) for volume in gpu["volumes"])
        assert mounts == {"hf-cache": "/home/app/.cache/huggingface", "vllm-cache": "/home/app/.cache/vllm",
                          "made-gguf": "/home/app/.cache/made-gguf"}
        assert gpu["environment"]["VLLM_CACHE_ROOT"] == mounts["vllm-cache"]
        assert gpu["environment"]["RUN_MADE_GGUF_DIR"] == mounts["made-gguf"]
        assert set(mounts) <= set(stacks[name]["volumes"])
        assert all(path in dockerfile for path in mounts.values())
    assert set(stacks["gpu"]["volumes"]) == {"pgdata", "redisdata", "hf-cache", "vllm-cache", "made-gguf"}


def test_it_builds_from_files_in_the_repo(stacks):
    for name, service in stacks["gpu"]["services"].items():
        if "build" in service:
            dockerfile = REPO / service["build"]["context"] / service["build"]["dockerfile"]
            assert dockerfile.is_file(), name
            target = service["build"].get("target")
            assert target is None or f" AS {target}\n" in dockerfile.read_text(), name


def test_it_gives_the_gpu_worker_time_to_drain_on_a_redeploy(stacks):
    """docker stop's default 10 s would kill a run mid-chunk and spend one of its attempts."""
    grace = stacks["gpu"]["services"]["gpu-worker"]["stop_grace_period"]
    assert grace.endswith("m") and int(grace[:-1]) >= 5
