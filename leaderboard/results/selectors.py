"""Reads of results: leaderboard rows, a model's results, its history, per-topic tables, and the board of
submitted predictions.

Only RunResult / ResultAggregate / ReportedResult rows are read, never prediction chunks. Runs scored from
uploaded predictions are never measured rows: every measured view reads ``visible_results``, which leaves them
out; they are listed by ``submitted_predictions`` alone.
"""
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Lower

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.contamination import ladder
from leaderboard.core.errors import SealedSplitError
from leaderboard.core.rows import field, first_per_key
from leaderboard.evaluations import display
from leaderboard.evaluations.models import UPLOAD_BACKEND, RunStatus
from leaderboard.submissions.models import ModelEntry
from leaderboard.submissions.models import size_class as size_class_of

from . import board
from .models import Level, ReportedResult, ResultAggregate, RunResult
from .reference import PUBLISHED_N

SIZE_CLASSES = board.SIZE_CLASSES


def _listed_results(*, protocol="", **filters):
    """Succeeded, non-hidden runs' results (newest first), without sealed runs the Ladder rule did not show.
    The runs' bulky JSON (summary, probe rows) is deferred: boards list 1,000s of runs and never read it.
    protocol: the runs of one evaluation protocol ('' = the leaderboard's own settings, evaluations.models), so no
    board, table or comparison mixes two protocols; None = every protocol (a model's own list of runs)."""
    if protocol is not None:
        filters["run__protocol"] = protocol
    return (RunResult.objects.filter(run__status=RunStatus.SUCCEEDED, run__hidden=False, **filters)
            .exclude(run__submission__hidden=True).exclude(model__hidden=True)
            .exclude(run_id__in=ladder.withheld_test_runs())
            .select_related("run__submission", "model", "benchmark")
            .defer("run__summary", "run__probe_rows", "run__log_excerpt").order_by("-scored_at", "-pk"))


def visible_results(**filters):
    """The measured results: runs we evaluated. Uploaded predictions are left out (anyone may upload figures
    for their own models; they never stand in a model's measured row)."""
    return _listed_results(**filters).exclude(run__backend=UPLOAD_BACKEND)


def _latest_per_revision(results):
    """Newest first in, the latest of each (model, revision, precision) out; rows are objects or dicts."""
    return first_per_key(results, "hub_id", "revision", "precision")


def _shown_sealed(results, *, benchmark, shots):
    """One sealed-split row per (model, precision): the run the Ladder rule shows, else the latest."""
    shown = ladder.shown_test_runs(benchmark=benchmark, shots=shots)
    by_model = {}
    for r in results:  # newest first
        key = (field(r, "hub_id"), field(r, "precision"))
        if key not in by_model or shown.get(key) == field(r, "run_id"):
            by_model[key] = r
    return list(by_model.values())


# The leaderboard reads plain values in one query (no model objects): it lists 1,000s of runs.
_BOARD_FIELDS = ("pk", "run_id", "hub_id", "revision", "precision", "scored_at", "run__flagged",
                 "run__submission_id", "run__submission__model_type", "model__params", "model__model_type",
                 "model__flagged", "run__template", "run__use_chat_template", "run__created_at")
# Efficiency as the run measured it on the evaluating server (evaluator/efficiency.py), read by JSON key.
_EFFICIENCY = {"latency_s": ("batch1_latency_s", "p50"), "peak_memory_bytes": ("peak_memory_bytes",),
               "energy_j_per_question": ("energy_j_per_question",)}


def _json_key(field, path):
    expression = field
    for key in path:
        expression = KeyTransform(key, expression)
    return expression


def _board_values(*, benchmark, version, split, shots, variant):
    """The board's runs (latest per model revision; sealed: the Ladder's shown run per model), their overall
    (correct, n) in `variant` and the accuracies of all their answer orders (result id -> [fraction, ...])."""
    efficiency = {name: _json_key("run__efficiency", path) for name, path in _EFFICIENCY.items()}
    results = (visible_results(benchmark_version=version, split=split, shots=shots)
               .values(*_BOARD_FIELDS, **efficiency))
    # Sealed: choose among all of a model's runs, so a newer re-run of the same revision cannot displace
    # the shown one.
    results = (_shown_sealed(results, benchmark=benchmark, shots=shots) if display.is_sealed(split)
               else _latest_per_revision(results))
    overall, orders = {}, {}
    for result_id, v, correct, n in (ResultAggregate.objects.filter(result__in=[r["pk"] for r in results],
                                                                    level=Level.OVERALL)
                                     .values_list("result_id", "variant", "correct", "n")):
        if v == variant:
            overall[result_id] = (correct, n)
        if n:
            orders.setdefault(result_id, []).append(correct / n)
    return results, overall, orders


