"""Reads of results: leaderboard rows, a model's results, its history, per-topic tables, and the board of
submitted predictions.

Only RunResult / ResultAggregate / ReportedResult rows are read, never prediction chunks. Runs scored from
uploaded predictions are never measured rows: every measured view reads ``visible_results``, which leaves them
out; they are listed by ``submitted_predictions`` alone.
"""
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.contamination import selectors as contamination
from leaderboard.evaluations.models import UPLOAD_BACKEND, RunStatus
from leaderboard.submissions.models import ModelEntry
from leaderboard.submissions.models import size_class as size_class_of

from . import display
from .models import Level, ReportedResult, ResultAggregate, RunResult
from .ranking import significance_ranks
from .reference import PUBLISHED_N

ON_DEVICE_MAX_PARAMS = 3_000_000_000
SIZE_CLASSES = ("mini", "small", "medium", "large")
SORTS = {"rank": lambda r: (r["rank"], -(r["accuracy"] or 0), r["hub_id"]),
         "accuracy": lambda r: (r["accuracy"] or 0, r["hub_id"]),
         "name": lambda r: r["hub_id"].lower(),
         "params": lambda r: (r["params"] is None, r["params"] or 0, r["hub_id"])}


def _listed_results(**filters):
    """Succeeded, non-hidden runs' results (newest first), without sealed runs the Ladder rule did not show.
    The runs' bulky JSON (summary, probe rows) is deferred: boards list 1,000s of runs and never read it."""
    return (RunResult.objects.filter(run__status=RunStatus.SUCCEEDED, run__hidden=False, **filters)
            .exclude(run__submission__hidden=True).exclude(model__hidden=True)
            .exclude(run_id__in=contamination.withheld_test_runs())
            .select_related("run__submission", "model", "benchmark")
            .defer("run__summary", "run__probe_rows", "run__log_excerpt").order_by("-scored_at", "-pk"))


def visible_results(**filters):
    """The measured results: runs we evaluated. Uploaded predictions are left out (anyone may upload figures
    for their own models; they never stand in a model's measured row)."""
    return _listed_results(**filters).exclude(run__backend=UPLOAD_BACKEND)


def _attr(name):
    return lambda r: r[name] if isinstance(r, dict) else getattr(r, name)


_HUB, _REVISION, _PRECISION, _RUN = _attr("hub_id"), _attr("revision"), _attr("precision"), _attr("run_id")


def _latest_per_key(results):
    """Newest first in, the first of each (model, revision, precision) out; rows are objects or dicts."""
    seen, out = set(), []
    for r in results:
        key = (_HUB(r), _REVISION(r), _PRECISION(r))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def _shown_sealed(results, *, benchmark, shots):
    """One sealed-split row per (model, precision): the run the Ladder rule shows, else the latest."""
    shown = contamination.shown_test_runs(benchmark=benchmark, shots=shots)
    by_model = {}
    for r in results:  # newest first
        key = (_HUB(r), _PRECISION(r))
        if key not in by_model or shown.get(key) == _RUN(r):
            by_model[key] = r
    return list(by_model.values())


# The leaderboard reads plain values in one query (no model objects): it lists 1,000s of runs.
_BOARD_FIELDS = ("pk", "run_id", "hub_id", "revision", "precision", "scored_at", "run__flagged",
                 "run__submission_id", "run__submission__model_type", "model__params", "model__model_type",
                 "model__flagged")


def _board_values(*, benchmark, version, split, shots, variant):
    """The board's runs (latest per model revision; sealed: the Ladder's shown run per model) and their
    overall (correct, n)."""
    results = visible_results(benchmark_version=version, split=split, shots=shots).values(*_BOARD_FIELDS)
    # Sealed: choose among all of a model's runs, so a newer re-run of the same revision cannot displace
    # the shown one.
    results = (_shown_sealed(results, benchmark=benchmark, shots=shots) if display.is_sealed(split)
               else _latest_per_key(results))
    overall = dict(((a["result_id"], (a["correct"], a["n"])) for a in ResultAggregate.objects.filter(
        result__in=[r["pk"] for r in results], level=Level.OVERALL, variant=variant)
        .values("result_id", "correct", "n")))
    return results, overall


