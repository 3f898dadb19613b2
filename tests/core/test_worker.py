"""A real Celery worker process consumes the broker: Redis (tests, production) and the embedded file broker."""
import os
import subprocess
import sys

import pytest

from tests.support.parallel import spare_broker
from tests.support.worker import REPO, WorkerProcess

pytestmark = pytest.mark.slow


def publish_ping(env):
    """Publish from a separate process, as the web process would."""
    code = "import django; django.setup(); from leaderboard.core.tasks import ping; print(ping.delay().id)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=60, check=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("broker", ["redis", "filesystem"])
def test_it_works(tmp_path, broker):
    env = {**os.environ, "LEADERBOARD_VAR_DIR": str(tmp_path)}
    if broker == "redis":
        import redis

        env.update(DJANGO_SETTINGS_MODULE="leaderboard.settings.test", CELERY_BROKER_URL=spare_broker())  # not the tests' cache
        redis.Redis.from_url(env["CELERY_BROKER_URL"]).flushdb()
    else:  # embedded defaults: nothing configured, nothing running but the worker
        env.update(DJANGO_SETTINGS_MODULE="leaderboard.settings.local", CELERY_BROKER_URL="", DATABASE_URL="")
    with WorkerProcess(env) as worker:
        task_id = publish_ping(env)
        assert worker.wait_for(f"Task core.ping[{task_id}] succeeded"), worker.log[-3000:]
