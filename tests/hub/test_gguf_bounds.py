"""Bounded GGUF intake (issue 38, findings 4, 7 and 8): a split file's parts are capped and the first part is read and
checked before any other; the whole intake's hub requests are counted against a budget and its time against a
deadline; what the pinned llama.cpp refuses (an alignment that is not a power of two, attention facts of the wrong
type or out of range) is refused with its code; the quantization is named by weight bytes, not tensor count."""
import itertools
import struct
import time
from types import SimpleNamespace

import gguf
import pytest
from django.urls import reverse

from leaderboard.demo.local_hub import LocalFileHub
from leaderboard.hub import gguf_checks
from leaderboard.hub.errors import CODES, SubmissionRefused
from leaderboard.hub.gguf_checks import DEFAULT_INTAKE, IntakeLimits, check_gguf
from leaderboard.hub.gguf_header import TensorInfo
from leaderboard.hub.gguf_quant import QuantMismatch, quantization
from leaderboard.hub.ids import ModelRef
from tests.support.fake_hub import readme
from tests.support.raw_gguf import gguf_file, kv_str, model_keys, text

GB = 1 << 30
V = gguf.GGUFValueType
T = gguf.GGMLQuantizationType
Q4_K_M = gguf.LlamaFileType.MOSTLY_Q4_K_M
_REPOS = itertools.count()
_FORMATS = {V.UINT8: "B", V.INT8: "b", V.UINT16: "H", V.INT16: "h", V.UINT32: "I", V.INT32: "i", V.UINT64: "Q",
            V.INT64: "q", V.FLOAT32: "f", V.FLOAT64: "d", V.BOOL: "?"}


def kv(key: str, kind: V, value) -> bytes:
    """A scalar metadata pair of any type (a string when ``kind`` is STRING)."""
    if kind == V.STRING:
        return kv_str(key, value)
    return text(key) + struct.pack("<I" + _FORMATS[kind], kind, value)


def split_keys(no: int, count: int) -> list[bytes]:
    """What llama.cpp's gguf-split writes in each part (split.no from 0; a UINT16 count, so more takes a UINT32)."""
    kind = V.UINT16 if count < 1 << 16 else V.UINT32
    return [kv("split.no", kind, no), kv("split.count", kind, count), kv("split.tensors.count", V.INT32, count)]


def split_parts(count: int, *, first: list[bytes] | None = None, claimed: int | None = None,
                made: int | None = None) -> dict[str, bytes]:
    """The parts of a split file ``m-0000i-of-<count>.gguf``, one small F32 tensor each; the first part has
    ``first`` (default: architecture and tokenizer) and says it is one of ``claimed`` (default: ``count``) parts.
    ``made``: how many of the parts to write (all by default)."""
    parts = {}
    for i in range(count if made is None else made):
        keys = (model_keys() if first is None else first) if i == 0 else []
        parts[f"m-{i + 1:05d}-of-{count:05d}.gguf"] = gguf_file(
            [*keys, *split_keys(i, claimed or count if i == 0 else count)],
            [(f"blk.{i}.ffn_up.weight", (32, 4), T.F32)])
    return parts


def _repo(fake_hub, files: dict) -> str:
    repo = f"org/bounds-{next(_REPOS)}"
    fake_hub.add_repo(repo, repo_type="model", files={"README.md": readme({"license": "mit"}), **files})
    fake_hub.requests.clear()
    return repo


def _refused(call, code: str, *words) -> SubmissionRefused:
    with pytest.raises(SubmissionRefused) as caught:
        call()
    error = caught.value
    assert error.code == code and code in CODES, f"{error.code}: {error.message}"
    for word in words:
        assert word in error.message, error.message
    assert error.hint
    return error


def _part_reads(fake_hub) -> set[str]:
    return {r.path.rsplit("/", 1)[-1] for r in fake_hub.requests if r.path.endswith(".gguf")}


# --- finding 4: the parts are capped and the intake's hub requests and time bounded --------------------------------

