"""The GGUF header reader (hub/gguf_header.py) on files written by the gguf package's own GGUFWriter, and the hub
check of a GGUF file (hub/gguf_checks.py) on the fake hub: facts read from a prefix of the file by byte ranges."""
import pytest

from leaderboard.hub import gguf_checks
from leaderboard.hub.errors import SubmissionRefused
from leaderboard.hub.gguf_checks import check_gguf
from leaderboard.hub.gguf_header import ArrayValue, HeaderUnreadable, MoreBytesNeeded, parse_header
from leaderboard.hub.ids import HubIdError, ModelRef, validate_gguf_path
from tests.support.fake_hub import readme
from tests.support.tiny_gguf import tiny_gguf

GB = 1 << 30


def test_it_reads_what_the_writer_wrote():
    data = tiny_gguf(tokens=3000, context_length=4096, tensors={"a": (16, 8), "b": (8,)})
    header = parse_header(data, file_size=len(data))
    assert header.version == 3 and header.metadata["general.architecture"] == "llama"
    assert header.metadata["llama.context_length"] == 4096 and header.metadata["general.file_type"] == 7
    tokens = header.metadata["tokenizer.ggml.tokens"]
    assert isinstance(tokens, ArrayValue) and tokens.count == 3000 and tokens.head[:2] == ("tok0", "tok1")
    assert [(t.name, t.elements) for t in header.tensors] == [("a", 128), ("b", 8)]
    assert header.data_end() == len(data)  # the tensor data ends where the file does


@pytest.mark.slow
def test_a_prefix_asks_for_more_bytes_and_then_reads_the_same():
    data = tiny_gguf(tokens=3000)
    whole = parse_header(data, file_size=len(data))
    prefix = data[:64]
    while True:
        try:
            header = parse_header(prefix, file_size=len(data))
            break
        except MoreBytesNeeded as more:
            assert more.at_least > len(prefix)
            prefix = data[:more.at_least]
    assert header == whole and len(prefix) < len(data)  # stopped at the header's end, before the tensor data


@pytest.mark.parametrize("data, truncated, words", [
    (b"PK\x03\x04" + bytes(60), False, "does not start with the GGUF magic"),
    (b"GGUF" + (1).to_bytes(4, "little") + bytes(56), False, "GGUF version 1"),
    (b"GGUF" + (3 << 24).to_bytes(4, "little") + bytes(56), False, "big-endian"),
])
def test_it_refuses_what_is_not_a_gguf_file(data, truncated, words):
    with pytest.raises(HeaderUnreadable) as caught:
        parse_header(data, file_size=len(data))
    assert words in caught.value.detail and caught.value.truncated is truncated


def test_a_file_that_ends_inside_its_header_is_truncated_and_a_corrupt_count_is_not_followed():
    data = tiny_gguf(tokens=3000)
    with pytest.raises(HeaderUnreadable) as caught:
        parse_header(data[:30000], file_size=30000)
    assert caught.value.truncated and "ends inside its header" in caught.value.detail
    corrupt = bytearray(data)
    corrupt[16:24] = (10**12).to_bytes(8, "little")  # the metadata count
    with pytest.raises(HeaderUnreadable) as caught:
        parse_header(bytes(corrupt), file_size=len(corrupt))
    assert "metadata pairs" in caught.value.detail


def test_gguf_paths_are_checked_before_any_request():
    assert validate_gguf_path("q4/model-Q4_K_M.gguf") == "q4/model-Q4_K_M.gguf"
    for bad, words in (("model.bin", "does not end with .gguf"), ("../x.gguf", "not a relative path"),
                       ("a b.gguf", "a space"), ("/x.gguf", "not a relative path")):
        with pytest.raises(HubIdError) as caught:
            validate_gguf_path(bad)
        assert words in str(caught.value) and caught.value.field == "gguf_file"


def _repo(fake_hub, files, **card):
    card = {"license": "apache-2.0", **card}
    return fake_hub.add_repo("org/tiny-GGUF", repo_type="model", files={"README.md": readme(card), **files})


def test_check_gguf_reads_the_facts_by_ranges(fake_hub, monkeypatch):
    monkeypatch.setattr(gguf_checks, "FIRST_READ", 256)  # so the header takes several ranged reads
    data = tiny_gguf(tokens=2000, tensors={"w": (256, 256)}, base_model={
        "name": "Tiny", "organization": "Org", "repo_url": "https://huggingface.co/org/tiny"})
    repo = _repo(fake_hub, {"tiny-Q8_0.gguf": data})
    facts = check_gguf(ModelRef("org/tiny-GGUF"), "tiny-Q8_0.gguf", max_bytes=GB)
    assert (facts.revision_sha, facts.architecture, facts.quantization, facts.context_length) == (
        repo.sha, "llama", "Q8_0", 2048)
    assert (facts.base_model, facts.base_model_source, facts.tokenizer, facts.vocab_size) == (
        "org/tiny", "gguf metadata", "llama", 2000)
    assert facts.params == 256 * 256 and facts.size == len(data) and facts.license == "apache-2.0"
    import hashlib
    assert facts.sha256 == hashlib.sha256(data).hexdigest()
    ranges = [r.headers.get("range") for r in fake_hub.requests if r.path.endswith("/tiny-Q8_0.gguf")]
    assert len(ranges) >= 2 and all(ranges)  # several ranged GETs, never the whole file
    last = max(int(r.split("-")[1]) for r in ranges)
    assert last < 64 * 1024 < len(data)  # the header (about 30 KB), not the 256 KB of weights


def test_the_card_names_the_base_model_when_the_file_does_not(fake_hub):
    _repo(fake_hub, {"m.gguf": tiny_gguf(file_type=None)}, base_model=["org/base"])
    facts = check_gguf(ModelRef("org/tiny-GGUF"), "m.gguf", max_bytes=GB)
    assert (facts.base_model, facts.base_model_source) == ("org/base", "model card")
    assert facts.quantization == "F32"  # no general.file_type: the type that holds the most weights


def test_a_split_file_reads_every_part(fake_hub):
    parts = {f"m-{i + 1:05d}-of-00002.gguf": tiny_gguf(split=(i, 2), metadata=i == 0, tensors={f"t{i}": (4, 4)})
             for i in range(2)}
    _repo(fake_hub, parts)
    facts = check_gguf(ModelRef("org/tiny-GGUF"), "m-00001-of-00002.gguf", max_bytes=GB)
    assert [p.file for p in facts.parts] == sorted(parts) and facts.params == 32
    assert facts.size == sum(len(d) for d in parts.values())
    with pytest.raises(SubmissionRefused) as caught:
        check_gguf(ModelRef("org/tiny-GGUF"), "m-00002-of-00002.gguf", max_bytes=GB)
    assert caught.value.code == "GGUF_SPLIT_INCOMPLETE" and "m-00001-of-00002.gguf" in caught.value.hint


def test_a_file_kept_in_git_not_lfs_is_hashed_whole(fake_hub):
    import hashlib

    data = tiny_gguf()
    fake_hub.add_repo("org/small", repo_type="model", lfs=(), files={"README.md": readme({"license": "mit"}),
                                                                     "m.gguf": data})
    facts = check_gguf(ModelRef("org/small"), "m.gguf", max_bytes=GB)
    assert facts.sha256 == hashlib.sha256(data).hexdigest()
