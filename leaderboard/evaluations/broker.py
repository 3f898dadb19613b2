"""What the broker still holds: the run ids of predict messages waiting in a queue or delivered and not yet
acknowledged, so the reconciler re-publishes only what is lost. Redis only (kombu's layout: a list per
queue, and the `unacked` hash of delivered messages, ETA retries included); None where it cannot tell."""
import ast
import json
import logging

from django.conf import settings

log = logging.getLogger(__name__)
TASK = "evaluator.predict_run"
PRIORITY_SEP = "\x06\x16"  # kombu's separator for priority sub-queues ("gpu\x06\x163")


def waiting_run_ids(queues) -> set[int] | None:
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        return None
    import redis

    try:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        raw = []
        for queue in queues:
            for key in [queue, *(f"{queue}{PRIORITY_SEP}{p}" for p in (3, 6, 9))]:
                raw.extend(client.lrange(key, 0, -1))
        raw.extend(json.loads(v)[0] for v in client.hvals("unacked"))
    except (redis.RedisError, ValueError, IndexError, TypeError):
        log.warning("reconcile: could not read the broker's queues; re-publishing by publish time", exc_info=True)
        return None
    return {run_id for message in raw if (run_id := _run_id(message)) is not None}


def _run_id(message) -> int | None:
    try:
        body = json.loads(message) if isinstance(message, (bytes, str)) else message
        headers = body.get("headers") or {}
        if headers.get("task") != TASK:
            return None
        return int(ast.literal_eval(headers.get("argsrepr") or "[]")[0])
    except (ValueError, SyntaxError, TypeError, IndexError, AttributeError):
        return None
