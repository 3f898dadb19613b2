"""Gunicorn settings for the web image (docker/start-web.sh)."""
import os

bind = "0.0.0.0:8000"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
threads = int(os.environ.get("WEB_THREADS", "1"))
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
graceful_timeout = 30
max_requests = 2000  # recycle workers now and then; jitter so they do not all restart at once
max_requests_jitter = 200
worker_tmp_dir = "/dev/shm"  # heartbeat files off the container's overlay disk
accesslog = None  # Django logs each request itself (JSON, with its request id): ACCESS_LOG
errorlog = "-"
# X-Forwarded-* are trusted from these addresses only (the reverse proxy in front).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def child_exit(server, worker):
    """Drop a dead worker's live gauges from the shared metrics folder (prometheus_client multiprocess)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
