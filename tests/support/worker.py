"""Run a real Celery worker process for a test and read its log as it goes."""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.support.busy import Deadline

REPO = Path(__file__).resolve().parents[2]


class WorkerProcess:
    """A test worker (`-c 1 --pool solo`), or, given `command`, any worker command line such as the deploy
    script's `docker/start-worker.sh gpu`."""

    def __init__(self, env, queues="default", command=None):
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            command or [sys.executable, "-m", "celery", "-A", "leaderboard", "worker", "-Q", queues, "-c", "1",
                        "--pool", "solo", "--without-gossip", "--without-mingle", "--without-heartbeat",
                        "--loglevel", "INFO"],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
            start_new_session=True,  # a group of its own: stop() can end a deploy script's Celery child too
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def log(self):
        return "".join(self.lines)

    def wait_for(self, text, timeout=60):
        """Whether `text` shows in the log within `timeout` seconds of an unloaded machine (tests/support/busy.py)."""
        deadline = Deadline(timeout)
        while not deadline.passed():
            if text in self.log:
                return True
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        return text in self.log

    def stop(self):
        """SIGTERM (a deploy script forwards it and drains), then SIGKILL to the whole group: no worker outlives
        its test to take the next test's tasks."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self._reader.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