def _pooled_cells(*, result_ids, topics, variant):
    """result id -> (correct, n) summed over the given topics' aggregates (a board narrowed to those topics)."""
    cells = {}
    for result_id, correct, n in (ResultAggregate.objects.filter(result__in=result_ids, level=Level.TOPIC,
                                                                 key__in=list(topics), variant=variant)
                                  .values_list("result_id", "correct", "n")):
        c, total = cells.get(result_id, (0, 0))
        cells[result_id] = (c + correct, total + n)
    return cells


def _category_accuracies(*, result_ids, variant):
    """result id -> category slug -> accuracy (percent, 2 places: the open split's display rule)."""
    out = {}
    for result_id, key, correct, n in (ResultAggregate.objects.filter(result__in=result_ids, level=Level.CATEGORY,
                                                                      variant=variant)
                                       .values_list("result_id", "key", "correct", "n")):
        if n:
            out.setdefault(result_id, {})[key] = round(100 * correct / n, 2)
    return out


def _sealed_figures(*, benchmark, version, shots):
    """(hub_id, precision) -> the published figure of the sealed run the Ladder shows (display.cell: on the
    split's grid, with it), for the open board's "sealed test" column."""
    results, overall, _ = _board_values(benchmark=benchmark, version=version, split="test", shots=shots,
                                        variant="original")
    figures = {}
    for r in results:
        if r["pk"] in overall:
            correct, n = overall[r["pk"]]
            figures[r["hub_id"], r["precision"]] = display.cell(split="test", n=n, correct=correct)
    return figures


def _rank_cell(split, cell, figures):
    """What ranks are computed from: the counts on an open split; on the sealed split, the count its published
    figure implies (ranks must say nothing finer than that figure)."""
    if not display.is_sealed(split) or figures["accuracy"] is None:
        return cell
    return (figures["accuracy"] / 100 * cell[1], cell[1])


def measured_rows(*, benchmark, split="validation", shots=0, variant="original", version=None, topics=()):
    """Every measured row of a board with every column results know, unfiltered and unranked, in a fixed number
    of queries whatever the number of models; the Δ columns are left empty (leaderboard.boards fills them from
    contamination). `topics`: the accuracy is pooled over those topics' questions (open splits only)."""
    sealed = display.is_sealed(split)
    if sealed and topics:
        raise SealedSplitError(display.SEALED_BREAKDOWN_NOTE)
    version = version or bench_selectors.version_current(benchmark=benchmark)
    results, overall, orders = _board_values(benchmark=benchmark, version=version, split=split, shots=shots,
                                             variant=variant)
    ids = [r["pk"] for r in results]
    cells = _pooled_cells(result_ids=ids, topics=topics, variant=variant) if topics else overall
    categories = {} if sealed else _category_accuracies(result_ids=ids, variant=variant)
    tests = {} if sealed else _sealed_figures(benchmark=benchmark, version=version, shots=shots)
    notes = ladder.ladder_notes(benchmark=benchmark, shots=shots) if sealed else {}
    rows = []
    for r in results:
        cell = cells.get(r["pk"])
        if cell is None:
            continue
        test = tests.get((r["hub_id"], r["precision"])) or {}
        spread = orders.get(r["pk"], [])
        params = r["model__params"]
        kind = (r["run__submission__model_type"] if r["run__submission_id"] else r["model__model_type"]) or ""
        figures = display.cell(split=split, n=cell[1], correct=cell[0])
        rows.append({
            "reported": False, "source": "measured", "hub_id": r["hub_id"], "revision": r["revision"],
            "precision": r["precision"], "params": params, "size_class": size_class_of(params), "model_type": kind,
            "flagged": bool(r["run__flagged"] or r["model__flagged"]), "possible_contamination": False,
            "ladder_note": notes.get(r["run_id"], ""),
            "run_id": r["run_id"], "scored_at": r["scored_at"], "submitted_at": r["run__created_at"],
            "template": r["run__template"], "chat_template": r["run__use_chat_template"],
            "test_accuracy": test.get("accuracy"), "test_ci95_low": test.get("ci95_low"),
            "test_ci95_high": test.get("ci95_high"), "test_grid": test.get("grid"), "delta": None,
            "categories": categories.get(r["pk"], {}),
            # Best minus worst answer order; withheld on the sealed split (its display rules: overall only).
            "order_spread": (round(100 * (max(spread) - min(spread)), 2) if len(spread) > 1 and not sealed
                             else None),
            **{name: r[name] for name in _EFFICIENCY},
            "_cell": _rank_cell(split, cell, figures), **figures})
    rows.sort(key=board.board_order)
    return rows


