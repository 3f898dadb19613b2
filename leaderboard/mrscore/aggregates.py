"""A job's published MRScore figures, from the open splits' verdicts only: topic means with their intervals, the
benchmark summary (mean, bins, histogram, methods) and the comparison with the paper.

The sealed split's verdicts feed none of them. With the open questions' scores public, a topic's mean over all
its questions would give the sum of its sealed questions' scores (mean × n minus the open scores), and a histogram
or a method count over all questions would give theirs by subtraction too (ARCHITECTURE §6). The paper's
published topic MRScores stay beside ours as the reference. Plain data in and out, so that the migration that
recomputed stored jobs used this code too.
"""
from collections import defaultdict

from evaluator.judges.stats import summarize_rows
from evaluator.statistics import mean_ci, spearman

from leaderboard.benchmarks.models import SEALED_SPLITS

# The paper's topic MRScores are compared with ours (Spearman) only for a real judge on a real
# benchmark: at least this many topics, each with at least this many scored questions.
COMPARISON_MIN_TOPICS = 10
COMPARISON_MIN_TOPIC_QUESTIONS = 30


def open_verdicts(verdicts) -> list[dict]:
    """The verdicts ({split, topic, score, method, mass?}) that published figures may use: the open splits'."""
    return [v for v in verdicts if v["split"] not in SEALED_SPLITS]


def topic_blocks(verdicts) -> dict:
    """topic -> {n, n_scored, n_unparsable, mean, sd, ci_low, ci_high}: paper Eq. 3 over the open verdicts."""
    by_topic = defaultdict(list)
    for v in open_verdicts(verdicts):
        by_topic[v["topic"]].append(v)
    blocks = {}
    for topic, rows in by_topic.items():
        block = mean_ci([r["score"] for r in rows if r.get("score") is not None])
        blocks[topic] = {"n": len(rows), "n_scored": block["n"],
                         "n_unparsable": sum(1 for r in rows if r["method"] == "unparsable"),
                         "mean": block["mean"], "sd": block["sd"], "ci_low": block["ci95"][0],
                         "ci_high": block["ci95"][1]}
    return blocks


def comparison(blocks: dict, published: dict, *, is_demo: bool) -> dict:
    """Spearman between our topic means and the paper's published ones (topic -> value or None), when it means
    something."""
    pairs = [(published[t], b["mean"]) for t, b in blocks.items()
             if published.get(t) is not None and b["mean"] is not None
             and b["n_scored"] >= COMPARISON_MIN_TOPIC_QUESTIONS]
    result = {"n_topics": len(pairs), "rho": None, "ci95": [None, None], "shown": False, "reason": ""}
    if not any(v is not None for v in published.values()):
        result["reason"] = "no published topic MRScores for this benchmark"
    elif is_demo:
        result["reason"] = "the judge is a demo model"
    elif len(pairs) < COMPARISON_MIN_TOPICS:
        result["reason"] = (f"{len(pairs)} topics have {COMPARISON_MIN_TOPIC_QUESTIONS}+ scored questions and a "
                            f"published MRScore; at least {COMPARISON_MIN_TOPICS} are needed")
    else:
        corr = spearman([p for p, _ in pairs], [o for _, o in pairs])
        result.update(rho=corr["rho"], ci95=corr["ci95"], shown=corr["rho"] is not None)
        if corr["rho"] is None:
            result["reason"] = "no variation in the topic means"
    return result


def job_summary(verdicts, blocks: dict, published: dict, *, is_demo: bool) -> dict:
    """The benchmark-level summary of the open verdicts, with the topic count and the comparison."""
    rows = open_verdicts(verdicts)
    summary = summarize_rows(rows)
    by_split = defaultdict(list)
    for r in rows:
        if r.get("score") is not None:
            by_split[r["split"]].append(r["score"])
    summary["by_split"] = {s: {"n": len(v), "mean": mean_ci(v)["mean"]} for s, v in by_split.items()}
    summary["topics"] = len(blocks)
    summary["comparison"] = comparison(blocks, published, is_demo=is_demo)
    return summary
