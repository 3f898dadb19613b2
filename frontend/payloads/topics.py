"""Topics across models: easiest and hardest (the paper's Figs. 14-15) and one topic's models, ranked on its
questions, with its MRScore. Open split only."""
from functools import partial

from leaderboard.mrscore import selectors as mrscore_selectors
from leaderboard.results import board
from leaderboard.boards import selectors as boards

from ..board_cache import board_cached, board_state
from . import leaderboard
from .board_query import PAGE_SIZE, count_text, pager, sort_links
from .board_table import number

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


# --- one topic's models, ranked (the topic page's table) -----------------------------------------------------------

TOPIC_COLUMNS = (("rank", "Rank", "rank", "col-rank num"), ("model", "Model", "name", "col-model"),
                 ("accuracy", "Accuracy (95% CI)", "accuracy", "col-acc num"), ("n", "Questions", None, "num"),
                 ("precision", "Precision", "precision", ""))


def _topic_rows(*, benchmark, topic, state=""):
    return board_cached(f"topic-board:{topic.slug}", benchmark=benchmark, split="validation", shots=0, state=state,
                        build=lambda: boards.board_rows(benchmark=benchmark, topics=(topic.slug,)))


def topic_board(*, benchmark, topic, query, path) -> dict:
    """The board narrowed to one topic (results.selectors.board_rows with topics=): ranked by significance on the
    topic's questions, flagged models hidden unless shown, sorted and paged on the server like the leaderboard."""
    state = board_state(benchmark=benchmark, split="validation", shots=0)
    rows = _topic_rows(benchmark=benchmark, topic=topic, state=state)
    kept, _ = leaderboard.ranked(benchmark=benchmark, split="validation", shots=0, rows=rows, state=state,
                                 filters=query.filters(), name=f"topic:{topic.slug}",
                                 reread=partial(_topic_rows, benchmark=benchmark, topic=topic))
    shown = board.narrow(kept, sort=query.sort)
    pages = pager(query, len(shown.rows), path)
    start = (pages["page"] - 1) * PAGE_SIZE
    page_rows = shown.rows[start:start + PAGE_SIZE]
    return {
        "query": query, "headers": sort_links(query, TOPIC_COLUMNS, path), "pager": pages,
        "rows": [{"hub_id": r["hub_id"], "rank": r["rank"], "tied": r["tied"], "flagged": r["flagged"],
                  "contamination": r["possible_contamination"], "accuracy": number(r["accuracy"], 2),
                  "interval": (f"{number(r['ci95_low'], 2)}–{number(r['ci95_high'], 2)}"
                               if r["ci95_low"] is not None else ""), "n": r["n"], "precision": r["precision"]}
                 for r in page_rows],
        "count_text": count_text(len(shown.rows), start + 1, start + len(page_rows), 0, ""),
        "flagged_hidden": shown.flagged_hidden, "show_flagged_url": query.url(path, flagged="show", page=1),
        "hide_flagged_url": query.url(path, flagged="hidden", page=1),
        "best": sorted(shown.rows, key=lambda r: (-(r["accuracy"] or 0), r["hub_id"].lower())),
    }