def reported_rows(*, benchmark_slug, shots=0, variant="original"):
    """The paper's figures for a benchmark slug (also ones not hosted here, e.g. "mmlu"), labelled and never ranked
    (they were measured on another question set)."""
    # Table 2 and Tables 3-4 both print `original` for seven models: Table 2 wins ("paper-table2" sorts first descending).
    reported = ReportedResult.objects.filter(benchmark_slug=benchmark_slug, shots=shots, variant=variant).order_by("-source")
    return [{"reported": True, "source": rep.get_source_display(), "hub_id": rep.hub_id, "revision": "",
             "precision": "", "params": None, "size_class": None, "model_type": "", "flagged": False,
             "possible_contamination": False, "run_id": None, "scored_at": None,
             "n": PUBLISHED_N.get(benchmark_slug) or None, "correct": None, "accuracy": rep.accuracy, "ci95_low": None,
             "ci95_high": None} for rep in first_per_key(reported, "hub_id")]


SUBMITTED_PREDICTIONS = "submitted predictions"  # the label of every row scored from an uploaded file


def submitted_predictions(*, benchmark, split="validation", version=None):
    """The board of uploaded predictions: the latest upload per model name, best first, each labelled "submitted
    predictions" with its uploader and the measured board's display cells (accuracy, 95% interval). We scored the
    file but did not run the model, so these rows are never ranked with (or shown as) measured rows."""
    version = version or bench_selectors.version_current(benchmark=benchmark)
    uploads = (_listed_results(benchmark_version=version, split=split, run__backend=UPLOAD_BACKEND)
               .values("pk", "run_id", "hub_id", "scored_at", "primary_variant", "run__submission_id",
                       "run__submission__submitter__username"))
    latest = first_per_key(uploads, "hub_id")  # newest first in
    overall = {(a["result_id"], a["variant"]): (a["correct"], a["n"]) for a in ResultAggregate.objects.filter(
        result__in=[r["pk"] for r in latest], level=Level.OVERALL).values("result_id", "variant", "correct", "n")}
    rows = []
    for r in latest:
        cell = overall.get((r["pk"], r["primary_variant"]))
        if cell is None:
            continue
        rows.append({"source": SUBMITTED_PREDICTIONS, "hub_id": r["hub_id"], "run_id": r["run_id"],
                     "submission_id": r["run__submission_id"],
                     "uploaded_by": r["run__submission__submitter__username"] or "", "scored_at": r["scored_at"],
                     **display.cell(split=split, n=cell[1], correct=cell[0])})
    rows.sort(key=lambda row: (-(row["accuracy"] or 0), row["hub_id"].lower()))
    return rows


def model_hub_id(hub_id: str) -> str:
    """The board's spelling of a hub id (hub ids compare case-insensitively: ``DEMO/x`` is ``demo/x``), else as
    given. Results store the model entry's spelling, so they are then found by the indexed exact match."""
    stored = ModelEntry.objects.filter(hub_id__iexact=hub_id).values_list("hub_id", flat=True).first()
    return stored or hub_id


def model_hub_ids(hub_ids) -> dict[str, str]:
    """model_hub_id of many hub ids in one query: each as given -> the board's spelling (else as given)."""
    wanted = {h.lower() for h in hub_ids}
    stored = dict(ModelEntry.objects.annotate(lower=Lower("hub_id")).filter(lower__in=wanted)
                  .values_list("lower", "hub_id")) if wanted else {}
    return {h: stored.get(h.lower(), h) for h in hub_ids}


def model_results(*, hub_id):
    """A model's results of every protocol, newest first (its page lists them; boards never mix them)."""
    return list(visible_results(hub_id=model_hub_id(hub_id), protocol=None)
                .select_related("benchmark_version", "run__benchmark_version"))


def result_cells(*, result, levels=None):
    """Display cells of one run: [{variant, level, key, name, n, correct, accuracy, ci95...}]; sealed: overall only."""
    aggs = result.aggregates.all()
    if display.is_sealed(result.split):
        aggs = aggs.filter(level=Level.OVERALL)
    elif levels:
        aggs = aggs.filter(level__in=levels)
    return [{"variant": a.variant, "level": a.level, "key": a.key, "name": a.name,
             **display.cell(split=result.split, n=a.n, correct=a.correct)} for a in aggs]


