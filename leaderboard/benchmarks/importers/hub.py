"""Fetch a dataset in the hub layout at a pinned revision through the hub client, its failures as import
problems."""
from pathlib import Path

from leaderboard.hub.client import HubClient
from leaderboard.hub.errors import HubError, HubHTTPError, InvalidRepoId, RepoGated, RepoNotFound, RevisionNotFound

from .errors import BenchmarkImportError, ImportProblem

NETWORK_HINT = "check network access to the hub, or download the files and pass --path"
QUESTION_FILES = ["*.csv", "**/*.csv", "*.parquet", "**/*.parquet"]  # what readers.folder_files may read


def download_hub_dataset(repo_id: str, revision: str, *, pattern: str | None = None,
                         cache_dir=None) -> tuple[Path, str]:
    """Download the CSV and Parquet files of a hub dataset (only those matching ``pattern``, a glob, if given);
    returns (local folder, resolved commit sha)."""
    source = f"hub:{repo_id}@{revision}"
    try:
        folder, sha = HubClient().dataset_snapshot(repo_id, revision, allow_patterns=[pattern] if pattern
                                                   else QUESTION_FILES, cache_dir=cache_dir)
    except HubError as error:
        message, hint = _words(error, revision)
        raise BenchmarkImportError([ImportProblem(source, message, hint=hint)]) from None
    if not folder.is_dir() or not any(p.suffix in (".csv", ".parquet") for p in folder.rglob("*")):  # none matched
        matched = f"matching --files {pattern!r} " if pattern else ""
        raise BenchmarkImportError([ImportProblem(
            source, f"no CSV or Parquet files {matched}in the dataset at commit {sha}",
            hint="Mobile-MMLU's layout is test/<field>.csv, MMLU-Pro's data/<split>-*.parquet, MMLU-CF's "
                 "val/<Subject>_val.parquet (docs/operations.md)")])
    return folder, sha


def _words(error: HubError, revision: str) -> tuple[str, str]:
    """(message, hint) of a failed download, for whoever runs the import."""
    if isinstance(error, InvalidRepoId):
        return ("not a valid hub repository id",
                "use ORG/NAME as the hub shows it, e.g. MBZUAI-LLM/Mobile-MMLU, not a URL")
    if isinstance(error, RepoGated):
        return ("the dataset is gated and HF_TOKEN is unset or has no access to it",
                "accept its conditions on the dataset's hub page, then set HF_TOKEN to a read token of that account")
    if isinstance(error, RepoNotFound):
        return "dataset repository not found (or gated/private)", "check the id, or set HF_TOKEN with read access"
    if isinstance(error, RevisionNotFound):
        return f"revision {revision!r} not found", "use a branch, tag or commit sha that exists"
    if isinstance(error, HubHTTPError):  # e.g. 401 invalid token, 403 disabled, 5xx: say what the hub said
        return (f"the hub answered HTTP {error.status or '?'}" + (f": {error.detail}" if error.detail else ""),
                "check HF_TOKEN (an invalid token is refused even for a public dataset), or " + NETWORK_HINT)
    return f"download failed: {error.detail}", NETWORK_HINT  # HubUnreachable: the failure's class name
