"""On-device variants (issue 24, section 3): a GGUF file's run against its base model's 16-bit run on the same
questions, template and answer order, in the API (JSON and CSV) and on both models' pages; why there is no number
when there is no such run; and nothing of the sealed split."""
import csv
import io
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from evaluator.quantization_truth import letter_kl
from evaluator.statistics import newcombe_paired, wilson_interval
from leaderboard.core.errors import SealedSplitError
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results import quantization_truth
from tests.results.quantized_runs import gguf_entry, letter_probs, letter_run, questions, right, wrong

pytestmark = pytest.mark.django_db
BASE = "org/tiny"
FILE = "org/tiny-GGUF/tiny-Q4_K_M.gguf"


def other_wrong(options, answer):
    return wrong(options, answer, skip=1)


def base_letters(n):
    return [right if i < 20 else wrong for i in range(n)]


def file_letters(n):
    """Against base_letters: 15 right in both, 5 right→wrong, 3 wrong→right, 3 wrong→another wrong letter."""
    return [right if i < 15 else wrong if i < 20 else right if i < 23 else other_wrong if i < 26 else wrong
            for i in range(n)]


@pytest.fixture
def world(demo_loaded):
    cache.clear()
    n = len(questions())
    base = letter_run(BASE, base_letters(n))
    submission = gguf_entry(FILE, base_model=BASE)
    file = letter_run(FILE, file_letters(n), precision="gguf", submission=submission)
    yield {"n": n, "base": base, "file": file}
    cache.clear()


def on_device(client, hub_id, **params):
    response = client.get(reverse("api-model-on-device", args=[hub_id]), params)
    assert response.status_code == 200, response.content[:500]
    return response


def test_the_file_is_compared_with_its_base_question_by_question(client, world):
    n = world["n"]
    body = on_device(client, FILE).json()
    assert body["role"] == "file" and "open validation split only" in body["note"]
    [row] = body["rows"]
    assert (row["compared"], row["base_hub_id"], row["base_run_id"], row["run_id"]) == (
        True, BASE, world["base"].pk, world["file"].pk)
    assert (row["quantization"], row["gguf_file"], row["split"], row["variant"]) == (
        "Q4_K_M", "tiny-Q4_K_M.gguf", "validation", "original")
    assert (row["n"], row["flips"], row["right_to_wrong"], row["wrong_to_right"]) == (n, 11, 5, 3)
    assert row["accuracy"] == round(100 * 18 / n, 2) and row["base_accuracy"] == round(100 * 20 / n, 2)
    assert row["accuracy_change"] == round(-200 / n, 2)
    low, high = newcombe_paired(15, 3, 5, n - 23)  # both right, file only, 16-bit only, neither
    assert (row["change_ci95_low"], row["change_ci95_high"]) == (round(100 * low, 2), round(100 * high, 2))
    assert row["change_ci95_low"] < row["accuracy_change"] < row["change_ci95_high"]
    assert (row["ci95_low"], row["ci95_high"]) == tuple(round(100 * v, 2) for v in wilson_interval(18, n))
    assert (row["flip_rate"], row["right_to_wrong_rate"], row["wrong_to_right_rate"]) == (
        round(1100 / n, 2), round(500 / n, 2), round(300 / n, 2))
    # KL(16-bit ‖ file): 0 where the letter stayed, that of two 70%-sure distributions where it moved.
    moved = [letter_kl(letter_probs(b(o, a), len(o)), letter_probs(f(o, a), len(o)))
             for b, f, (_, o, _, a) in zip(base_letters(n), file_letters(n), questions()) if b(o, a) != f(o, a)]
    assert len(moved) == 11 and row["kl_n"] == n and row["mean_kl"] == round(sum(moved) / n, 6) > 0


def test_the_base_models_page_and_api_list_its_files(client, world):
    body = on_device(client, BASE).json()
    assert body["role"] == "base" and [r["hub_id"] for r in body["rows"]] == [FILE]
    assert body["rows"][0]["flips"] == 11
    page = client.get(reverse("model-detail", args=[BASE])).content.decode()
    section = on_device_section(page)
    assert "On-device variants" in section and "tiny-Q4_K_M.gguf" in section and "Q4_K_M" in section
    assert "open validation split only" in section
    for anchor in ("paired-change", "flips", "kl"):  # each figure links to its explanation on /about/
        assert f'href="/about/#{anchor}"' in section, anchor
    file_page = on_device_section(client.get(reverse("model-detail", args=[FILE])).content.decode())
    assert f"?run={world['base'].pk}" in file_page  # links the 16-bit run it was compared with


def test_a_model_with_no_gguf_file_has_no_section(client, world):
    letter_run("org/lonely", base_letters(world["n"]))
    assert on_device(client, "org/lonely").json() == {"hub_id": "org/lonely", "role": "", "rows": [],
                                                      "note": quantization_truth.OPEN_SPLIT_NOTE, "flagged": False,
                                                      "possible_contamination": False, "flagged_via": ""}
    assert 'id="on-device"' not in client.get(reverse("model-detail", args=["org/lonely"])).content.decode()


