"""The MRScore page: the distribution of question scores (the paper's Fig. 9), topic scores in the
paper's bins, accuracy against MRScore per topic, and who judged. Without a finished judge job the
page shows the paper's published topic scores, labelled as such."""
from evaluator.judges.stats import BINS, bin_label
from evaluator.statistics import spearman

from leaderboard.mrscore import selectors as mrscore_selectors

BIN_LABELS = [label for label, _, _ in BINS]  # ">= 7", "5-6.9", "3-4.9", "< 3"


def _r(x, places=2):
    return None if x is None else round(x, places)


def page_data(*, benchmark, topic_summary) -> dict:
    job = mrscore_selectors.job_current(benchmark=benchmark)
    accuracy = {t["slug"]: t["mean"] for t in topic_summary}
    topics = []
    if job is not None:
        for row in mrscore_selectors.topic_scores(job=job):
            t = row.topic
            topics.append({"slug": t.slug, "topic": t.name, "category": t.subcategory.category.name, "n": row.n_scored,
                           "mrscore": _r(row.mean), "low": _r(row.ci_low), "high": _r(row.ci_high),
                           "published": t.published_mrscore, "accuracy": accuracy.get(t.slug)})
    else:
        topics = [{"slug": t["slug"], "topic": t["topic"], "category": t["category"], "n": None,
                   "mrscore": None, "low": None, "high": None, "published": t["published_mrscore"],
                   "accuracy": accuracy.get(t["slug"])} for t in topic_summary]
    for t in topics:
        score = t["mrscore"] if t["mrscore"] is not None else t["published"]
        t["score"] = score
        t["bin"] = bin_label(score) if score is not None else None
    summary = (job.summary or {}) if job else {}
    return {
        "benchmark": benchmark.name, "source": "judge" if job else "paper",
        "histogram": summary.get("histogram") if job else None,
        "published_histogram": _published_histogram(topics) if not job else None,
        "n_scored": summary.get("n_scored"), "mean": _r(summary.get("mean")),
        "topics": topics, "bins": _bins(topics),
        "scatter_points": sum(1 for t in topics if t["score"] is not None and t["accuracy"] is not None),
        "provenance": mrscore_selectors.provenance(job=job) if job else None,
        "judge_is_demo": bool(job and job.judge_is_demo),
    }


def _published_histogram(topics):
    counts = [0] * 10
    for t in topics:
        if t["published"] is not None:
            counts[min(9, max(0, int(t["published"]) - 1))] += 1
    return counts


def _bins(topics):
    counts = {label: 0 for label in BIN_LABELS}
    for t in topics:
        if t["bin"]:
            counts[t["bin"]] += 1
    return [{"label": label, "topics": counts[label]} for label in BIN_LABELS]


def summaries(data) -> dict:
    out = {}
    if data["histogram"]:
        h = data["histogram"]
        peak = max(range(10), key=lambda i: h[i])
        out["histogram"] = (f"{data['n_scored']} questions scored by the judge, mean MRScore {data['mean']}; the most "
                            f"common score is {peak + 1}{'–' + str(peak + 2) if peak < 9 else ''} "
                            f"({h[peak]} questions).")
    elif data["published_histogram"]:
        scored = [t["published"] for t in data["topics"] if t["published"] is not None]
        out["histogram"] = (f"No judge has scored this benchmark here yet: the chart shows the paper's published "
                            f"MRScores of {len(scored)} topics (mean {sum(scored) / len(scored):.2f}).")
    else:
        out["histogram"] = "No MRScores for this benchmark."
    bins = ", ".join(f"{b['topics']} topics {b['label']}" for b in data["bins"])
    out["bins"] = bins
    pairs = [(t["score"], t["accuracy"]) for t in data["topics"]
             if t["score"] is not None and t["accuracy"] is not None]
    if len(pairs) >= 3:
        rho = spearman([p[0] for p in pairs], [p[1] for p in pairs])["rho"]
        out["scatter"] = (f"{len(pairs)} topics: mean accuracy across models against the topic's MRScore "
                          f"({'our judge' if data['source'] == 'judge' else 'published by the paper'}). Spearman's "
                          f"rank correlation: {rho:.2f}." if rho is not None else f"{len(pairs)} topics.")
    else:
        out["scatter"] = "Not enough scored topics with accuracy figures for a scatter yet."
    return out
