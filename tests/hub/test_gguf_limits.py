"""What a GGUF header may cost and claim (issue 31, findings 5, 7 and 8): one pass over the bytes as they arrive,
arrays of numbers skipped by their length, each cap refused with its code, shapes past 2^63 refused, header text made
storable, and the quantization read from the weights' types with llama.cpp's own rules."""
import hashlib
import itertools
import time

import gguf
import pytest

from leaderboard.hub import gguf_checks
from leaderboard.hub.errors import CODES, SubmissionRefused
from leaderboard.hub.gguf_checks import TEXT_MAX, check_gguf
from leaderboard.hub.gguf_header import HeaderLimits, HeaderOverLimit, TensorInfo, parse_header
from leaderboard.hub.gguf_quant import QuantMismatch, quantization
from leaderboard.hub.ids import ModelRef
from tests.support.fake_hub import readme
from tests.support.raw_gguf import gguf_file, kv_bytes, kv_str, model_keys, tensor_info
from tests.support.tiny_gguf import tiny_gguf

GB = 1 << 30
_REPOS = itertools.count()
T = gguf.GGMLQuantizationType
Q4_K_M = gguf.LlamaFileType.MOSTLY_Q4_K_M


def _check(fake_hub, data: bytes, **kwargs):
    repo = f"org/raw-{next(_REPOS)}"
    fake_hub.add_repo(repo, repo_type="model", files={"README.md": readme({"license": "mit"}), "m.gguf": data})
    return check_gguf(ModelRef(repo), "m.gguf", max_bytes=GB, **kwargs)


def _refused(fake_hub, data: bytes, code: str, *words, **kwargs) -> SubmissionRefused:
    with pytest.raises(SubmissionRefused) as caught:
        _check(fake_hub, data, **kwargs)
    error = caught.value
    assert error.code == code and code in CODES, f"{error.code}: {error.message}"
    for word in words:
        assert word in error.message, error.message
    assert error.hint
    return error


# --- finding 5: bounded CPU ----------------------------------------------------------------------------------

def test_an_array_of_four_million_numbers_is_skipped_not_walked():
    """The issue's example: one array of 4,000,000 uint8 took 6.1 s of CPU (1.5 µs an item)."""
    data = gguf_file([*model_keys(), kv_bytes("junk.bytes", 4_000_000)])
    started = time.process_time()
    header = parse_header(data, file_size=len(data))
    spent = time.process_time() - started
    junk = header.metadata["junk.bytes"]
    assert (junk.item_type, junk.count, junk.head) == ("UINT8", 4_000_000, tuple(range(8)))
    assert spent < 0.5, f"{spent:.2f} s"


def test_intake_parses_the_header_once_while_it_reads_growing_ranges(fake_hub, monkeypatch):
    """The class: intake used to parse from byte 0 again after each range (1, 2, 4 ... MiB); now the parser asks
    for the bytes it lacks and goes on, so each byte is read from the hub once and parsed once."""
    monkeypatch.setattr(gguf_checks, "FIRST_READ", 4096)
    calls = []
    real = gguf_checks.parse_header
    monkeypatch.setattr(gguf_checks, "parse_header", lambda *a, **k: calls.append(1) or real(*a, **k))
    data = gguf_file([*model_keys(), kv_bytes("junk.bytes", 3_000_000)],
                     [("blk.0.ffn_up.weight", (32, 4), T.F32)])
    started = time.process_time()
    facts = _check(fake_hub, data)
    spent = time.process_time() - started
    assert facts.params == 128 and facts.quantization == "F32" and len(calls) == 1
    ranges = [tuple(map(int, r.headers["range"].removeprefix("bytes=").split("-")))
              for r in fake_hub.requests if r.path.endswith("/m.gguf")]
    assert ranges[0][0] == 0 and all(b[0] == a[1] + 1 for a, b in zip(ranges, ranges[1:]))  # no byte twice
    assert len(ranges) <= 12 and spent < 2  # doubling ranges; the old intake walked the array after each one


# --- each cap has its code -----------------------------------------------------------------------------------

