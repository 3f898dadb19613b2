"""The figures a phone user feels (issue 33, section 5), each derivation alone: time to first token (derived and
measured), the sustained drop, the KV cache from GGUF header facts, and the fit against an app's share of RAM."""
import pytest

from leaderboard.devices import phone_figures as pf
from tests.boards.ondevice_world import profile

# Gemma 3 270M's header (gemma-3-270m-q4_k_m.gguf, read with llama.cpp): 18 layers, 1 KV head, 256-wide keys and
# values, 4 heads of a 640 embedding
GEMMA3_270M_KV = {"block_count": 18, "embedding_length": 640, "head_count": 4, "head_count_kv": 1, "key_length": 256,
                  "value_length": 256, "sliding_window": 512}


def test_the_median_prompt_is_the_files_own_where_its_profile_measured_it():
    assert pf.median_prompt(profile(40.0, 300.0, 0.5, 1, 1)) == (431, pf.SOURCE_FILE)
    assert pf.median_prompt({}) == pf.median_prompt(None) == (424, pf.SOURCE_PUBLISHED)
    assert pf.median_prompt({"ttft": {"prompt_tokens": 0}}) == (424, pf.SOURCE_PUBLISHED)


def test_time_to_first_token_is_one_prefill_of_the_median_prompt():
    assert pf.ttft_derived(300.0, 450) == pytest.approx(1.5)
    assert pf.ttft_derived(None, 450) is None and pf.ttft_derived(0.0, 450) is None


def test_the_measured_time_needs_a_prompt_test_of_exactly_that_length():
    rates = pf.prompt_rates([(512, 0, 300.0), (431, 0, 250.0), (431, 0, 287.4), (0, 128, 20.0), (431, 16, 100.0)])
    assert rates == {"512": 300.0, "431": 287.4}  # what intake stores on the report
    assert pf.ttft_measured(rates, 431) == pytest.approx(431 / 287.4)  # the fastest (a thread sweep's best)
    assert pf.ttft_measured(rates, 424) is None  # pp512 is not the median prompt: only derived
    assert pf.ttft_measured(pf.prompt_rates([(0, 431, 10.0), (431, 16, 100.0)]), 431) is None  # no prefill


def test_the_sustained_drop_needs_five_repetitions():
    ten = [25.0, 24.8, 24.0, 23.1, 22.0, 21.5, 20.9, 20.2, 19.6, 19.0]
    assert pf.sustained(ten) == {"first": 25.0, "last": 19.0, "drop": pytest.approx(0.24), "repetitions": 10}
    assert pf.sustained(ten[:5])["drop"] == pytest.approx(0.12)
    assert pf.sustained(ten[:4]) is None and pf.sustained([]) is None and pf.sustained(None) is None
    assert pf.sustained([10.0, 11.0, 12.0, 12.0, 12.5])["drop"] == pytest.approx(-0.25)  # faster at the end


def test_one_vote_per_account_for_the_drop():
    assert pf.median_drop({1: [0.1, 0.1, 0.1, 0.5], 2: [0.3]}) == pytest.approx(0.2)  # account 1: 0.1
    assert pf.median_drop({}) is None


def test_the_kv_cache_from_the_header_facts():
    per_token = 18 * 1 * (256 + 256) * 2
    assert pf.kv_cache_bytes(GEMMA3_270M_KV, 2048) == per_token * 2048 == 37_748_736
    # without key/value lengths each head is embedding_length / head_count wide; without KV heads, every head
    llama = {"block_count": 2, "embedding_length": 64, "head_count": 4}
    assert pf.kv_cache_bytes(llama, 100) == 2 * 4 * (16 + 16) * 2 * 100
    assert pf.kv_cache_bytes({**llama, "head_count_kv": 2}, 100) == 2 * 2 * (16 + 16) * 2 * 100
    assert pf.kv_cache_bytes({}, 2048) is None and pf.kv_cache_bytes({"block_count": 18}, 2048) is None


def test_the_profiles_context():
    assert pf.profile_context(profile(40.0, 300.0, 0.5, 1, 1)) == 2048  # pp512, tg128: llama.cpp opened at 2048
    assert pf.profile_context({"pp": {"tokens": 4096}, "tg": {"tokens": 128}}) == 4097
    assert pf.profile_context({"n_ctx": 8192}) == 8192 and pf.profile_context(None) == 2048


def test_the_fit_against_an_apps_share_of_ram():
    gib = 2**30
    assert pf.APP_RAM_SHARE == 0.5
    fits = pf.fit(253_113_024, 37_748_736, 4)
    assert fits["verdict"] == pf.FITS and fits["need_bytes"] == 290_861_760 and fits["budget_bytes"] == 2 * gib
    assert pf.fit(3 * gib, 0, 4)["verdict"] == pf.TIGHT  # within the RAM, over the half an app gets
    assert pf.fit(3 * gib, gib + 1, 4)["verdict"] == pf.TOO_BIG
    assert pf.fit(2 * gib, 0, 4)["verdict"] == pf.FITS  # exactly the share
    unknown = pf.fit(gib, None, 8)
    assert unknown["verdict"] == pf.FITS and not unknown["kv_known"] and unknown["need_bytes"] == gib
    assert pf.fit(None, 1, 8)["verdict"] == pf.fit(gib, 1, None)["verdict"] == pf.UNKNOWN


def test_gguf_intake_keeps_the_kv_facts_of_the_header():
    """hub/gguf_checks.kv_facts: the whole-number attention facts a KV cache needs, as GGUF intake stores them."""
    import gguf

    from leaderboard.hub.gguf_checks import kv_facts
    from leaderboard.hub.gguf_header import parse_header
    from tests.support.tiny_gguf import tiny_gguf

    u32 = gguf.GGUFValueType.UINT32
    data = tiny_gguf(arch="gemma3", extra={f"gemma3.{key}": (value, u32) for key, value in (
        ("block_count", 18), ("embedding_length", 640), ("attention.head_count", 4), ("attention.head_count_kv", 1),
        ("attention.key_length", 256), ("attention.value_length", 256), ("attention.sliding_window", 512))})
    facts = kv_facts(parse_header(data, file_size=len(data)), "gemma3")
    assert facts == GEMMA3_270M_KV and pf.kv_cache_bytes(facts, 2048) == 37_748_736
    bare = tiny_gguf(arch="llama")
    assert kv_facts(parse_header(bare, file_size=len(bare)), "llama") == {}