def test_four_thousand_tiny_parts_are_refused_before_the_hub_is_asked(fake_hub):
    """The issue's example: 4,000 tiny parts took 4.13 s of web CPU and 4,001 hub requests, then a refusal."""
    repo = _repo(fake_hub, split_parts(4000))
    started = time.process_time()
    error = _refused(lambda: check_gguf(ModelRef(repo), "m-00001-of-04000.gguf", max_bytes=GB),
                     "GGUF_TOO_MANY_PARTS", "4,000 parts", f"{DEFAULT_INTAKE.max_parts}")
    spent = time.process_time() - started
    assert fake_hub.requests == [] and spent < 0.2, (len(fake_hub.requests), spent)
    assert "gguf-split" in error.hint


@pytest.mark.parametrize("count", [1, 2, 64, 65, 99_999])
@pytest.mark.parametrize("budget", [DEFAULT_INTAKE.max_requests, 20])
def test_the_hub_requests_stay_within_the_budget_for_any_part_count(fake_hub, count, budget):
    """The class: whatever the part count, intake asks the hub at most ``max_requests`` times; a file whose parts fit
    the cap and the budget is read whole, one over either is refused with its code."""
    made = None if count <= 65 else 1  # so many parts are refused by their name: the others need not exist
    parts = split_parts(count, made=made) if count > 1 else {"m.gguf": gguf_file(model_keys(), [
        ("blk.0.ffn_up.weight", (32, 4), T.F32)])}
    repo = _repo(fake_hub, parts)
    intake = IntakeLimits(max_requests=budget)
    try:
        facts = check_gguf(ModelRef(repo), next(iter(parts)), max_bytes=GB, intake=intake)
    except SubmissionRefused as error:
        assert error.code in ("GGUF_TOO_MANY_PARTS", "GGUF_TOO_MANY_REQUESTS"), error
        assert (error.code == "GGUF_TOO_MANY_PARTS") == (count > DEFAULT_INTAKE.max_parts)
        assert count + 2 > budget or count > DEFAULT_INTAKE.max_parts  # only a file that needs more is refused
    else:
        assert len(facts.parts) == count and facts.params == 128 * count
    assert len(fake_hub.requests) <= budget, len(fake_hub.requests)
    if count > DEFAULT_INTAKE.max_parts:
        assert fake_hub.requests == []


@pytest.mark.parametrize("first, claimed, code", [
    (model_keys(arch="no-such-arch"), None, "GGUF_ARCH_UNSUPPORTED"),
    ([kv_str("general.architecture", "llama")], None, "GGUF_NO_TOKENIZER"),
    (None, 2, "GGUF_SPLIT_INCOMPLETE"),  # the first part says 2 parts, its name 8
    ([*model_keys(), kv("general.alignment", V.UINT32, 0)], None, "GGUF_BAD_ALIGNMENT"),
])
def test_the_first_part_is_read_and_checked_before_any_other(fake_hub, first, claimed, code):
    repo = _repo(fake_hub, split_parts(8, first=first, claimed=claimed))
    _refused(lambda: check_gguf(ModelRef(repo), "m-00001-of-00008.gguf", max_bytes=GB), code)
    assert _part_reads(fake_hub) == {"m-00001-of-00008.gguf"}  # the other seven parts were never read


def test_the_first_part_must_say_it_is_the_first_of_as_many_as_its_name(fake_hub):
    parts = split_parts(3)
    parts["m-00001-of-00003.gguf"] = gguf_file([*model_keys(), *split_keys(1, 3)],
                                               [("blk.0.ffn_up.weight", (32, 4), T.F32)])
    repo = _repo(fake_hub, parts)
    _refused(lambda: check_gguf(ModelRef(repo), "m-00001-of-00003.gguf", max_bytes=GB), "GGUF_SPLIT_INCOMPLETE",
             "part 2 of 3")
    no_split_keys = {**split_parts(3), "m-00001-of-00003.gguf": gguf_file(model_keys())}
    repo = _repo(fake_hub, no_split_keys)
    _refused(lambda: check_gguf(ModelRef(repo), "m-00001-of-00003.gguf", max_bytes=GB), "GGUF_SPLIT_INCOMPLETE",
             "no split.count")
    assert _part_reads(fake_hub) == {"m-00001-of-00003.gguf"}


