"""Hub ids and revisions are checked before any network call, with a message that says how to fix them."""
import subprocess
import sys

import pytest

from leaderboard.hub.ids import HubIdError, ModelRef, model_ref, validate_hub_id, validate_revision


def refusal(value, validator=validate_hub_id) -> str:
    with pytest.raises(HubIdError) as info:
        validator(value)
    assert isinstance(info.value, ValueError)
    return str(info.value)


@pytest.mark.parametrize("value", [
    "meta-llama/Llama-3.1-8B", "Qwen/Qwen2.5-0.5B-Instruct", "invented-org/tiny_model.v2", "a/b", "_x/y_",
    "MBZUAI-LLM/Mobile-MMLU", "n" * 96 + "/" + "m" * 96,
])
def test_it_works(value):
    assert validate_hub_id(value) == value  # returned unchanged: no stripping, no case folding


@pytest.mark.parametrize("value, fragments", [
    ("org/model\n", ["a newline at position 10"]),
    (" org/model", ["a space at position 1"]),
    ("org/mo del", ["a space at position 7"]),
    ("org/model\t", ["a tab at position 10"]),
    ("org/\x00model", ["a control character (U+0000)", "position 5"]),
    ("org/\x1b[31mmodel", ["a control character (U+001B)"]),
    ("org/model\u200b", ["an invisible character (U+200B ZERO WIDTH SPACE)"]),
    ("org/model\u00a0", ["U+00A0 NO-BREAK SPACE"]),
])
def test_it_handles_whitespace_and_control_characters(value, fragments):
    message = refusal(value)
    for fragment in fragments + ["plain ASCII with no spaces or line breaks", "e.g. meta-llama/Llama-3.1-8B"]:
        assert fragment in message, message


@pytest.mark.parametrize("value, fragment", [
    ("m\u0435ta-llama/Llama-3", "U+0435 CYRILLIC SMALL LETTER IE"),  # looks exactly like 'e'
    ("meta-llama/Llama-3\u2011", "U+2011 NON-BREAKING HYPHEN"),
    ("\uff2frg/model", "U+FF2F FULLWIDTH LATIN CAPITAL LETTER O"),
    ("org/m\u03bfdel", "U+03BF GREEK SMALL LETTER OMICRON"),
    ("org/modèle", "U+00E8 LATIN SMALL LETTER E WITH GRAVE"),
])
def test_it_handles_look_alike_letters(value, fragment):
    message = refusal(value)
    assert "non-ASCII character" in message and fragment in message, message


@pytest.mark.parametrize("value, fragments", [
    ("", ["is empty", "namespace/name"]),
    ("Llama-3.1-8B", ["has no namespace", "namespace/name"]),
    ("org/model/tree/main", ["has 3 '/'", "exactly one", "leave out any branch"]),
    ("https://huggingface.co/meta-llama/Llama-3.1-8B/tree/main", ["is a URL", "enter 'meta-llama/Llama-3.1-8B'"]),
    ("hf.co/org/model", ["is a URL", "enter 'org/model'"]),
    ("https://huggingface.co/datasets/org/data", ["is a URL", "only the namespace/name part"]),
    ("git@github.com:org/model.git", ["contains ':', '@'", "ends with '.git'"]),
    ("org/model.git", ["ends with '.git'", "leave the suffix out"]),
    ("org/Model.GIT", ["ends with '.git'"]),
    ("org--x/model", ["namespace 'org--x' contains '--'"]),
    ("org/model..v2", ["name 'model..v2' contains '..'"]),
    ("-org/model", ["namespace '-org' starts with '-'"]),
    ("org./model", ["namespace 'org.' ends with '.'"]),
    ("org/.model", ["name '.model' starts with '.'"]),
    ("org/model-", ["name 'model-' ends with '-'"]),
    ("/model", ["the namespace is empty"]),
    ("org/", ["the name is empty"]),
    ("org/mod$el!", ["contains '!', '$'", "only letters A-Z a-z, digits, '-', '_' and '.'"]),
    ("org/" + "m" * 97, ["the name is 97 characters long; at most 96"]),
    ("o" * 97 + "/model", ["the namespace is 97 characters long; at most 96"]),
])
def test_it_handles_malformed_ids(value, fragments):
    message = refusal(value)
    for fragment in fragments:
        assert fragment in message, message


