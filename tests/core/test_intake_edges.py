"""Every intake against PostgreSQL's edge values (issue 31: "a request stores all or nothing, and what it stores can be
read back"): the API's POSTs, the pages' forms and the management commands that take what a person types. The edges:
NUL, control and bidi characters, text that grows past its column under NFKC or casefold ('ﬃ' is 'ffi'), the dotless ı,
the dotted İ and ß, integers past 2^63, and times before year 1 or after 9999 in UTC.

Each value is refused (a 4xx naming it, the form shown again with its error, or a command's non-zero exit with a
message) and nothing is stored: never a 500 or a traceback. Where text is free (a device's name, its chip) ordinary
letters such as ı, İ and ß may be accepted instead, and then every page and API that shows them answers (read back).
Names that are identities (user names, hub ids, namespaces) accept none of them. A command's arguments come from argv,
which cannot carry a NUL."""
import copy
import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.devices import world

pytestmark = pytest.mark.django_db

TEXT = {  # what a person could type, by name (the test ids)
    "nul": "a\x00b",
    "control": "a\x07\x1b[2Jb",
    "bidi": "a\u202eb",
    "ffi": "\ufb03" * 100,  # 100 characters, 300 after NFKC or casefold
    "dotless-i": "m\u0131crosoft",
    "dotted-I": "\u0130nstitute",
    "sharp-s": "stra\u00dfe",
    "huge": "x" * 5000,
}
BIG = {"2^63": 2**63, "2^64": 2**64, "-2^63-1": -(2**63) - 1}
TIMES = {"year-0": "0000-12-31T23:00:00Z", "before-1": "0001-01-01T00:00:00+01:00",
         "after-9999": "9999-12-31T23:59:59-01:00", "year-10000": "10000-01-01T00:00:00Z"}


@pytest.fixture
def author(demo_loaded):
    return User.objects.create_user("author", "author@example.com", "a long pass phrase")


def _api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


FREE_TEXT = {"bidi", "dotless-i", "dotted-I", "sharp-s", "ffi"}  # ordinary text where text is free (a device's name)


def walk(values: dict, attempt, *, may_accept=frozenset(), reads=()) -> None:
    """`attempt(value)` for each edge value, each from the same database and an empty cache (no throttle refuses it
    instead): refused cleanly, or, for a value named in `may_accept`, accepted and readable back on every URL of
    `reads`. Every value that did otherwise is named at the end."""
    problems = {}
    for name, value in values.items():
        cache.clear()
        try:
            with transaction.atomic():  # rolled back after each value; a database error leaves the next usable
                if attempt(value) == "accepted":
                    assert name in may_accept, "accepted"
                    for url in reads:
                        read = Client().get(url)
                        assert read.status_code == 200, f"accepted, then {url} answers {read.status_code}"
                        b"".join(read.streaming_content) if read.streaming else read.content
                transaction.set_rollback(True)
        except AssertionError as failed:
            problems[name] = str(failed).splitlines()[0][:200]
    assert not problems, problems


def assert_unchanged(before, after):
    changed = sorted(table for table in before if before[table] != after.get(table))
    assert not changed, f"stored something in {', '.join(changed)}"


def refused_and_nothing_stored(send, snapshot):
    """`send()`'s answer is a 4xx and the database is as it was, or "accepted" for a 2xx."""
    before = snapshot()
    response = send()
    if 200 <= response.status_code < 300:
        return "accepted"
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:200])
    assert_unchanged(before, snapshot())
    return "refused"


# --- the API -----------------------------------------------------------------------------------------------------

SUBMISSION_FIELDS = ["hub_id", "revision", "gguf_file", "webhook_url", "precision", "model_type"]


@pytest.mark.parametrize("field", SUBMISSION_FIELDS + ["benchmarks", "probe"])
def test_the_submissions_api(author, hub_model, snapshot, field):
    def attempt(value):
        body = {"hub_id": "demo-org/tiny", field: [value] if field == "benchmarks" else value}
        if field == "hub_id" and isinstance(value, str):
            body["hub_id"] = f"demo-org/{value}"
        return refused_and_nothing_stored(lambda: _api(author).post(reverse("api-submissions"), body,
                                                                    format="json"), snapshot)
    walk({**TEXT, **BIG}, attempt)