def test_the_intake_stops_at_its_deadline(fake_hub, monkeypatch):
    """Each hub request is asked only before the deadline; a clock that moves 10 s a look stops intake after a few."""
    repo = _repo(fake_hub, split_parts(8))
    ticks = itertools.count(step=10.0)
    monkeypatch.setattr(gguf_checks, "_clock", lambda: next(ticks))
    error = _refused(lambda: check_gguf(ModelRef(repo), "m-00001-of-00008.gguf", max_bytes=GB,
                                        intake=IntakeLimits(max_seconds=25)), "GGUF_INTAKE_TOO_SLOW", "25 s")
    assert "try again" in error.hint and len(fake_hub.requests) <= 3


def test_the_deadline_caps_the_parse_time_of_a_header(fake_hub, monkeypatch):
    """A header's CPU time is capped by what is left of the intake's time, not only by HeaderLimits.max_seconds."""
    repo = _repo(fake_hub, {"m.gguf": gguf_file(model_keys(tokens=20_000))})
    seen = []
    real = gguf_checks.parse_header
    monkeypatch.setattr(gguf_checks, "parse_header", lambda *a, **k: seen.append(k["limits"]) or real(*a, **k))
    check_gguf(ModelRef(repo), "m.gguf", max_bytes=GB, intake=IntakeLimits(max_seconds=1.5))
    assert 0 < seen[0].max_seconds <= 1.5


def test_the_parse_time_of_every_part_is_one_budget(fake_hub, monkeypatch):
    """HeaderLimits.max_seconds is the CPU time of all the parts' headers together, not of each: a CPU clock that
    moves 1 s a look spends the 2 s on two parts, and the third is never read."""
    repo = _repo(fake_hub, split_parts(8))
    ticks = itertools.count(step=1.0)
    monkeypatch.setattr(gguf_checks, "_cpu", lambda: next(ticks))
    _refused(lambda: check_gguf(ModelRef(repo), "m-00001-of-00008.gguf", max_bytes=GB), "GGUF_HEADER_TOO_SLOW",
             "m-00003-of-00008.gguf (part 3 of 8)", "took over 2 s of CPU time together")
    assert _part_reads(fake_hub) == {"m-00001-of-00008.gguf", "m-00002-of-00008.gguf"}


# --- finding 7: what llama.cpp refuses is refused ------------------------------------------------------------------

def _one_tensor(keys: list[bytes], pad: int = 0) -> bytes:
    return gguf_file(keys, [("blk.0.ffn_up.weight", (32, 4), T.F32)]) + bytes(pad)


def _check(fake_hub, data: bytes):
    repo = _repo(fake_hub, {"m.gguf": data})
    return check_gguf(ModelRef(repo), "m.gguf", max_bytes=GB)


@pytest.fixture
def local_check(tmp_path):
    """check_gguf of one file answered from disk (the demo's LocalFileHub), for the walks: the same intake without
    a request to the fake hub for each of their hundred headers."""

    def check(data: bytes):
        path = tmp_path / "m.gguf"
        path.write_bytes(data)
        model = SimpleNamespace(file_name="m.gguf", sha256="0" * 64, license="mit", base_model=None)
        return check_gguf(ModelRef("org/walk"), "m.gguf", max_bytes=GB, client=LocalFileHub(model, path))
    return check


@pytest.mark.parametrize("key, kind, value, code", [
    ("general.alignment", V.UINT32, 0, "GGUF_BAD_ALIGNMENT"),
    ("llama.block_count", V.INT64, -2**63, "GGUF_METADATA_OUT_OF_RANGE"),
    ("llama.attention.head_count", V.UINT64, 2**64 - 1, "GGUF_METADATA_OUT_OF_RANGE"),
    ("llama.context_length", V.INT32, -5, "GGUF_METADATA_OUT_OF_RANGE"),
])
def test_the_issues_headers_are_refused(fake_hub, key, kind, value, code):
    """The issue's examples: alignment 0 passed intake (llama.cpp will not load the file); block count -2^63, head
    counts of 2^64 - 1 and context length -5 were stored as facts."""
    error = _refused(lambda: _check(fake_hub, _one_tensor([*model_keys(), kv(key, kind, value)])), code, key)
    assert f"{value:,}" in error.message or str(value) in error.message


