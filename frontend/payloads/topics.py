"""Topics across models: easiest and hardest (the paper's Figs. 14-15) and one topic's accuracy
across models with its MRScore. Open split only."""
from leaderboard.mrscore import selectors as mrscore_selectors

EXTREMES = 10
TOPIC_CHART_MODELS = 30


def extremes(summary) -> dict:
    scored = [t for t in summary if t["mean"] is not None]
    ranked = sorted(scored, key=lambda t: (-t["mean"], t["topic"]))
    pick = ("slug", "topic", "category", "mean", "low", "high", "models")
    return {"easiest": [{k: t[k] for k in pick} for t in ranked[:EXTREMES]],
            "hardest": [{k: t[k] for k in pick} for t in reversed(ranked[-EXTREMES:])] if ranked else []}


def extremes_summaries(data, n_topics) -> dict:
    if not data["easiest"]:
        return {"easiest": "No results yet.", "hardest": "No results yet."}
    e, h = data["easiest"], data["hardest"]
    models = max(t["models"] for t in e + h)
    return {
        "easiest": (f"The {len(e)} topics with the highest mean accuracy across up to {models} models, of "
                    f"{n_topics}: {e[0]['topic']} leads at {e[0]['mean']}%, the tenth is {e[-1]['topic']} at "
                    f"{e[-1]['mean']}%. The grey band runs from the worst to the best model on each topic."),
        "hardest": (f"The {len(h)} topics with the lowest mean accuracy: {h[0]['topic']} is hardest at "
                    f"{h[0]['mean']}%, then {h[1]['topic'] if len(h) > 1 else '–'}"
                    f"{' at ' + str(h[1]['mean']) + '%' if len(h) > 1 else ''}."),
    }


def topic_mrscore(*, benchmark, topic) -> dict:
    """Our judge's MRScore of the topic (if a job has finished) beside the paper's."""
    job = mrscore_selectors.job_current(benchmark=benchmark)
    ours = mrscore_selectors.topic_scores(job=job).filter(topic=topic).first() if job else None
    return {"published": topic.published_mrscore, "ours": ours,
            "provenance": mrscore_selectors.provenance(job=job) if job else None}


def topic_chart(rows) -> dict:
    top = rows[:TOPIC_CHART_MODELS]
    return {"models": [[r["hub_id"], r["precision"], r["accuracy"], r["ci95_low"], r["ci95_high"], r["n"]]
                       for r in top], "total": len(rows)}


def topic_summary_text(topic, rows) -> str:
    if not rows:
        return f"No model has been scored on {topic.name} yet."
    accs = [r["accuracy"] for r in rows if r["accuracy"] is not None]
    mean = sum(accs) / len(accs)
    shown = min(len(rows), TOPIC_CHART_MODELS)
    return (f"{len(rows)} models scored on {topic.name}; mean accuracy {mean:.1f}%, from {min(accs)}% to "
            f"{max(accs)}%. The chart shows the {shown} most accurate with 95% intervals; best: "
            f"{rows[0]['hub_id']} at {rows[0]['accuracy']}%.")
