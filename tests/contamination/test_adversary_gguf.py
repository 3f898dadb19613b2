"""The adversary suite's method (tests/contamination/test_adversary.py) on what issue 24 added: GGUF files as models
(a file's sealed run beside its 16-bit base's, the on-device variants comparing them, the file's cost profile) and
runs of a publisher's own protocol (MMLU-Pro's chain of thought: generated text).

The world: the victim's 16-bit model measured on both splits; a GGUF file made from it (another account's
submission; its header names the victim's model as its base), run by llama.cpp on both splits, with its cost
profile; the Q8_0 file this server made from the victim's model (open split only); an operator's runs of the victim's model under the `mmlu-pro-cot` protocol on both splits, whose generated
text names each question it answers. The crawl fetches every view of both models and the boards and follows the links
the pages give (so a view added later, such as an on-device board, is reached through its link), as an anonymous
visitor, a signed-in account and view-only staff.

(a) No sealed question text, option or id, and no sealed run's generated text, is in anything fetched; the open
    protocol run's generated text is (its question browser), so the search can find it.
(b) Each sealed figure (the file's, its base's, the protocol run's) is hidden inside its published bin whatever the
    others are: the file's figure combined with its base's says no more than the two published figures, and the
    on-device comparison pairs the open split only.
(c) The sealed protocol run's generated text, and which of its answers could not be read, change nothing anyone
    sees; the open protocol run's do.
"""
import re
from urllib.parse import unquote

import pytest
from django.urls import reverse

from evaluator.protocols import get_protocol
from leaderboard.benchmarks.models import Question
from leaderboard.submissions.models import ModelEntry
from leaderboard.submissions.ondevice_variants import variant_entry_for
from tests.contamination.adversary import (BENCH, C0, VICTIM, Worlds, _q, assert_bin_hidden,
                                           assert_indistinguishable, board_urls, crawl, fetch, ladder_reason, model_urls,
                                           page_urls)
from tests.frontend.test_cost_profile_page import PROFILE
from tests.results.quantized_runs import gguf_entry
from tests.support.sealed import sealed_strings

pytestmark = pytest.mark.django_db

FILE = "victim-org/model-GGUF/model-Q4_K_M.gguf"
MADE = f"{VICTIM}@Q8_0"  # the on-device variant this server makes from the victim's model
MODELS = (VICTIM, FILE, MADE)
# The sealed counts of the world when another one is the secret: the base 380 (79.17 %, published 80), the file 300
# (62.5 %, published 62), the protocol run 250 (52.08 %, published 52); validation 360, 340 and 300.
FIXED = {"base": 380, "file": 300, "protocol": 250}
PROTOCOL = get_protocol("mmlu-pro-cot")
PROTOCOL_RUN = {"protocol": PROTOCOL.name, "template": PROTOCOL.name, "template_hash": PROTOCOL.hash,
                "shots": PROTOCOL.shots, "mode": "generate"}
WITHHELD = (40, 150, 260)  # a later file's sealed counts the Ladder rule withholds
# How a protocol run's generations read: the text around the letter, and how many wrong answers had no letter at all.
STYLES = {"plain": ("Let me think. The answer is ({letter})", 0),
          "rambling": ("First, recall what the question asks; then weigh each option. The answer is ({letter})", 0),
          "unread": ("Let me think. The answer is ({letter})", 60)}


def generated(split, style, wrong_uids):
    """extra(uid, letter) for a protocol run's rows: each generation names its split and question, so a search finds
    it; `style`'s count of wrong answers were never read from the text (no letter: still wrong, counted unread)."""
    text, unread = STYLES[style]
    unread_uids = set(sorted(wrong_uids)[:unread])
    tag = "GENERATEDSEALED" if split == "test" else "GENERATEDOPEN"

    def extra(uid, letter):
        if uid in unread_uids:
            return {"output": f"{tag}-{uid}: I cannot tell.", "parsed": False, "predicted": None,
                    "predicted_original": None}
        return {"output": f"{tag}-{uid}: {text.format(letter=letter)}", "parsed": True}
    return extra


