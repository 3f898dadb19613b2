"""The probe through the run path: predicted on the GPU side without answers, counted on the trusted side, and
shown for the validation split in the contamination API. The sealed split is not probed."""
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
        # The sealed run generates nothing for the probe: its outcome would be a second sealed figure.
        assert len(run.probe_rows) == (480 if split == "validation" else 0) and run.probe == (split == "validation")
        scoring.run_score(run=run)
    row = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu"}).json()["results"][0]
    validation = row["probe"]["validation"]
    assert validation["rate"] > 99 and set(row["probe"]) == {"validation"}
    assert 300 < validation["n"] < 480  # items whose masked option was the right one are not counted