GOOD_ALIGNMENTS = [1, 2, 8, 32, 64, 4096]
BAD_ALIGNMENTS = [(V.UINT32, 0), (V.UINT32, 3), (V.UINT32, 48), (V.UINT32, 2**31 + 1), (V.UINT32, 2**32 - 1),
                  (V.UINT64, 32), (V.INT32, 32), (V.UINT16, 32), (V.FLOAT32, 32.0), (V.STRING, "32"),
                  (V.BOOL, True)]


@pytest.mark.parametrize("alignment", GOOD_ALIGNMENTS)
def test_a_power_of_two_alignment_is_read(local_check, alignment):
    facts = local_check(_one_tensor([*model_keys(), kv("general.alignment", V.UINT32, alignment)], alignment))
    assert facts.params == 128


@pytest.mark.parametrize("kind, value", BAD_ALIGNMENTS)
def test_every_alignment_llama_cpp_refuses_is_refused(local_check, kind, value):
    """The class: gguf.cpp reads general.alignment as a UINT32 (any other type fails its assertion) and refuses one
    that is not a non-zero power of two."""
    _refused(lambda: local_check(_one_tensor([*model_keys(), kv("general.alignment", kind, value)], 64)),
             "GGUF_BAD_ALIGNMENT", "general.alignment")


def _walk():
    """(key, type, value, accepted) for every attention fact intake keeps: its bounds accepted, just past them and
    the types llama.cpp's loader refuses (it reads each as a UINT32) refused."""
    for name, (low, high) in gguf_checks.KV_BOUNDS.items():
        key = f"llama.{gguf_checks.KV_KEYS.get(name, name)}"
        yield key, V.UINT32, low, True
        yield key, V.UINT32, high, True
        if low > 0:
            yield key, V.UINT32, low - 1, False
        if high < 2**32 - 1:
            yield key, V.UINT32, high + 1, False
        yield key, V.UINT32, 2**32 - 1, high == 2**32 - 1
        for kind, value in ((V.INT32, -5), (V.INT32, 8), (V.INT64, -2**63), (V.UINT64, 2**64 - 1), (V.UINT64, 8),
                            (V.UINT16, 8), (V.FLOAT32, 8.0), (V.STRING, "8"), (V.BOOL, True)):
            yield key, kind, value, False


@pytest.mark.parametrize("key, kind, value, accepted", list(_walk()))
def test_every_attention_fact_is_a_uint32_within_its_bounds(local_check, key, kind, value, accepted):
    """The class: a fact out of its type or bounds is refused, never stored; within them it is kept as it is."""
    data = _one_tensor([*model_keys(), kv(key, kind, value)])
    if not accepted:
        _refused(lambda: local_check(data), "GGUF_METADATA_OUT_OF_RANGE", key)
        return
    facts = local_check(data)
    name = next(n for n in gguf_checks.KV_BOUNDS if key == f"llama.{gguf_checks.KV_KEYS.get(n, n)}")
    assert {**facts.kv, "context_length": facts.context_length}[name] == value


# --- finding 8: the quantization is named by weight bytes -----------------------------------------------------------

def _mix(fitting: int, fitting_rows: int, foreign: int, foreign_rows: int) -> list[TensorInfo]:
    """``fitting`` Q4_K weights of 256 x ``fitting_rows`` and ``foreign`` F16 weights of 256 x ``foreign_rows``."""
    q4 = [TensorInfo(f"blk.{i}.ffn_up.weight", (256, fitting_rows), T.Q4_K, 0) for i in range(fitting)]
    f16 = [TensorInfo(f"blk.{i}.ffn_down.weight", (256, foreign_rows), T.F16, 0) for i in range(foreign)]
    return q4 + f16