def test_it_handles_several_problems_at_once():
    message = refusal("-a--b/c..d.")
    for fragment in ("starts with '-'", "contains '--'", "contains '..'", "ends with '.'",
                     "Copy the id from the model's hub page"):
        assert fragment in message, message


def test_it_handles_values_that_are_not_text():
    assert "must be text, not NoneType" in refusal(None)
    assert "must be text, not bytes" in refusal(b"org/model")


# --- revisions ------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (None, "main"), ("", "main"), ("main", "main"), ("v1.0", "v1.0"), ("release/2024-06", "release/2024-06"),
    ("refs/tags/v1.0", "refs/tags/v1.0"), ("v1.0+cu118", "v1.0+cu118"), ("a" * 40, "a" * 40),
    ("0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567"),
])
def test_it_works_for_revisions(value, expected):
    assert validate_revision(value) == expected


@pytest.mark.parametrize("value, fragment", [
    ("main\n", "a newline at position 5"),
    ("ma in", "a space at position 3"),
    ("v1\x7f", "a control character (U+007F)"),
    ("v1\u2024", "non-ASCII character"),
    ("main..dev", "it contains '..'"),
    ("a//b", "it contains '//'"),
    ("HEAD~1", "it contains '~'"),
    ("main^{commit}", "it contains '^', '{', '}'"),
    ("-main", "it starts with '-'"),
    ("/main", "it starts with '/'"),
    ("main/", "it ends with '/'"),
    ("v1.", "it ends with '.'"),
    ("main.lock", "it ends with '.lock'"),
    ("x" * 256, "256 characters long; at most 255"),
])
def test_it_handles_malformed_revisions(value, fragment):
    with pytest.raises(HubIdError) as info:
        validate_revision(value)
    message = str(info.value)
    assert info.value.field == "revision"
    assert fragment in message and "a full 40-character commit sha" in message, message


@pytest.mark.parametrize("hub_id, revision, fragment", [
    ("tiny-llama", "main", "has no namespace"),
    ("invented-org/tiny-llama\n", "main", "a newline"),
    ("invented-org/tiny-\u0435lm", "main", "U+0435 CYRILLIC SMALL LETTER IE"),
    ("https://huggingface.co/invented-org/tiny-llama", "main", "is a URL"),
    ("invented-org/tiny..llama", "main", "contains '..'"),
    ("invented-org/tiny-llama", "main..x", "the revision 'main..x'"),
    ("invented-org/tiny-llama", "main ", "the revision 'main ' contains a space"),
])
def test_a_model_ref_is_only_made_of_a_valid_id_and_revision(hub_id, revision, fragment):
    with pytest.raises(HubIdError) as info:
        model_ref(hub_id, revision)
    assert fragment in str(info.value)
    assert info.value.field == ("revision" if "revision" in fragment else "hub_id")


def test_a_model_ref_keeps_what_passed():
    assert model_ref("invented-org/Tiny_v2", "v1.0") == ModelRef("invented-org/Tiny_v2", "v1.0")
    assert model_ref("invented-org/tiny", None) == model_ref("invented-org/tiny", "") == ModelRef("invented-org/tiny")


def test_it_imports_no_django_models():
    code = ("import sys\n"
            "import leaderboard.hub.ids, leaderboard.hub.checks, leaderboard.submissions.predictions_upload\n"
            "loaded = [m for m in sys.modules if m.startswith('django.db') or m.endswith('.models')]\n"
            "assert not loaded, loaded\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
