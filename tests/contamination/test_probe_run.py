"""The probe through the run path: predicted on the GPU side without answers, counted on the trusted side,
compared across validation and test in the contamination API."""
import pytest
from django.urls import reverse

from leaderboard.evaluations import selectors, services
from leaderboard.scoring import services as scoring
from tests.evaluator.test_probe import EchoingMemorizer

pytestmark = pytest.mark.django_db


class MemorizingBackend(EchoingMemorizer):
    """Named fake: answers every letter question with A, and writes masked options it memorized."""

    def letter_logprobs(self, prompts, *, use_chat_template=False):
        return [{"A": -0.1, "B": -3.0, "C": -3.0, "D": -3.0} for _ in prompts]

    def describe(self):
        return {"backend": "fake-memorizer"}


def test_a_model_that_memorized_validation_options_shows_in_the_probe(client, version):
    memorized = selectors.engine_questions(version=version, split="validation")
    backend = MemorizingBackend(memorized)
    for split in ("validation", "test"):
        run = services.run_create(version=version, split=split, model_ref="org/memo", model_revision="b" * 40,
                                  probe=True)
        services.run_claim(run=run)
        services.run_predict(run=run, backend=backend, measure=False)
        run.refresh_from_db()
        assert len(run.probe_rows) == 480
        scoring.run_score(run=run)
    row = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu"}).json()["results"][0]
    validation, test = row["probe"]["validation"], row["probe"]["test"]
    assert validation["rate"] > 99 and test["rate"] == 0.0
    assert 300 < validation["n"] < 480  # items whose masked option was the right one are not counted
    assert row["probe"]["z"] > 3 and any("memorization probe" in r for r in row["flag_reasons"])