def test_a_file_with_ninety_percent_of_its_weight_bytes_in_f16_is_not_q4_k_m(fake_hub):
    """The issue's example: nine Q4_K tensors and one F16 tensor holding 90% of the weight bytes was Q4_K_M."""
    tensors = _mix(9, 256, 1, 5832)  # 9 x 36,864 bytes of Q4_K, 2,985,984 bytes of F16
    f16 = sum(t.nbytes() for t in tensors if t.ggml_type == T.F16)
    assert f16 / sum(t.nbytes() for t in tensors) == pytest.approx(0.9, abs=0.001)
    with pytest.raises(QuantMismatch) as caught:
        quantization(tensors, Q4_K_M)
    assert (caught.value.claimed, caught.value.found) == ("Q4_K_M", "F16")
    assert "90% of its weight bytes" in caught.value.detail
    assert quantization(tensors, None) == "F16"  # unclaimed, it is named by the type that holds the most bytes
    data = gguf_file(model_keys(file_type=Q4_K_M), [(t.name, t.shape, t.ggml_type) for t in tensors])
    _refused(lambda: _check(fake_hub, data), "GGUF_QUANT_MISMATCH", "says it is Q4_K_M", "its tensors are F16")


@pytest.mark.parametrize("fitting, fitting_rows, foreign, foreign_rows", [
    (9, 256, 1, 5832),  # 90% of the tensors fit, 10% of the bytes
    (1, 4096, 9, 64),  # 10% of the tensors fit, 67% of the bytes
    (3, 256, 3, 256),  # as many tensors each way: F16 holds 78% of the bytes
    (6, 512, 2, 512),  # 75% of the tensors fit, 46% of the bytes
    (2, 2048, 6, 128),  # 25% of the tensors fit, 60% of the bytes
])
def test_the_claim_holds_when_most_weight_bytes_fit_it_whatever_the_tensor_count(fitting, fitting_rows, foreign,
                                                                                 foreign_rows):
    """The class: the claim stands iff more than half of the weight bytes have a type its recipe writes, and an
    unclaimed file is named by the type that holds the most weight bytes."""
    tensors = _mix(fitting, fitting_rows, foreign, foreign_rows)
    q4 = sum(t.nbytes() for t in tensors if t.ggml_type == T.Q4_K)
    total = sum(t.nbytes() for t in tensors)
    if q4 * 2 > total:
        assert quantization(tensors, Q4_K_M) == "Q4_K_M"
        assert quantization(tensors, None) == "Q4_K_M"
    else:
        with pytest.raises(QuantMismatch):
            quantization(tensors, Q4_K_M)
        assert quantization(tensors, None) == "F16"


# --- through the API: a 400 with its code, nothing stored -----------------------------------------------------------

@pytest.fixture
def author(demo_loaded):
    from django.contrib.auth.models import User

    return User.objects.create_user("author", "author@example.com", "a long pass phrase")


@pytest.mark.django_db
def test_the_api_refuses_with_the_codes_and_stores_nothing(client, author, fake_hub, settings, snapshot):
    settings.GGUF_MAX_PARTS = 4
    client.force_login(author)
    files = {**split_parts(5), "a.gguf": _one_tensor([*model_keys(), kv("general.alignment", V.UINT32, 0)]),
             "c.gguf": _one_tensor([*model_keys(), kv("llama.context_length", V.INT32, -5)])}
    fake_hub.add_repo("org/bounds-GGUF", repo_type="model", files={"README.md": readme({"license": "mit"}), **files})
    before = snapshot()
    for name, code in (("m-00001-of-00005.gguf", "GGUF_TOO_MANY_PARTS"), ("a.gguf", "GGUF_BAD_ALIGNMENT"),
                       ("c.gguf", "GGUF_METADATA_OUT_OF_RANGE")):
        response = client.post(reverse("api-submissions"), {"hub_id": "org/bounds-GGUF", "gguf_file": name},
                               content_type="application/json")
        assert response.status_code == 400 and response.json()["code"] == code, response.content
    assert snapshot() == before