@pytest.mark.parametrize("limits, code, words", [
    (HeaderLimits(max_bytes=64 << 10), "GGUF_HEADER_TOO_LARGE", ["past 65,536 bytes"]),
    (HeaderLimits(max_keys=3), "GGUF_TOO_MANY_KEYS", ["6 metadata keys", "3 allowed"]),
    (HeaderLimits(max_tensors=2), "GGUF_TOO_MANY_TENSORS", ["3 tensors", "2 allowed"]),
    (HeaderLimits(max_array_strings=19_999), "GGUF_ARRAY_TOO_LONG", ["tokenizer.ggml.tokens", "20,000 strings"]),
    (HeaderLimits(max_seconds=0), "GGUF_HEADER_TOO_SLOW", ["over 0 s"]),
])
def test_each_cap_refuses_with_its_own_code(fake_hub, limits, code, words):
    data = tiny_gguf(tokens=20_000, tensors={"a": (4, 32), "b": (4, 32), "c": (32,)})  # a header of about 200 KB
    assert _check(fake_hub, data).vocab_size == 20_000  # within the default limits
    _refused(fake_hub, data, code, *words, limits=limits)


def test_a_header_past_its_cap_is_refused_before_it_is_downloaded(fake_hub):
    data = gguf_file([*model_keys(), kv_bytes("junk.bytes", 70 << 20)])  # an array longer than 64 MiB
    _refused(fake_hub, data, "GGUF_HEADER_TOO_LARGE", "past 64 MiB")
    ranges = [r.headers["range"] for r in fake_hub.requests if r.path.endswith("/m.gguf")]
    assert ranges == ["bytes=0-1048575"]  # the array's length is known from its first bytes


def test_a_corrupt_count_is_not_followed_and_keys_and_tensors_are_counted_before_reading():
    many_keys = gguf_file(model_keys(), kv_count=5000)
    with pytest.raises(HeaderOverLimit) as caught:
        parse_header(many_keys + bytes(60_000), file_size=len(many_keys) + 60_000)
    assert caught.value.code == "GGUF_TOO_MANY_KEYS"
    many_tensors = gguf_file(model_keys(), tensor_count=20_000)
    with pytest.raises(HeaderOverLimit) as caught:
        parse_header(many_tensors + bytes(500_000), file_size=len(many_tensors) + 500_000)
    assert caught.value.code == "GGUF_TOO_MANY_TENSORS"


# --- finding 7: what intake stores fits its column -------------------------------------------------------------

@pytest.mark.parametrize("shape, kind", [
    ((1 << 32, 1 << 32), 99),  # the way past bigint: a type whose size the old reader could not check
    ((1 << 62, 2), T.F32),
    ((0, 1 << 63), T.F32),  # no elements, but a dimension llama.cpp reads as negative
])
def test_a_shape_past_two_to_the_63_is_refused_with_its_code(fake_hub, shape, kind):
    data = gguf_file(model_keys(), [("blk.0.attn_q.weight", shape, kind)], data=False)
    _refused(fake_hub, data, "GGUF_PARAMS_OUT_OF_RANGE", "2^63")


def test_tensors_must_lie_where_llama_cpp_puts_them(fake_hub):
    """Tensors laid over each other (every offset 0) or of an unknown type could claim any number of parameters."""
    good = gguf_file(model_keys(), [("a.weight", (32, 4), T.F32), ("b.weight", (32, 4), T.F32)])
    assert _check(fake_hub, good).params == 256
    info = tensor_info("b.weight", (32, 4), T.F32, 512)
    overlaid = good.replace(info, tensor_info("b.weight", (32, 4), T.F32, 0))
    _refused(fake_hub, overlaid, "NOT_GGUF", "'b.weight'", "offset 0", "expects 512")
    unknown = gguf_file(model_keys(), [("a.weight", (32, 4), 99)])
    _refused(fake_hub, unknown, "NOT_GGUF", "type 99")
    ragged = gguf_file(model_keys(), [("a.weight", (33, 4), T.Q8_0)], data=False)
    _refused(fake_hub, ragged, "NOT_GGUF", "rows of 33 values")