@pytest.mark.parametrize("where", ["name", "benchmark", "question_id", "answer"])
def test_the_predictions_upload_api(author, snapshot, where):
    def attempt(value):
        question = "mmlu-0001" if where != "question_id" else value
        answer = "A" if where != "answer" else value
        data = {"name": f"author/{value}" if where == "name" else "author/model", "split": "validation",
                "file": SimpleUploadedFile("p.csv", f"question_id,predicted_answer\n{question},{answer}\n".encode())}
        if where == "benchmark":
            data["benchmark"] = value
        return refused_and_nothing_stored(lambda: _api(author).post(reverse("api-prediction-upload"), data,
                                                                    format="multipart"), snapshot)
    walk(TEXT, attempt)


def _device_body(place, value):
    body = world.body()
    if place in world.DEVICE:
        body["device"][place] = value
    elif place in ("sha256", "hub_id"):
        body[place] = value
    else:
        body["llama_bench"] = copy.deepcopy(body["llama_bench"])
        for test in body["llama_bench"]:
            test[place] = value
    return body


DEVICE_TEXT = ["make", "model", "chip", "os_version", "sha256", "hub_id", "model_filename", "cpu_info",
               "build_commit"]
DEVICE_NUMBERS = ["ram_gb", "n_prompt", "n_gen", "model_size", "model_n_params", "avg_ns", "n_threads"]
DEVICE_EDGES = {**{place: TEXT for place in DEVICE_TEXT}, **{place: BIG for place in DEVICE_NUMBERS},
                "test_time": TIMES}


DEVICE_READS = ["/api/v1/device-reports/", "/api/v1/device-reports/?format=csv", "/api/v1/device-reports/speeds/",
                "/api/v1/device-reports/speeds/?format=csv", "/api/v1/device-reports/board/?ram_gb=8",
                "/leaderboard/on-device/devices/", "/leaderboard/on-device/devices/?ram_gb=8"]
DEVICE_FREE_TEXT = {"make", "model", "chip", "os_version", "cpu_info", "build_commit"}
IGNORED = {"avg_ns"}  # llama-bench's field that is not stored (speeds are its avg_ts): any number passes


@pytest.mark.parametrize("place", DEVICE_EDGES)
def test_the_device_reports_api(files, author, snapshot, place):
    walk(DEVICE_EDGES[place], lambda value: refused_and_nothing_stored(
        lambda: _api(author).post(reverse("api-device-reports"), _device_body(place, value), format="json"),
        snapshot), may_accept=(FREE_TEXT if place in DEVICE_FREE_TEXT else set(BIG) if place in IGNORED else set()),
        reads=DEVICE_READS)


@pytest.fixture
def files(demo_loaded):
    return world.build()


# --- the pages' forms --------------------------------------------------------------------------------------------

def shown_again_and_nothing_stored(client, url, data, snapshot):
    """A page's form: refused with the form shown again naming the problem (or a 4xx), nothing stored; or
    "accepted" (a redirect or a page without form errors)."""
    before = snapshot()
    response = client.post(url, data)
    shown_again = response.status_code == 200 and bool(response.context and response.context.get("form")
                                                        and response.context["form"].errors)
    if not shown_again and response.status_code in (200, 201, 302):
        return "accepted"
    assert shown_again or 400 <= response.status_code < 500, (response.status_code, response.content[:200])
    assert_unchanged(before, snapshot())
    return "refused"


@pytest.mark.parametrize("field", ["username", "email"])
def test_the_sign_up_page(client, db, snapshot, field):
    def attempt(value):
        data = {"username": "newcomer", "email": "newcomer@example.com", "password1": "a long pass phrase",
                "password2": "a long pass phrase", field: f"{value}@example.com" if field == "email" else value}
        return shown_again_and_nothing_stored(client, reverse("signup"), data, snapshot)
    # An e-mail address may hold any letter (RFC 6531); it names no namespace.
    walk(TEXT, attempt, may_accept={"dotless-i", "dotted-I", "sharp-s"} if field == "email" else frozenset())


@pytest.mark.parametrize("page", ["signup-resend", "password_reset"])
def test_the_e_mail_pages(client, db, snapshot, page):
    def attempt(value):  # the same answer whatever the address, and nothing stored
        before = snapshot()
        assert client.post(reverse(page), {"email": f"{value}@example.com"}).status_code in (200, 302)
        assert_unchanged(before, snapshot())
        return "refused"
    walk(TEXT, attempt)


