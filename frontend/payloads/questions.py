"""The question browser's items: one page of a run's open-split questions, each with its options, the model's
letter probabilities (when the run stored them), its prediction and the answer."""
from leaderboard.benchmarks.models import OPTION_LETTERS


def _percent(p):
    return None if p is None else round(100 * p, 1)


def items(entries, texts, *, start: int) -> list[dict]:
    """entries: question_browser.Entry of one page; texts: uid -> {text, options, topic}; start: the first's number."""
    out = []
    for number, entry in enumerate(entries, start):
        text = texts.get(entry.uid)
        if text is None:  # not a question of the run's open split: never shown
            continue
        probs = entry.probs or {}
        options = [{"letter": letter, "text": option, "prob": _percent(probs.get(letter)),
                    "answer": letter in entry.answer, "predicted": letter == entry.predicted}
                   for letter, option in zip(OPTION_LETTERS, text["options"])]
        out.append({"number": number, "uid": entry.uid, "topic": text["topic"], "text": text["text"],
                    "options": options, "has_probs": bool(probs), "correct": entry.correct,
                    "predicted": entry.predicted, "answer": ", ".join(sorted(entry.answer)),
                    "mass": _percent(entry.mass), "output": entry.output, "error": entry.error})
    return out
