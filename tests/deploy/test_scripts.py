"""The start scripts exist, are executable, pass `bash -n` and shellcheck, and start what they should."""
import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import time

import pytest

from tests.deploy.compose import REPO, variants

DOCKERFILES = sorted((REPO / "docker").glob("*.Dockerfile"))
SCRIPTS = sorted([*(REPO / "docker").glob("*.sh"), *(REPO / "docker" / "postgres-init").glob("*.sh")])


def referenced_scripts():
    """Every repo path a service or image starts: compose `command`/`entrypoint`, Dockerfile CMD/ENTRYPOINT."""
    paths = set()
    for stack in variants().values():
        for service in stack["services"].values():
            for key in ("command", "entrypoint"):
                if "build" in service and service.get(key):
                    paths.add(service[key][0])
    for dockerfile in DOCKERFILES:
        for match in re.finditer(r'^(?:CMD|ENTRYPOINT) \["([^"]+)"', dockerfile.read_text(), re.M):
            paths.add(match.group(1))
    return sorted(paths)


def test_it_works():
    scripts = referenced_scripts()
    assert {"docker/start-web.sh", "docker/start-worker.sh", "docker/start-beat.sh"} <= set(scripts)
    for script in scripts:
        path = REPO / script
        assert path.is_file(), script
        assert path.stat().st_mode & stat.S_IXUSR, f"{script} is not executable"
        assert path.read_text().startswith("#!/usr/bin/env bash\n"), script


def test_it_copies_only_files_that_exist():
    for dockerfile in DOCKERFILES:
        for line in re.findall(r"^COPY (?!--from)(.+)$", dockerfile.read_text(), re.M):
            *sources, _target = line.split()
            for source in sources:
                assert source == "." or (REPO / source).exists(), f"{dockerfile.name}: {source}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_it_passes_bash_syntax_check(script):
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert script.stat().st_mode & stat.S_IXUSR, f"{script.name} is not executable"


@pytest.mark.skipif(shutil.which("shellcheck") is None,
                    reason="shellcheck is not installed (Debian package `shellcheck`; .ci/run installs it)")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_it_passes_shellcheck(script):
    result = subprocess.run(["shellcheck", "--shell=bash", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def fake_bin(tmp_path):
    """`celery`, `python` and `gunicorn` that only record how they were called."""
    bin_dir, calls = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir()
    for name in ("celery", "python", "gunicorn"):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "{name} $*" >> "{calls}"\n')
        tool.chmod(0o755)

    def run(script, *args, **env):
        full_env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path),
                    "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom"), **env}
        result = subprocess.run(["bash", str(REPO / "docker" / script), *args], cwd=REPO, env=full_env,
                                capture_output=True, text=True, timeout=30)
        return result, (calls.read_text().splitlines() if calls.exists() else [])

    return run


def test_it_starts_the_gpu_worker_on_the_gpu_queue_one_task_at_a_time(fake_bin):
    result, calls = fake_bin("start-worker.sh", "gpu")
    assert result.returncode == 0, result.stderr
    (call,) = calls
    assert " worker -Q gpu -c 1 --prefetch-multiplier 1 " in call and call.startswith("celery -A leaderboard ")
    _, calls = fake_bin("start-worker.sh", "gpu", GPU_WORKER_QUEUES="gpu-large,gpu-small")
    assert " -Q gpu-large,gpu-small -c 1 " in calls[-1]


def test_it_starts_the_default_worker_on_the_default_queue(fake_bin):
    result, calls = fake_bin("start-worker.sh", "default")
    assert result.returncode == 0 and calls[0] == "python manage.py check"  # the sealed keys open the database's
    assert " worker -Q default " in calls[1]


def test_it_handles_an_unknown_worker_kind(fake_bin):
    result, calls = fake_bin("start-worker.sh", "gpuu")
    assert result.returncode == 2 and "usage" in result.stderr and calls == []


def test_it_migrates_grants_and_collects_before_serving(fake_bin):
    result, calls = fake_bin("start-web.sh", GPU_WORKER_DB_ROLE="gpu_worker")
    assert result.returncode == 0, result.stderr
    assert calls == ["python manage.py migrate --no-input", "python manage.py grant_worker_role gpu_worker",
                     "python manage.py collectstatic --no-input -v 0",
                     "gunicorn leaderboard.wsgi:application --config docker/gunicorn.conf.py"]
    assert (REPO / "docker" / "gunicorn.conf.py").is_file()
    # A second web replica leaves migrations to the first.
    _, calls = fake_bin("start-web.sh", RUN_MIGRATIONS="0")
    assert not any("migrate" in c for c in calls[4:])


def test_it_starts_beat(fake_bin):
    result, calls = fake_bin("start-beat.sh")
    assert result.returncode == 0 and calls[0].startswith("celery -A leaderboard beat ")


def test_a_stopped_gpu_worker_leaves_no_celery_behind_when_its_drain_folder_is_missing(tmp_path):
    """docker stop sends SIGTERM to the script: it marks the drain and forwards the signal. When marking failed
    (the drain file's folder did not exist), the trap stopped before forwarding it; the SIGKILL that followed the
    grace period ended the script only, and Celery ran on, orphaned, taking tasks meant for the next worker."""
    bin_dir, pid_file, got = tmp_path / "bin", tmp_path / "celery.pid", tmp_path / "celery.got"
    bin_dir.mkdir()
    drain = tmp_path / "not" / "yet" / "gpu-worker.drain"
    celery = bin_dir / "celery"  # stands in for Celery: waits to be told to stop, and says whether the drain was on
    celery.write_text(f"#!/bin/sh\necho $$ > {pid_file}\n"
                      f"trap 'test -e {drain} && echo drained > {got}; exit 0' TERM\n"
                      "while :; do sleep 0.1; done\n")
    celery.chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(tmp_path), "RUN_DRAIN_FILE": str(drain),
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom")}
    script = subprocess.Popen(["bash", str(REPO / "docker" / "start-worker.sh"), "gpu"], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        for _ in range(100):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.05)
        celery_pid = int(pid_file.read_text())
        script.send_signal(signal.SIGTERM)
        output, _ = script.communicate(timeout=20)
        # Celery was told to stop after the drain was marked: the run in progress stops at a chunk boundary.
        assert got.exists() and got.read_text().strip() == "drained", output
        for _ in range(100):
            if not _alive(celery_pid):
                break
            time.sleep(0.05)
        assert not _alive(celery_pid), "Celery outlived its start script"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(script.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