@pytest.fixture
def gguf_world(people, submit, score, spread):
    """build(base=, file=, protocol=, sealed_style=, open_style=, later=): the world of the module's docstring, with
    these sealed counts (FIXED for those not given) and protocol-run styles; `later`: the sealed count of a later
    commit of the GGUF file too."""

    def wrong(split, count):
        return [uid for uid, rank in spread[split].items() if rank >= count]

    def build(*, sealed_style="plain", open_style="plain", later=None, **counts):
        counts = FIXED | counts
        _, base = submit(people["victim"], VICTIM, {"validation": 360, "test": counts["base"]})
        submission = gguf_entry(FILE, base_model=VICTIM)
        gguf = {"submission": submission, "precision": "gguf", "backend": "llamacpp"}
        file_val = score(FILE, "validation", 340, efficiency={"ondevice": PROFILE}, **gguf)
        file_test = score(FILE, "test", counts["file"], **gguf,
                          efficiency={"ondevice": {**PROFILE, "measured_for_run": file_val.pk}})
        variant_entry_for(base=ModelEntry.objects.get(hub_id=VICTIM), quant="q8_0")
        made = score(MADE, "validation", 350, submission=base["validation"].submission, precision="gguf",
                     backend="llamacpp", gguf_recipe={"quant": "q8_0", "source": VICTIM},
                     efficiency={"ondevice": PROFILE})
        proto_val = score(VICTIM, "validation", 300, **PROTOCOL_RUN,
                          extra=generated("validation", open_style, wrong("validation", 300)))
        proto_test = score(VICTIM, "test", counts["protocol"], **PROTOCOL_RUN,
                           extra=generated("test", sealed_style, wrong("test", counts["protocol"])))
        assert [ladder_reason(run.pk) for run in (base["test"], file_test)] == ["first", "first"]
        context = {"runs": {VICTIM: [base["validation"].pk, base["test"].pk, proto_val.pk, proto_test.pk],
                            FILE: [file_val.pk, file_test.pk], MADE: [made.pk]},
                   # the question browser's runs (a 16-bit model's: it takes no GGUF file's hub id), by split
                   "questions": [(base["validation"].pk, "validation"), (proto_val.pk, "validation"),
                                 (base["test"].pk, "test"), (proto_test.pk, "test")],
                   "submissions": [base["test"].submission_id, submission.pk]}
        if later is not None:  # a later file at that path (another commit) with a perfect validation run
            again = gguf_entry(FILE, base_model=VICTIM)
            runs = [score(FILE, split, count, revision="b" * 40, **{**gguf, "submission": again})
                    for split, count in (("validation", 480), ("test", later))]
            assert ladder_reason(runs[1].pk) == ("gain" if later > counts["file"] else "no-gain")
            context["runs"][FILE] += [run.pk for run in runs]
            context["submissions"].append(again.pk)
        return context

    return build


def follow(url, hops):
    """The links the crawl follows from the seeds: views of the models, the on-device views and the boards (their sort
    and column links, a view they link to); from those, only data (their API and CSV links)."""
    path = unquote(url).lower()
    if any(part in path for part in ("/admin/", "/accounts/", "/static/", "/about/", "/submit/", "/api/schema/")):
        return False
    ours = any(model.lower() in path for model in MODELS) or "on-device" in path
    if hops > 1:
        return ours and (path.startswith("/api/") or "format=csv" in path)
    return ours or path.startswith(("/leaderboard/", "/api/v1/leaderboard/", "/mobile-vs-general/"))


def seeds(context):
    """(role, url): where an anonymous visitor's crawl starts (it follows links), and what a signed-in account and
    view-only staff fetch."""
    public = board_urls() + page_urls(MODELS)
    for model in MODELS:
        public += model_urls(model, context["runs"][model])
        public += [reverse("api-model-on-device", args=[model]), reverse("api-model-on-device", args=[model])
                   + "?format=csv"]
    board = _q(reverse("api-leaderboard-on-device"), benchmark=BENCH)  # asked for the sealed split too
    public += [board, board + "&format=csv", board + "&split=test", _q(reverse("leaderboard-on-device"),
                                                                        benchmark=BENCH, split="test")]
    public += [_q(reverse("model-questions", args=[VICTIM]), run=pk, split=split) for pk, split in context["questions"]]
    for pk in context["submissions"]:
        public += [reverse("api-submission-detail", args=[pk]), reverse("submission-status", args=[pk])]
    admin = [reverse("admin:evaluations_evaluationrun_changelist"),
             reverse("admin:evaluations_evaluationrun_changelist") + "?split__exact=test"]
    admin += [reverse("admin:evaluations_evaluationrun_change", args=[pk])
              for pks in context["runs"].values() for pk in pks]
    admin.append(reverse("admin:contamination_deltapoint_changelist"))
    return [("anonymous", u) for u in public], [("adversary", u) for u in page_urls(MODELS)] + [
        ("staff", u) for u in admin]