@pytest.mark.parametrize("field", ["hub_id", "revision", "gguf_file"])
def test_the_submit_page(client, author, hub_model, snapshot, field):
    client.force_login(author)

    def attempt(value):
        data = {"hub_id": "demo-org/tiny", "revision": "main", "precision": "bfloat16", "model_type": "pretrained",
                "benchmarks": ["mobile-mmlu"], field: f"demo-org/{value}" if field == "hub_id" else value}
        return shown_again_and_nothing_stored(client, reverse("submit"), data, snapshot)
    walk(TEXT, attempt)


@pytest.mark.parametrize("place", ["make", "model", "chip", "os_version", "ram_gb"])
def test_the_device_report_page(client, files, author, snapshot, place):
    client.force_login(author)

    def attempt(value):
        data = {**world.DEVICE, place: value, "llama_bench": json.dumps(world.captured())}
        data.pop("charging")
        return shown_again_and_nothing_stored(client, reverse("device-report-upload"), data, snapshot)
    walk(BIG if place == "ram_gb" else TEXT, attempt, may_accept=FREE_TEXT, reads=DEVICE_READS)


# --- the management commands -------------------------------------------------------------------------------------

def command_refused(snapshot, *args):
    before = snapshot()
    try:
        call_command(*args, verbosity=0, stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError as refused:
        assert str(refused).strip() and refused.returncode != 0
    except Exception as crashed:  # noqa: BLE001 (what the walk reports)
        raise AssertionError(f"crashed: {type(crashed).__name__}: {crashed}") from None
    else:
        return "accepted"
    assert_unchanged(before, snapshot())
    return "refused"


# A command's arguments come from argv, which cannot hold a NUL: the rest of the edges.
TEXT_AND_BIG = {**{name: value for name, value in TEXT.items() if name != "nul"},
                **{name: str(value) for name, value in BIG.items()}}


@pytest.mark.parametrize("args", [
    ("submit", "demo-org/{}", "--user", "author"), ("submit", "demo-org/tiny", "--user", "{}"),
    ("submit", "demo-org/tiny", "--user", "author", "--revision", "{}"),
    ("submit", "demo-org/tiny", "--user", "author", "--gguf-file", "{}"),
    ("submit", "demo-org/tiny", "--user", "author", "--benchmark", "{}"),
    ("create_benchmark", "--slug", "{}", "--topics-from", "/nonexistent.csv"),
    ("import_benchmark", "--benchmark", "{}", "--split", "validation", "--path", "/nonexistent"),
    ("rerun", "--run", "{}", "--reason", "edge", "--user", "author"),
    ("rerun", "--run", "1", "--reason", "{}", "--user", "{}"),
    ("export_results", "--run", "{}"), ("export_results", "--model", "{}"),
    ("mrscore", "--show", "{}"), ("mrscore", "--benchmark", "{}", "--judge", "x"),
    ("evaluate", "--model", "{}"),
    ("evaluate", "--model", "demo/none", "--shots", "{}"),
], ids=lambda args: "-".join(a.strip("-") for a in args if a != "{}")[:60])
def test_the_commands(author, hub_model, snapshot, args):
    walk(TEXT_AND_BIG, lambda value: command_refused(snapshot, *(a.replace("{}", value) for a in args)))


@pytest.mark.parametrize("option", ["--make", "--model", "--chip", "--os-version", "--user", "--sha256", "--hub-id",
                                    "--ram-gb"])
def test_the_device_report_command(files, author, snapshot, tmp_path, option):
    report = tmp_path / "bench.json"
    report.write_text(json.dumps(world.captured()))

    def attempt(value):
        options = {"--user": "author", "--make": "Google", "--model": "Pixel 8", "--chip": "Tensor G3",
                   "--ram-gb": "8", "--os-version": "Android 14", option: value}
        return command_refused(snapshot, "device_report", str(report), *(x for pair in options.items() for x in pair))
    free = option in ("--make", "--model", "--chip", "--os-version")  # digits are text there too
    walk(TEXT_AND_BIG, attempt, may_accept=FREE_TEXT | set(BIG) if free else frozenset(), reads=DEVICE_READS)