def test_the_csv_has_a_row_per_file_run_with_its_figures(client, world):
    response = on_device(client, BASE, format="csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 1 and rows[0]["hub_id"] == FILE and rows[0]["right_to_wrong"] == "5"
    assert rows[0]["compared"] == "true" and float(rows[0]["mean_kl"]) > 0


def test_the_endpoint_is_in_the_openapi_schema(client):
    schema = client.get(reverse("api-schema"), {"format": "json"}).json()
    path = next(p for p in schema["paths"] if p.endswith("/on-device/"))
    assert "format" in {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
    assert "mean_kl" in schema["components"]["schemas"]["OnDeviceRow"]["properties"]


@pytest.mark.parametrize("base_model, base_runs, code, words", [
    (None, (), "base-unknown", "names no base model"),
    ("org/absent", (), "base-not-on-board", "No 16-bit run of org/absent on the board: org/absent is not on"),
    (BASE, ({"precision": "fp8"},), "no-16-bit-run", "No 16-bit run of org/tiny on the board for"),
    (BASE, ({"use_chat_template": True}, {"template_hash": "e" * 64}), "settings-differ", "differs in template hash"),
])
def test_without_a_16_bit_run_of_the_same_plan_it_says_why_instead_of_a_number(client, demo_loaded, base_model,
                                                                              base_runs, code, words):
    n = len(questions())
    for settings in base_runs:  # the latest last
        letter_run(BASE, base_letters(n), **settings)
    letter_run(FILE, file_letters(n), precision="gguf", submission=gguf_entry(FILE, base_model=base_model))
    [row] = on_device(client, FILE).json()["rows"]
    assert row["compared"] is False and row["reason_code"] == code and words in row["reason"], row["reason"]
    assert row["accuracy"] is None and row["flips"] is None and row["mean_kl"] is None
    section = on_device_section(client.get(reverse("model-detail", args=[FILE])).content.decode())
    assert words.replace("'", "&#x27;") in section and "Mean KL" in section


def on_device_section(page):
    match = re.search(r'<h2 id="on-device">.*?</table>', page, re.S)
    assert match, "no On-device variants section"
    return match.group(0)


def test_sealed_predictions_change_nothing_shown(client, world):
    """Flips and KL per question on the sealed split would tell which sealed questions a model gets right: sealed
    runs of both models are never compared, whatever their predictions."""
    n_test = len(questions("test"))
    submission = world["file"].submission

    def sealed(letters_base, letters_file):
        EvaluationRun.objects.filter(split="test").delete()
        letter_run(BASE, letters_base, split="test")
        letter_run(FILE, letters_file, split="test", precision="gguf", submission=submission)
        cache.clear()
        return (on_device(client, FILE).json(), on_device(client, BASE).json(),
                on_device_section(client.get(reverse("model-detail", args=[BASE])).content.decode()),
                b"".join(on_device(client, BASE, format="csv").streaming_content))

    first = sealed([right] * n_test, [right] * n_test)
    second = sealed([right] * n_test, [wrong] * n_test)  # every sealed letter flipped
    assert first == second
    assert {r["split"] for r in first[0]["rows"] + first[1]["rows"]} == {"validation"}
    with pytest.raises(SealedSplitError):
        test_result = EvaluationRun.objects.get(split="test", precision="gguf").result
        quantization_truth._pair(test_result, world["base"].result)


def test_the_seed_matters_only_to_a_seeded_answer_order(client, demo_loaded):
    """The original order is the same under any seed: a 16-bit run with another seed (and more answer orders) is
    still the file's base run."""
    n = len(questions())
    base = letter_run(BASE, base_letters(n), seed=99, variants=["original", "R1"])
    letter_run(FILE, file_letters(n), precision="gguf", submission=gguf_entry(FILE, base_model=BASE))
    [row] = on_device(client, FILE).json()["rows"]
    assert row["compared"] and row["base_run_id"] == base.pk and row["flips"] == 11


def test_the_base_is_found_in_any_spelling_and_a_hidden_file_is_not_listed(client, demo_loaded):
    from leaderboard.submissions.models import ModelEntry

    n = len(questions())
    base = letter_run(BASE, base_letters(n))
    letter_run(FILE, file_letters(n), precision="gguf", submission=gguf_entry(FILE, base_model="ORG/Tiny"))
    [row] = on_device(client, FILE).json()["rows"]
    assert row["compared"] and row["base_hub_id"] == BASE and row["base_run_id"] == base.pk
    assert [r["hub_id"] for r in on_device(client, BASE).json()["rows"]] == [FILE]
    ModelEntry.objects.filter(hub_id=FILE).update(hidden=True)
    cache.clear()
    assert on_device(client, BASE).json()["rows"] == []
    assert 'id="on-device"' not in client.get(reverse("model-detail", args=[BASE])).content.decode()
