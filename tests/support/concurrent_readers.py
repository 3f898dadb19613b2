"""Concurrent cold readers of one URL, each on its own thread, Django test client and database connection (tests
marked django_db(transaction=True): the threads see only committed rows).

The build under test is wrapped by `gated`: it counts its calls and holds each one until all readers but one have
their answer. So the reader that took on the recompute (it runs after its response, within its client.get) answers
last, and a second recompute, were there one, would be counted before anyone could see the new board."""
import threading

from django.db import connection
from django.test import Client


def gated(build, *, readers, timeout=10):
    """(wrapped build, calls): the wrapper waits until readers - 1 answers are in, then builds."""
    calls, others_answered = [], threading.Event()

    def wrapper(*args, **kwargs):
        calls.append(1)
        others_answered.wait(timeout)
        return build(*args, **kwargs)

    wrapper.answered = others_answered
    return wrapper, calls


def read_concurrently(url, *, readers, wrapper, **headers):
    """Answers of `readers` simultaneous GETs of url, in the order they came back."""
    answers, lock, start = [], threading.Lock(), threading.Barrier(readers)

    def read():
        try:
            start.wait(10)
            response = Client().get(url, **headers)
            with lock:
                answers.append(response)
                if len(answers) == readers - 1:
                    wrapper.answered.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=read) for _ in range(readers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == readers, "a reader did not answer"
    return answers