def _keep(row, *, size_class, on_device, model_type, precision, flagged):
    if size_class and row["size_class"] != size_class:
        return False
    if on_device and (row["params"] is None or row["params"] > ON_DEVICE_MAX_PARAMS):
        return False
    if model_type and row["model_type"] != model_type:
        return False
    if precision and row["precision"] != precision:
        return False
    return flagged is None or row["flagged"] == flagged


def leaderboard(*, benchmark, split="validation", shots=0, variant="original", size_class=None, on_device=False,
                model_type=None, precision=None, flagged=None, include_reported=False, search=None, sort="rank",
                version=None):
    """Rows ranked by significance among the filtered set (the name search does not change ranks)."""
    version = version or bench_selectors.version_current(benchmark=benchmark)
    results, overall = _board_values(benchmark=benchmark, version=version, split=split, shots=shots,
                                     variant=variant)
    ladder = contamination.ladder_notes(benchmark=benchmark, shots=shots) if display.is_sealed(split) else {}
    suspect = contamination.flags(benchmark=benchmark, shots=shots)
    rows = []
    for r in results:
        cell = overall.get(r["pk"])
        if cell is None:
            continue
        params = r["model__params"]
        contamination_flag = suspect.get((r["hub_id"], r["revision"], r["precision"]), False)
        kind = (r["run__submission__model_type"] if r["run__submission_id"] else r["model__model_type"]) or ""
        rows.append({"reported": False, "source": "measured", "hub_id": r["hub_id"], "revision": r["revision"],
                     "precision": r["precision"], "params": params, "size_class": size_class_of(params),
                     "model_type": kind, "flagged": bool(r["run__flagged"] or r["model__flagged"] or contamination_flag),
                     "possible_contamination": contamination_flag, "ladder_note": ladder.get(r["run_id"], ""),
                     "run_id": r["run_id"], "scored_at": r["scored_at"], "_cell": cell,
                     **display.cell(split=split, n=cell[1], correct=cell[0])})
    rows = [row for row in rows if _keep(row, size_class=size_class, on_device=on_device, model_type=model_type,
                                         precision=precision, flagged=flagged)]
    if include_reported:
        rows += _reported_rows(benchmark.slug, shots=shots, variant=variant)
    for row, rank in zip(rows, significance_ranks([row.pop("_cell") for row in rows])):
        row["rank"] = rank
    counts = {}
    for row in rows:
        counts[row["rank"]] = counts.get(row["rank"], 0) + 1
    for row in rows:
        row["tied"] = counts[row["rank"]] > 1
    if search:
        rows = [row for row in rows if search.lower() in row["hub_id"].lower()]
    descending = sort.startswith("-")
    rows.sort(key=SORTS.get(sort.lstrip("-"), SORTS["rank"]), reverse=descending)
    return rows


def _reported_rows(slug, *, shots, variant):
    """The paper's figures, labelled; n is the published set's size so they can be ranked on request."""
    n = PUBLISHED_N.get(slug, 0)
    out, seen = [], set()
    # Table 2 and Tables 3-4 both print `original` for seven models: Table 2 wins ("paper-table2" sorts first descending).
    for rep in ReportedResult.objects.filter(benchmark_slug=slug, shots=shots, variant=variant).order_by("-source"):
        if rep.hub_id in seen:
            continue
        seen.add(rep.hub_id)
        correct = round(rep.accuracy / 100 * n)
        out.append({"reported": True, "source": rep.get_source_display(), "hub_id": rep.hub_id, "revision": "",
                    "precision": "", "params": None, "size_class": None, "model_type": "", "flagged": False,
                    "run_id": None, "scored_at": None, "_cell": (correct, n), "n": n or None, "correct": None,
                    "accuracy": rep.accuracy, "ci95_low": None, "ci95_high": None})
    return out


