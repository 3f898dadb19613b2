"""A predictions upload is refused over the size limit without being read whole (Content-Length before the body
is parsed, the file's declared size before it is read, then bounded pieces), and its name is the hub id checked
exactly as on submit (not trimmed)."""
import io

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import multipartparser
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.urls import reverse

from leaderboard.benchmarks.models import Question
from leaderboard.submissions import uploads

pytestmark = pytest.mark.django_db
URL = "/api/v1/submissions/predictions/"


@pytest.fixture
def user(client):
    user = User.objects.create_user("uploader", "u@example.com", "pw")
    client.force_login(user)
    return user


def predictions():
    rows = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation").order_by("position")
    return ("question_id,predicted_answer\n" + "".join(f"{q.uid},{q.answer.split(',')[0]}\n" for q in rows)).encode()


def form(data: bytes, **fields):
    upload = io.BytesIO(data)
    upload.name = "predictions.csv"
    return {"name": "uploader/my-model", "benchmark": "mobile-mmlu", "split": "validation", "file": upload, **fields}


def test_the_url_is_the_upload_api():
    assert reverse("api-prediction-upload") == URL


def test_it_refuses_an_oversize_request_before_reading_its_body(client, user, demo_loaded, settings, snapshot,
                                                                monkeypatch):
    settings.PREDICTIONS_UPLOAD_MAX_BYTES = 1000
    parsed = []
    real_parse = multipartparser.MultiPartParser.parse
    monkeypatch.setattr(multipartparser.MultiPartParser, "parse",
                        lambda self: parsed.append(1) or real_parse(self))
    before = snapshot()
    body = encode_multipart(BOUNDARY, form(b"question_id,predicted_answer\n" + b"x,A\n" * 50_000))
    response = client.generic("POST", URL, body, content_type=MULTIPART_CONTENT)
    assert response.status_code == 413, response.content[:500]
    payload = response.json()
    assert payload["code"] == "UPLOAD_TOO_LARGE" and payload["max_bytes"] == 1000
    assert f"{len(body):,} bytes" in payload["detail"] and "1,000 bytes" in payload["detail"]  # size and limit
    assert parsed == []  # the multipart body was never parsed
    assert snapshot() == before


def test_it_refuses_an_oversize_file_from_its_size_without_reading_it(client, user, demo_loaded, settings, snapshot,
                                                                      monkeypatch):
    data = predictions()
    settings.PREDICTIONS_UPLOAD_MAX_BYTES = len(data) - 1  # the request fits the form allowance, the file does not
    read = []
    monkeypatch.setattr(uploads, "parse_predictions_csv", lambda *a, **k: read.append("parsed"))
    before = snapshot()
    response = client.post(URL, form(data))
    assert response.status_code == 413, response.content[:500]
    payload = response.json()
    assert payload["code"] == "UPLOAD_TOO_LARGE"
    assert payload["max_bytes"] == len(data) - 1 and payload["hint"]
    assert f"{len(data):,} bytes" in payload["detail"] and f"{len(data) - 1:,} bytes" in payload["detail"]
    assert "predictions.csv" in payload["detail"]
    assert read == [] and snapshot() == before


def test_it_accepts_a_file_at_the_limit(client, user, demo_loaded, settings):
    data = predictions()
    settings.PREDICTIONS_UPLOAD_MAX_BYTES = len(data)
    response = client.post(URL, form(data))
    assert response.status_code == 201, response.content[:500]
    assert response.json()["runs"][0]["accuracy"] == 100.0


class Endless(io.RawIOBase):
    """A file with no declared size that never ends; it counts what is asked of it."""

    def __init__(self):
        self.asked = []

    def readable(self):
        return True

    def read(self, size=-1):
        if size is None or size < 0:
            raise AssertionError("read whole")
        self.asked.append(size)
        return b"a" * size


def test_it_reads_in_bounded_pieces():
    from leaderboard.submissions.predictions_upload import UploadTooLarge, read_upload

    stream = Endless()
    with pytest.raises(UploadTooLarge) as info:
        read_upload(stream, max_bytes=100_000, filename="big.csv", chunk_size=4096)
    assert sum(stream.asked) <= 100_000 + 4096 and max(stream.asked) == 4096
    refusal = info.value
    assert (refusal.code, refusal.status, refusal.filename) == ("UPLOAD_TOO_LARGE", 413, "big.csv")
    assert refusal.size == refusal.max_bytes == 100_000  # a lower bound: reading stopped at the limit
    assert "big.csv" in refusal.message and "more than 100,000 bytes" in refusal.message


def test_it_uses_the_declared_size_first():
    from leaderboard.submissions.predictions_upload import UploadTooLarge, read_upload

    class Declared(SimpleUploadedFile):
        def read(self, *args):
            raise AssertionError("read")

    upload = Declared("p.csv", b"x" * 10)
    upload.size = 10_000_000
    with pytest.raises(UploadTooLarge) as info:
        read_upload(upload, max_bytes=1000)
    refusal = info.value
    assert (refusal.code, refusal.size, refusal.max_bytes) == ("UPLOAD_TOO_LARGE", 10_000_000, 1000)
    assert "10,000,000 bytes" in refusal.message and "1,000 bytes" in refusal.message
    assert read_upload(SimpleUploadedFile("p.csv", b"q,a\n" * 10), max_bytes=40) == b"q,a\n" * 10


def test_an_in_memory_upload_is_read_in_pieces_too():
    from leaderboard.submissions.predictions_upload import read_upload

    asked = []

    class Counted(SimpleUploadedFile):
        def read(self, size=-1):
            asked.append(size)
            return super().read(size)

    data = b"question_id,predicted_answer\n" + b"q,A\n" * 5000
    assert read_upload(Counted("p.csv", data), max_bytes=len(data), chunk_size=1024) == data
    assert asked and all(0 < size <= 1024 for size in asked)


@pytest.mark.parametrize("name", ["org/x\n", " org/x", "org/x ", "org/x\t", "\norg/x"])
def test_it_checks_the_name_exactly_as_on_submit(client, user, demo_loaded, snapshot, name):
    before = snapshot()
    upload = client.post(URL, form(predictions(), name=name))
    submit = client.post("/api/v1/submissions/", {"hub_id": name}, content_type="application/json")
    assert upload.status_code == submit.status_code == 400, (upload.content, submit.content)
    assert upload.json()["code"] == submit.json()["code"] == "INVALID_ID"
    assert upload.json()["detail"] == submit.json()["detail"]
    assert repr(name) in upload.json()["detail"]
    assert snapshot() == before
