"""What quantization cost, question by question: a quantized file's predictions against its 16-bit model's on the
same questions, template and answer order (issue 24, section 3).

Pure (math only): rows are the engine's prediction rows (`engine.py`: ``predicted``, ``correct``,
``letter_probs``), paired by the caller on (question, answer order). Reported:

- accuracy of each, and the file's change with Newcombe's paired score interval (statistics.newcombe_paired);
- flips: the share of questions whose predicted letter changed, split into right→wrong and wrong→right (the rest
  changed from one wrong letter to another, or between two letters of a multi-answer key);
- the mean KL(16-bit ‖ file) of the letter distributions, each renormalised over its letters, in nats: how much
  probability the file moved away from where the 16-bit model put it ("Accuracy is Not All You Need",
  arXiv 2407.09141; llama.cpp's perplexity --kl-divergence has the same direction).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from .statistics import newcombe_paired, wilson_interval

KL_FLOOR = 1e-12  # a letter the file gave no probability at all: its log is taken at this floor, not -inf


def letter_kl(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """KL(p ‖ q) in nats over p's letters, both renormalised over those letters (rows store them renormalised;
    rounding is undone here), q floored at KL_FLOOR."""
    letters = list(p)
    p_total = sum(max(0.0, p[L]) for L in letters)
    q_total = sum(max(0.0, q.get(L, 0.0)) for L in letters)
    if p_total <= 0 or q_total <= 0:
        raise ValueError("a letter distribution with no mass")
    kl = 0.0
    for L in letters:
        pv = max(0.0, p[L]) / p_total
        if pv > 0:
            kl += pv * math.log(pv / max(max(0.0, q.get(L, 0.0)) / q_total, KL_FLOOR))
    return max(0.0, kl)


@dataclass(frozen=True)
class PairedComparison:
    n: int  # questions both runs answered (paired)
    base_correct: int
    file_correct: int
    changed: int  # predicted letter differs (a question without a letter counts as a letter of its own)
    right_to_wrong: int
    wrong_to_right: int
    kl_n: int  # pairs that both carry letter probabilities (logprobs mode)
    mean_kl: float | None  # nats; None without such pairs (generation mode)

    @property
    def base_accuracy(self) -> float | None:
        return self.base_correct / self.n if self.n else None

    @property
    def file_accuracy(self) -> float | None:
        return self.file_correct / self.n if self.n else None

    @property
    def file_ci95(self) -> tuple[float, float] | None:
        return wilson_interval(self.file_correct, self.n) if self.n else None

    @property
    def change(self) -> float | None:
        """file − 16-bit accuracy on the paired questions."""
        return (self.file_correct - self.base_correct) / self.n if self.n else None

    @property
    def change_ci95(self) -> tuple[float, float] | None:
        if not self.n:
            return None
        both = self.base_correct - self.right_to_wrong
        neither = self.n - both - self.right_to_wrong - self.wrong_to_right
        return newcombe_paired(both, self.wrong_to_right, self.right_to_wrong, neither)

    def share(self, count: int) -> float | None:
        return count / self.n if self.n else None


def compare(pairs: Iterable[tuple[Mapping, Mapping]]) -> PairedComparison:
    """(16-bit row, file row) pairs of the same question and answer order -> the paired comparison."""
    n = base_correct = file_correct = changed = right_to_wrong = wrong_to_right = kl_n = 0
    kl_sum = 0.0
    for base, file in pairs:
        n += 1
        b, f = bool(base.get("correct")), bool(file.get("correct"))
        base_correct += b
        file_correct += f
        right_to_wrong += b and not f
        wrong_to_right += f and not b
        changed += base.get("predicted") != file.get("predicted")
        if base.get("letter_probs") and file.get("letter_probs"):
            kl_sum += letter_kl(base["letter_probs"], file["letter_probs"])
            kl_n += 1
    return PairedComparison(n=n, base_correct=base_correct, file_correct=file_correct, changed=changed,
                            right_to_wrong=right_to_wrong, wrong_to_right=wrong_to_right, kl_n=kl_n,
                            mean_kl=kl_sum / kl_n if kl_n else None)
