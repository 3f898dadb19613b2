"""Fetch a dataset in the hub layout at a pinned revision through huggingface_hub."""
from pathlib import Path

from .errors import BenchmarkImportError, ImportProblem


def download_hub_dataset(repo_id: str, revision: str, *, cache_dir=None) -> tuple[Path, str]:
    """Download the CSV files of a hub dataset; returns (local folder, resolved commit sha)."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    source = f"hub:{repo_id}@{revision}"
    try:
        info = HfApi().dataset_info(repo_id, revision=revision)
        folder = snapshot_download(repo_id, repo_type="dataset", revision=info.sha,
                                   allow_patterns=["*.csv", "**/*.csv"], cache_dir=cache_dir)
    except RepositoryNotFoundError:
        raise BenchmarkImportError([ImportProblem(source, "dataset repository not found (or gated/private)",
                                                  hint="check the id, or set HF_TOKEN with read access")]) from None
    except RevisionNotFoundError:
        raise BenchmarkImportError([ImportProblem(source, f"revision {revision!r} not found",
                                                  hint="use a branch, tag or commit sha that exists")]) from None
    except (HfHubHTTPError, OSError) as exc:
        raise BenchmarkImportError([ImportProblem(source, f"download failed: {exc.__class__.__name__}",
                                                  hint="check network access to the hub, or download the "
                                                       "files and pass --path")]) from None
    return Path(folder), info.sha