SUBMITTED_PREDICTIONS = "submitted predictions"  # the label of every row scored from an uploaded file


def submitted_predictions(*, benchmark, split="validation", version=None):
    """The board of uploaded predictions: the latest upload per model name, best first, each labelled "submitted
    predictions" with its uploader and the measured board's display cells (accuracy, 95% interval). We scored the
    file but did not run the model, so these rows are never ranked with (or shown as) measured rows."""
    version = version or bench_selectors.version_current(benchmark=benchmark)
    uploads = (_listed_results(benchmark_version=version, split=split, run__backend=UPLOAD_BACKEND)
               .values("pk", "run_id", "hub_id", "scored_at", "primary_variant", "run__submission_id",
                       "run__submission__submitter__username"))
    latest, seen = [], set()
    for r in uploads:  # newest first
        if r["hub_id"] not in seen:
            seen.add(r["hub_id"])
            latest.append(r)
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


def model_results(*, hub_id):
    return list(visible_results(hub_id=model_hub_id(hub_id))
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
        key = (r.benchmark.slug, r.split, r.shots)
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


def topic_table(*, benchmark, split="validation", shots=0, variant="original", version=None):
    """One row per (model, topic) for the leaderboard's models, by hub id. Refused for the sealed split.

    A generator: the aggregates are read a chunk of results at a time, so the first rows go out
    before the last are read and memory stays flat however many models there are."""
    if display.is_sealed(split):
        raise PermissionError(display.SEALED_BREAKDOWN_NOTE)
    version = version or bench_selectors.version_current(benchmark=benchmark)
    results = sorted(_latest_per_key(visible_results(benchmark_version=version, split=split, shots=shots)),
                     key=lambda r: (r.hub_id, r.pk))
    for start in range(0, len(results), TOPIC_TABLE_CHUNK):
        chunk = {r.pk: r for r in results[start:start + TOPIC_TABLE_CHUNK]}
        cells = {}
        for result_id, key, name, n, correct in (ResultAggregate.objects
                                                 .filter(result__in=list(chunk), level=Level.TOPIC, variant=variant)
                                                 .order_by("key").values_list("result_id", "key", "name", "n",
                                                                              "correct")):
            cells.setdefault(result_id, []).append((key, name, n, correct))
        for r in chunk.values():
            head = {"hub_id": r.hub_id, "revision": r.revision, "precision": r.precision, "run_id": r.run_id,
                    "benchmark": benchmark.slug, "split": split, "shots": shots, "variant": variant}
            for key, name, n, correct in cells.get(r.pk, ()):
                yield {**head, "topic": name, "topic_slug": key, **display.cell(split=split, n=n, correct=correct)}


def reported_rows(*, benchmark_slug, shots=0, variant="original"):
    """The paper's figures for a benchmark slug (also ones not hosted here, e.g. "mmlu"), labelled and
    unranked (pages rank them with the board on request)."""
    rows = _reported_rows(benchmark_slug, shots=shots, variant=variant)
    for row in rows:
        row.pop("_cell")
    return rows


def version_get(*, benchmark, number=None):
    """(version, valid numbers): the numbered version of a benchmark, or its current one when number is None."""
    if number is None:
        return bench_selectors.version_current(benchmark=benchmark), None
    numbers = list(benchmark.versions.order_by("number").values_list("number", flat=True))
    return (benchmark.versions.filter(number=number).first() if number in numbers else None), numbers


def result_get(*, run_id):
    """The visible result of one run (None if unknown, unscored, hidden, or of a hidden model)."""
    return visible_results(run_id=run_id).select_related("benchmark_version", "run").first()


def result_csv_rows(*, result):
    """A run's cells as rows of the model CSV (display rules applied; sealed: overall only)."""
    head = {"hub_id": result.hub_id, "run_id": result.run_id, "benchmark": result.benchmark.slug,
            "benchmark_version": result.benchmark_version.number, "split": result.split, "shots": result.shots,
            "revision": result.revision, "precision": result.precision}
    return [{**head, **cell} for cell in result_cells(result=result)]