@pytest.fixture
def gguf_crawl(people, demo_loaded, caplog):
    """crawl(context): the crawl of a world, checked for (a): no sealed question text, option (but for those the open
    splits contain too: the demo bank repeats a few) or id, nor a sealed run's generated text, in any view or in what
    the world's scoring and the crawl logged."""
    caplog.set_level("DEBUG")
    public = "\0".join(text for pair in Question.objects.exclude(split="test").values_list("text", "options")
                        for text in (pair[0], *pair[1]))  # one search each: no question holds a NUL
    strings = [s for s in sealed_strings() if s not in public]
    assert len(strings) > 1000
    ids = re.compile(r"GENERATEDSEALED|\b(?:%s)\b" % "|".join(
        map(re.escape, Question.objects.filter(split="test").values_list("uid", flat=True))))

    clean = set()  # bodies searched already: the worlds of a test mostly serve the same ones

    def run(context):
        public, signed_in = seeds(context)
        seen = crawl(people["clients"], public, follow) | fetch(people["clients"], signed_in)
        for key, body in [*((key, view[3]) for key, view in seen.items()), ("the log", caplog.text)]:
            if body in clean:
                continue
            leaked = [s for s in strings if s in body] or ids.findall(body)
            assert not leaked, f"{key}: sealed content: {leaked[:3]}"
            clean.add(body)
        return seen
    return run


def _body(seen, url, role="anonymous"):
    status, _, _, body = seen[(role, url)]
    assert status == 200, (url, status)
    return body


@pytest.mark.parametrize("secret", ["file", "base", "protocol"])
def test_each_sealed_figure_says_no_more_than_its_published_figure(gguf_world, gguf_crawl, secret):
    """(a) and (b): the secret count moves inside and just outside its bin, the other two stay as FIXED."""
    worlds = Worlds()
    seen = assert_bin_hidden(lambda c: worlds.observe(lambda: gguf_world(**{secret: c}),
                                                      gguf_crawl))[C0]
    # The crawl saw what it had to: both sealed figures on the test board, on the grid...
    board = _body(seen, _q(reverse("api-leaderboard"), benchmark=BENCH, split="test"))
    published = {"base": 66.0 if secret == "base" else 80.0, "file": 66.0 if secret == "file" else 62.0}
    for model, key in ((VICTIM, "base"), (FILE, "file")):
        assert re.search(r'"accuracy":%s,[^{}]*"grid":2\.0,[^{}]*"hub_id":"%s"' % (published[key], re.escape(model)),
                         board), (model, board[:2000])
    # ...the files compared with their base on the validation split only, from either side...
    for model, files in ((VICTIM, 2), (FILE, 1), (MADE, 1)):
        rows = re.findall(r'\{[^{}]*"compared":[^{}]*\}', _body(seen, reverse("api-model-on-device", args=[model])))
        assert len(rows) == files and all('"split":"validation"' in r and '"compared":true' in r for r in rows), rows
    board = _body(seen, _q(reverse("api-leaderboard-on-device"), benchmark=BENCH))
    assert FILE in board and MADE in board
    # ...the views the pages link to, and the open protocol run's generated text in its question browser.
    assert len(seen) > 80, sorted(seen)
    assert any("GENERATEDOPEN" in view[3] for view in seen.values())


def test_a_sealed_protocol_runs_generated_text_is_never_published(gguf_world, gguf_crawl):
    """(c): worlds that differ only in how the sealed protocol run's generations read (and how many of its wrong
    answers had no letter) crawl alike; the same change to the open protocol run shows."""
    worlds = Worlds()

    def observe(**styles):
        return worlds.observe(lambda: gguf_world(**styles), gguf_crawl)

    seen = {style: observe(sealed_style=style) for style in STYLES}
    assert_indistinguishable(seen)
    assert observe(open_style="unread") != seen["plain"]


def test_a_later_file_the_ladder_withholds_publishes_nothing(gguf_world, gguf_crawl):
    """A later commit of the GGUF file, 100 % right on validation, whose sealed count is below the published one: the
    Ladder rule withholds it (no paired gain), and nothing about that count shows; a real gain (400) is published."""
    worlds = Worlds()
    seen = {c: worlds.observe(lambda c=c: gguf_world(later=c), gguf_crawl) for c in (*WITHHELD, 400)}
    assert_indistinguishable({c: seen[c] for c in WITHHELD})
    assert seen[400] != seen[WITHHELD[0]]