def test_header_text_is_storable(fake_hub):
    data = gguf_file(model_keys(name=b"Tiny\x00Model", license="x" * 5000) + [kv_str("general.size_label", "\x00")],
                     [("a.weight", (32, 4), T.F32)])
    facts = _check(fake_hub, data)
    assert facts.name == "Tiny\ufffdModel" and facts.size_label == "\ufffd"
    assert facts.license == "mit"  # the card's licence comes first
    fake_hub.add_repo("org/nocard", repo_type="model", files={"README.md": readme({}), "m.gguf": data})
    facts = check_gguf(ModelRef("org/nocard"), "m.gguf", max_bytes=GB)
    assert len(facts.license) == TEXT_MAX and facts.license.endswith("…")


# --- finding 8: the quantization is the tensors' -----------------------------------------------------------------

def _layer_names(layers: int) -> list[str]:
    return [f"blk.{i}.{role}.weight" for i in range(layers)
            for role in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")]


def _tensors(types: dict, shapes: dict) -> list[TensorInfo]:
    return [TensorInfo(name, shapes[name], int(kind), 0) for name, kind in types.items()]


def _more_bits(i: int, n: int) -> bool:  # llama-quant.cpp's use_more_bits, in C's integer division
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _q4_k_m(*, hidden: int, ffn: int, layers: int, vocab: int, tied: bool, head: int, kv_heads: int,
            heads: int, norms: tuple = ("attn_norm", "ffn_norm")) -> list[TensorInfo]:
    """The tensor types llama-quantize (llama-quant.cpp, llama-cpp-python 0.3.36) writes for Q4_K_M: Q4_K, Q6_K for
    attn_v and ffn_down of the layers use_more_bits picks and for the output (or tied embeddings), each falling back
    when the row is not a multiple of 256 values (Q4_K -> Q5_0, Q6_K -> Q8_0); norms stay F32."""
    def fit(kind, row):
        return kind if row % 256 == 0 else {T.Q4_K: T.Q5_0, T.Q6_K: T.Q8_0}[kind]

    rows = {"attn_q": hidden, "attn_k": hidden, "attn_v": hidden, "attn_output": head * heads, "ffn_gate": hidden,
            "ffn_up": hidden, "ffn_down": ffn}
    out = {"attn_q": head * heads, "attn_k": head * kv_heads, "attn_v": head * kv_heads, "attn_output": hidden,
           "ffn_gate": ffn, "ffn_up": ffn, "ffn_down": hidden}
    tensors = [TensorInfo("token_embd.weight", (hidden, vocab), fit(T.Q6_K if tied else T.Q4_K, hidden), 0)]
    if not tied:
        tensors.append(TensorInfo("output.weight", (hidden, vocab), fit(T.Q6_K, hidden), 0))
    tensors.append(TensorInfo("output_norm.weight", (hidden,), T.F32, 0))
    for i in range(layers):
        for role, row in rows.items():
            more = role in ("attn_v", "ffn_down") and _more_bits(i, layers)
            tensors.append(TensorInfo(f"blk.{i}.{role}.weight", (row, out[role]), fit(T.Q6_K if more else T.Q4_K, row),
                                      0))
        tensors += [TensorInfo(f"blk.{i}.{norm}.weight", (hidden,), T.F32, 0) for norm in norms]
    return tensors


GEMMA_NORMS = ("attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm", "attn_q_norm", "attn_k_norm")


@pytest.mark.parametrize("name, tensors", [
    # the project's toys (evaluator/spm_models.py: hidden 256, so the K-quants apply; Gemma's embeddings tied)
    ("llama toy", _q4_k_m(hidden=256, ffn=512, layers=2, vocab=1000, tied=False, head=64, heads=4, kv_heads=2)),
    ("gemma toy", _q4_k_m(hidden=256, ffn=512, layers=2, vocab=1000, tied=True, head=64, heads=4, kv_heads=2,
                          norms=GEMMA_NORMS)),
    # rows narrower than 256 values: llama.cpp's "Q4_K_M" is Q5_0 and Q8_0, and it writes file_type 15 all the same
    ("narrow toy", _q4_k_m(hidden=64, ffn=128, layers=2, vocab=300, tied=False, head=16, heads=4, kv_heads=2)),
    # Gemma 3 270M: hidden 640 (Q5_0 and Q8_0), attention out 1,024 and ffn_down 2,048 wide (Q4_K, Q6_K), 6 norms
    ("gemma 3 270m", _q4_k_m(hidden=640, ffn=2048, layers=18, vocab=262_144, tied=True, head=256, heads=4,
                             kv_heads=1, norms=GEMMA_NORMS)),
])
def test_what_llama_quantize_writes_for_q4_k_m_agrees_with_its_claim(name, tensors):
    assert quantization(tensors, Q4_K_M) == "Q4_K_M"
    # unclaimed, the type that holds the most weight bytes (Gemma 3 270M's: its Q8_0 embeddings, 167M of 268M values)
    assert quantization(tensors, None) == ("Q8_0" if name == "gemma 3 270m" else "Q4_K_M" if name != "narrow toy"
                                           else "Q5_0")


def test_a_claim_its_tensors_contradict_is_refused_naming_both(fake_hub):
    """The issue's example: general.file_type=15 with only F32 tensors was listed as Q4_K_M."""
    names = _layer_names(2)
    data = gguf_file(model_keys(file_type=Q4_K_M), [(n, (256, 8), T.F32) for n in names])
    error = _refused(fake_hub, data, "GGUF_QUANT_MISMATCH", "says it is Q4_K_M", "its tensors are F32",
                     "14 of its 14 weight tensors")
    assert "llama-quantize" in error.hint


@pytest.mark.parametrize("kind, claim", [
    (T.Q8_0, Q4_K_M),  # a Q8_0 file whose rows would have held Q4_K blocks
    (T.F16, gguf.LlamaFileType.MOSTLY_Q8_0),  # F16 rows of 256 values: Q8_0 would have divided them
    (T.Q4_0, gguf.LlamaFileType.MOSTLY_Q6_K),
    (T.Q4_K, gguf.LlamaFileType.ALL_F32),
])
def test_every_claim_is_checked_against_the_weights(kind, claim):
    shapes = dict.fromkeys(_layer_names(2), (256, 256))
    tensors = _tensors(dict.fromkeys(shapes, kind), shapes)
    with pytest.raises(QuantMismatch) as caught:
        quantization(tensors, claim)
    assert caught.value.claimed == claim.name.removeprefix("MOSTLY_").removeprefix("ALL_")
    with pytest.raises(QuantMismatch):
        quantization(tensors, 999)  # no file type llama.cpp writes


def test_a_few_overridden_tensors_and_the_kept_ones_do_not_change_the_name():
    shapes = {**dict.fromkeys(_layer_names(4), (256, 256)), "token_embd.weight": (256, 1000),
              "output.weight": (256, 1000), **{f"blk.{i}.ffn_gate_inp.weight": (256, 8) for i in range(4)},
              **{f"blk.{i}.attn_norm.weight": (256,) for i in range(4)}}
    types = {n: T.F32 if ("norm" in n or "gate_inp" in n) else T.Q4_K for n in shapes}
    types |= {"token_embd.weight": T.Q8_0, "output.weight": T.Q8_0}  # --token-embedding-type, --output-tensor-type
    assert quantization(_tensors(types, shapes), Q4_K_M) == "Q4_K_M"
    assert quantization(_tensors(types, shapes), gguf.LlamaFileType.MOSTLY_Q4_K_S) == "Q4_K_S"  # the same mix


def test_without_a_claim_the_name_is_llama_cpps_guess(fake_hub):
    data = tiny_gguf(file_type=None, tensors={"blk.0.ffn_up.weight": (4, 32), "blk.0.ffn_norm.weight": (32,),
                                              "blk.0.attn_norm.weight": (32,)}, types={"blk.0.ffn_up.weight": "Q8_0"})
    facts = _check(fake_hub, data)
    assert facts.quantization == "Q8_0" and facts.sha256 == hashlib.sha256(data).hexdigest()  # not the norms' F32


@pytest.mark.llamacpp
@pytest.mark.parametrize("family", ["llama", "gemma"])
def test_files_llama_cpp_made_pass_as_what_was_asked(gguf_files, family):
    """Real files: converted to F32 by convert_hf_to_gguf.py and quantized by llama-quantize (tests/support/
    gguf_fixtures.py), each read as intake reads it and named as it was made."""
    for quant in ("f32", "q8_0", "q4_0", "q4_k_m"):
        data = gguf_files[family, quant].read_bytes()
        header = parse_header(data, file_size=len(data))
        assert quantization(header.tensors, header.metadata.get("general.file_type")) == quant.upper(), quant