def model_history(*, hub_id):
    """Runs oldest first, each with its primary-variant accuracy and the change from the previous run
    on the same benchmark, split and shots."""
    results = list(reversed(model_results(hub_id=hub_id)))
    primary = {r.pk: r.primary_variant for r in results}
    overall = {a.result_id: a for a in ResultAggregate.objects.filter(result__in=results, level=Level.OVERALL)
               if a.variant == primary[a.result_id]}
    previous, rows = {}, []
    for r in results:
        agg = overall.get(r.pk)
        cell = display.cell(split=r.split, n=agg.n if agg else 0, correct=agg.correct if agg else 0)
        acc = cell["accuracy"]  # as published: a sealed run's change is the difference of its published figures
        key = (r.benchmark.slug, r.split, r.shots, r.run.protocol)
        before = previous.get(key)
        rows.append({"run_id": r.run_id, "benchmark": r.benchmark.slug, "benchmark_version": r.benchmark_version.number,
                     "split": r.split, "shots": r.shots, "variant": r.primary_variant, "revision": r.revision,
                     "precision": r.precision, "scored_at": r.scored_at, **cell,
                     "previous_run_id": before[0] if before else None,
                     "accuracy_change": display.difference(split=r.split, before=before[1] if before else None,
                                                           after=acc)})
        if acc is not None:
            previous[key] = (r.run_id, acc)
    return rows


TOPIC_TABLE_CHUNK = 200  # results per aggregate query: rows stream out while later chunks are read


def topic_table(*, benchmark, split="validation", shots=0, variant="original", version=None, topics=(), models=()):
    """One row per (model, topic) for the leaderboard's models, by hub id; only the given topic slugs and hub ids
    (compared in any case) when named. Refused for the sealed split.

    A generator: the aggregates are read a chunk of results at a time, so the first rows go out
    before the last are read and memory stays flat however many models there are."""
    if display.is_sealed(split):
        raise SealedSplitError(display.SEALED_BREAKDOWN_NOTE)
    version = version or bench_selectors.version_current(benchmark=benchmark)
    results = _latest_per_revision(visible_results(benchmark_version=version, split=split, shots=shots))
    if models:
        wanted = {m.lower() for m in models}
        results = [r for r in results if r.hub_id.lower() in wanted]
    results.sort(key=lambda r: (r.hub_id, r.pk))
    aggregates = ResultAggregate.objects.filter(level=Level.TOPIC, variant=variant)
    if topics:
        aggregates = aggregates.filter(key__in=list(topics))
    for start in range(0, len(results), TOPIC_TABLE_CHUNK):
        chunk = {r.pk: r for r in results[start:start + TOPIC_TABLE_CHUNK]}
        cells = {}
        for result_id, key, name, n, correct in (aggregates.filter(result__in=list(chunk)).order_by("key")
                                                 .values_list("result_id", "key", "name", "n", "correct")):
            cells.setdefault(result_id, []).append((key, name, n, correct))
        for r in chunk.values():
            head = {"hub_id": r.hub_id, "revision": r.revision, "precision": r.precision, "run_id": r.run_id,
                    "benchmark": benchmark.slug, "split": split, "shots": shots, "variant": variant}
            for key, name, n, correct in cells.get(r.pk, ()):
                yield {**head, "topic": name, "topic_slug": key, **display.cell(split=split, n=n, correct=correct)}



def taxonomy_slugs(*, benchmark) -> dict[str, list[str]]:
    """category slug -> its topic slugs, in taxonomy order (the keys of category and topic aggregates)."""
    out = {}
    for topic in sorted(bench_selectors.topic_index(benchmark=benchmark),
                        key=lambda t: (t.subcategory.category.order, t.order)):
        out.setdefault(topic.subcategory.category.slug, []).append(topic.slug)
    return out


def known_models(*, benchmark, split, shots, hub_ids, version=None) -> set[str]:
    """The hub ids (lower case) among `hub_ids` that have a visible measured result on the board."""
    version = version or bench_selectors.version_current(benchmark=benchmark)
    return set(visible_results(benchmark_version=version, split=split, shots=shots)
               .annotate(lower=Lower("hub_id")).filter(lower__in=[h.lower() for h in hub_ids])
               .values_list("lower", flat=True).distinct())


def version_get(*, benchmark, number=None):
    """(version, valid numbers): the numbered version of a benchmark, or its current one when number is None."""
    if number is None:
        return bench_selectors.version_current(benchmark=benchmark), None
    numbers = list(benchmark.versions.order_by("number").values_list("number", flat=True))
    return (benchmark.versions.filter(number=number).first() if number in numbers else None), numbers


def result_get(*, run_id):
    """The visible result of one run, of any protocol (None if unknown, unscored, hidden, or of a hidden model)."""
    return visible_results(run_id=run_id, protocol=None).select_related("benchmark_version", "run").first()


def result_csv_rows(*, result):
    """A run's cells as rows of the model CSV (display rules applied; sealed: overall only)."""
    head = {"hub_id": result.hub_id, "run_id": result.run_id, "benchmark": result.benchmark.slug,
            "benchmark_version": result.benchmark_version.number, "split": result.split, "shots": result.shots,
            "revision": result.revision, "precision": result.precision}
    return [{**head, **cell} for cell in result_cells(result=result)]
