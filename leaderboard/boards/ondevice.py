"""The On-device board (issue 24, section 5): one row per GGUF file on a benchmark's open validation split, with the
board's own figures (accuracy ± CI, flags) and the On-device columns (results/ondevice_facts.py): file, quantization,
size, change vs 16-bit, flip rate, prompt and generation tokens/s, time to first token, peak memory. Narrowed by
quantization and "fits in N GB", sorted, with the Pareto frontiers of accuracy against file size and against
generation speed among the files the filters keep (pareto.py). A file whose cost profile is unreliable (a noisy
measurement, `profile_reliable` false) keeps its figures in its row, marked, but is not placed on the speed frontier.

Flagged files (flags.py: flagged themselves, or through the model they were made from or name as base) are hidden by
default, as the board hides flagged models, and shown marked when asked for; shown or not, a flagged file is never
placed on a frontier: its accuracy is in doubt, and it would push honest files off.

Open split only: flips and KL per sealed question would tell which sealed questions a model gets right, so the
sealed split has no On-device view and no sealed row is read. "Fits in N GB" reads the file's size (GB = 10⁹ bytes):
every file has one and a phone must hold all of it; peak memory is a server CPU's measurement, shown beside it.
"""
from dataclasses import dataclass

from leaderboard.results.ondevice_facts import ondevice_facts

from . import pareto
from .selectors import board_rows

OPEN_SPLIT = "validation"
GGUF = "gguf"  # the precision of every GGUF run, submitted or made here
GB = 10**9
OPEN_SPLIT_NOTE = ("The On-device view is of the open validation split only: per-question flips and KL on the sealed "
                   "test split would tell which sealed questions a model gets right.")
FITS_NOTE = ("Fits in N GB: the file's size is at most N GB (10⁹ bytes). Peak memory, measured on a server CPU, is "
             "shown beside it.")
FRONTIER_NOTE = "Pareto frontier: no file is both {better} and more accurate"
_BOARD_COLUMNS = ("hub_id", "revision", "run_id", "params", "flagged", "possible_contamination", "flagged_via", "n",
                  "correct", "accuracy", "ci95_low", "ci95_high", "scored_at")
SORTS = {"accuracy": "accuracy", "name": "hub_id", "quantization": "quantization", "size": "file_bytes",
         "change": "accuracy_change", "flips": "flip_rate", "kl": "mean_kl", "prompt": "prompt_tokens_per_s",
         "gen": "gen_tokens_per_s", "ttft": "ttft_s", "memory": "peak_rss_bytes"}
DESCENDING_FIRST = {"accuracy", "change", "prompt", "gen"}  # best on top; costs and sizes smallest first
DEFAULT_SORT = "-accuracy"


def sort_names() -> list[str]:
    """Every sort the board accepts, each also with a leading '-' for descending."""
    return list(SORTS)


def ondevice_rows(*, benchmark, shots=0, version=None, rows=None) -> list[dict]:
    """Every GGUF file's row on the open board (the board's latest run per file revision) with the On-device columns,
    in board order. rows: the open board's rows (selectors.board_rows) when the caller already holds them."""
    if rows is None:
        rows = board_rows(benchmark=benchmark, split=OPEN_SPLIT, shots=shots, version=version)
    files = [r for r in rows if r["precision"] == GGUF]
    facts = ondevice_facts(run_ids=[r["run_id"] for r in files])  # sealed runs have none: they drop out
    return [{**{name: r[name] for name in _BOARD_COLUMNS}, **facts[r["run_id"]]} for r in files
            if r["run_id"] in facts]


def quantizations(rows) -> list[str]:
    """The file types on the board, sorted (what the quantization filter offers)."""
    return sorted({r["quantization"] for r in rows if r["quantization"]})


@dataclass(frozen=True)
class Filters:
    """quantization: file types (any case); fits_gb: the file's size at most this many GB (10⁹ bytes); flagged, as
    the board's filter (results.board.Filters): False hides flagged files (the default), None keeps them, True keeps
    only them."""

    quantization: tuple = ()
    fits_gb: float | None = None
    flagged: bool | None = False

    def keep(self, row, *, flagged=True) -> bool:
        if flagged and self.flagged is not None and row["flagged"] != self.flagged:
            return False
        if self.quantization and row["quantization"].upper() not in {q.upper() for q in self.quantization}:
            return False
        return self.fits_gb is None or (row["file_bytes"] is not None and row["file_bytes"] <= self.fits_gb * GB)


@dataclass
class View:
    rows: list[dict]  # the rows kept and searched, sorted, each with pareto_size / pareto_speed
    kept: list[dict]  # the rows the filters keep, in board order (the frontiers are among these; a search keeps them)
    total: int  # files on the board
    frontier_size: list  # run ids on accuracy × file size's frontier, smallest file first
    frontier_speed: list  # run ids on accuracy × generation speed's frontier, fastest first
    flagged_hidden: int = 0  # files the filters would keep but for being flagged


def _sort_key(name):
    column = SORTS[name]
    return (lambda r: r[column].lower()) if name in ("name", "quantization") else (lambda r: r[column])


def sort_rows(rows, sort=DEFAULT_SORT):
    """Sorted by `sort` ('-' first: descending); rows without that figure last either way; ties most accurate first,
    then by name."""
    name, descending = sort.lstrip("-"), sort.startswith("-")
    key = _sort_key(name if name in SORTS else "accuracy")
    tie = sorted(rows, key=lambda r: (-(r["accuracy"] or 0), r["hub_id"].lower()))
    known = [r for r in tie if key(r) not in (None, "")]
    known.sort(key=key, reverse=descending)  # stable: ties keep the order above
    return known + [r for r in tie if key(r) in (None, "")]


def trusted_speed(row):
    """The row's generation tokens/s where its profile can be trusted; None (not placed) for a noisy one."""
    return None if row["profile_reliable"] is False else row["gen_tokens_per_s"]


def placed(rows) -> list[dict]:
    """The rows a frontier is drawn among: flagged files are never placed (flags.py)."""
    return [r for r in rows if not r["flagged"]]


def view(rows, *, filters=Filters(), search="", sort=DEFAULT_SORT) -> View:
    """The board as a reader asked for it: the filters' rows with their frontiers (among the unflagged ones), then
    searched (by hub id or file name: the frontiers are unchanged) and sorted. `rows` (from ondevice_rows) are not
    modified."""
    eligible = [r for r in rows if filters.keep(r, flagged=False)]  # but for the flag filter
    kept = [r for r in eligible if filters.keep(r)]
    hidden = sum(1 for r in eligible if r["flagged"]) if filters.flagged is False else 0
    by_size = pareto.frontier([(r["run_id"], r["file_bytes"], r["accuracy"]) for r in placed(kept)])
    by_speed = pareto.frontier([(r["run_id"], trusted_speed(r), r["accuracy"]) for r in placed(kept)],
                               lower_is_better=False)
    size, speed, needle = set(by_size), set(by_speed), search.lower()
    kept = [{**r, "pareto_size": r["run_id"] in size, "pareto_speed": r["run_id"] in speed} for r in kept]
    shown = [r for r in kept if not needle or needle in r["hub_id"].lower() or needle in r["file"].lower()]
    return View(rows=sort_rows(shown, sort), kept=kept, total=len(rows), frontier_size=by_size,
                frontier_speed=by_speed, flagged_hidden=hidden)
