"""Fetch a dataset in the hub layout at a pinned revision through huggingface_hub."""
import importlib
from pathlib import Path

from .errors import BenchmarkImportError, ImportProblem

NETWORK_HINT = "check network access to the hub, or download the files and pass --path"


def _transport_errors() -> tuple:
    """Connection failures (refused, timeout, reset) of the HTTP client huggingface_hub uses.

    huggingface_hub lets them through unwrapped; httpx/httpx2 errors are not OSErrors
    (requests' were, for huggingface_hub < 1), so they are named here.
    """
    found = []
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError")):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            pass
    return tuple(found)


def download_hub_dataset(repo_id: str, revision: str, *, cache_dir=None) -> tuple[Path, str]:
    """Download the CSV files of a hub dataset; returns (local folder, resolved commit sha)."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import (
        GatedRepoError, HfHubHTTPError, HFValidationError, RepositoryNotFoundError, RevisionNotFoundError,
    )

    source = f"hub:{repo_id}@{revision}"

    def refused(message, hint):
        return BenchmarkImportError([ImportProblem(source, message, hint=hint)])

    try:
        info = HfApi().dataset_info(repo_id, revision=revision)
        folder = snapshot_download(repo_id, repo_type="dataset", revision=info.sha,
                                   allow_patterns=["*.csv", "**/*.csv"], cache_dir=cache_dir)
    except HFValidationError:
        raise refused("not a valid hub repository id",
                      "use ORG/NAME as the hub shows it, e.g. MBZUAI-LLM/Mobile-MMLU, not a URL") from None
    except GatedRepoError:  # before RepositoryNotFoundError, its parent
        raise refused("the dataset is gated and HF_TOKEN is unset or has no access to it",
                      "accept its conditions on the dataset's hub page, then set HF_TOKEN to a read token "
                      "of that account") from None
    except RepositoryNotFoundError:
        raise refused("dataset repository not found (or gated/private)",
                      "check the id, or set HF_TOKEN with read access") from None
    except RevisionNotFoundError:
        raise refused(f"revision {revision!r} not found", "use a branch, tag or commit sha that exists") from None
    except HfHubHTTPError as exc:  # e.g. 401 invalid token, 403 disabled, 5xx: say what the hub said
        status = getattr(getattr(exc, "response", None), "status_code", None)
        detail = getattr(exc, "server_message", None)
        raise refused(f"the hub answered HTTP {status or '?'}" + (f": {detail}" if detail else ""),
                      "check HF_TOKEN (an invalid token is refused even for a public dataset), or "
                      + NETWORK_HINT) from None
    except (OSError, *_transport_errors()) as exc:
        raise refused(f"download failed: {exc.__class__.__name__}", NETWORK_HINT) from None
    folder = Path(folder)
    if not folder.is_dir() or not any(folder.rglob("*.csv")):  # nothing matched: no folder was even made
        raise refused(f"no CSV files in the dataset at commit {info.sha}",
                      "the hub layout is test/<field>.csv with columns question_id,Question,A,B,C,D")
    return folder, info.sha
