"""The GGUF files on the board that a device report can name, and how a report is matched to one.

A board file is a GGUF file with a visible scored run on an open split (results.selectors.visible_results: hidden
models, hidden submissions and uploaded predictions are left out), read as evaluations.gguf_make.file_facts reads
it: its name, bytes and sha256 (a split file's first part: its pin). Its identity is the model entry and the
sha256: two entries may hold the same bytes.

llama-bench prints no hash. Its ``model_size`` is ``llama_model_size``: the bytes of the file's tensors, not the
file's size (llama_bench.py). The server knows that figure of a file where its cost profile ran it
(evaluator/ondevice_profile.py records llama.cpp's ``model_size``), so a report without a sha256 matches by file name
and that exact size; a file never profiled is matched by its sha256 only.
"""
from dataclasses import dataclass, field

from django.db.models import Q

from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.evaluations.gguf_make import file_facts
from leaderboard.results.selectors import visible_results

LLAMACPP = "llamacpp"


@dataclass(frozen=True)
class BoardFile:
    model_id: int
    hub_id: str
    sha256: str
    name: str  # the file's name: the last part of its path in the repository, or the name of a file made here
    bytes: int | None
    model_size: int | None  # llama.cpp's bytes of its tensors, from the server's cost profile; None if unknown
    profile: dict = field(default_factory=dict, compare=False)  # the server's cost profile ({} if none or failed)
    kv: dict = field(default_factory=dict, compare=False)  # the header's KV cache facts (GGUF intake), if stored


def _profile(run) -> dict:
    profile = (run.efficiency or {}).get("ondevice") or {}
    return {} if profile.get("error") else profile


def _kv(run) -> dict:
    """The KV cache facts GGUF intake read from a submitted file's header (hub/gguf_checks.kv_facts); {} for a file
    made here or submitted before they were kept."""
    return ((run.submission.gguf_facts or {}).get("kv") or {}) if run.submission_id else {}


def _results(where: Q | None = None, *, hub_id: str = ""):
    results = visible_results(protocol=None, run__backend=LLAMACPP, model__isnull=False) \
        .filter(where or Q()).exclude(split__in=SEALED_SPLITS)
    return results.filter(model__hub_id__iexact=hub_id) if hub_id else results


def board_file_keys() -> set[tuple[int, str]]:
    """(model entry, sha256) of every board file: a device report is shown only while its file is one. A hidden run,
    submission or model entry leaves the board (visible_results), and its reports with it."""
    rows = _results().values_list("model_id", "run__model_files__0__sha256", "run__gguf_recipe__sha256")
    return {(model_id, submitted or made) for model_id, submitted, made in rows if submitted or made}


def board_files(where: Q | None = None, *, hub_id: str = "") -> list[BoardFile]:
    """The board's GGUF files whose runs match `where` (a filter on results), one per model entry and sha256."""
    files = {}
    for result in _results(where, hub_id=hub_id):
        facts = file_facts(result.run)
        if not facts or not facts.get("sha256"):
            continue  # a file not made yet
        key = (result.model_id, facts["sha256"])
        known = files.get(key)
        files[key] = BoardFile(model_id=result.model_id, hub_id=result.model.hub_id, sha256=facts["sha256"],
                               name=facts["file"].rsplit("/", 1)[-1], bytes=facts.get("bytes"),
                               model_size=(known and known.model_size) or _profile(result.run).get("model_size"),
                               profile=(known and known.profile) or _profile(result.run),
                               kv=(known and known.kv) or _kv(result.run))
    return sorted(files.values(), key=lambda f: (f.hub_id.lower(), f.sha256))


def files_with_sha256(sha256: str, *, hub_id: str = "") -> list[BoardFile]:
    return board_files(Q(run__model_files__0__sha256=sha256) | Q(run__gguf_recipe__sha256=sha256), hub_id=hub_id)


def files_named(name: str, *, hub_id: str = "") -> list[BoardFile]:
    """The board files called `name` (the last part of a submitted file's path, or a made file's name)."""
    where = (Q(run__model_files__0__file=name) | Q(run__model_files__0__file__endswith=f"/{name}")
             | Q(run__gguf_recipe__file=name))
    return [f for f in board_files(where, hub_id=hub_id) if f.name == name]
