"""The one Hugging Face hub client, on ``huggingface_hub``: model info, a capped file read, safetensors headers and
dataset downloads. Every failure leaves it as one of the ``HubError`` kinds of ``errors.py`` (``hub_errors``, the
one place huggingface_hub's exceptions and HTTP statuses are read), never as a huggingface_hub exception.

``token`` is as in huggingface_hub (None: the environment's HF_TOKEN / stored token; False: anonymous).
"""
from __future__ import annotations

import contextlib
import importlib
from pathlib import Path

from .errors import (
    FileTooLarge, HubAnswerUnreadable, HubHTTPError, HubUnreachable, InvalidRepoId, RepoDisabled, RepoGated,
    RepoNotFound, RevisionNotFound, SafetensorsUnreadable,
)


def transport_errors() -> tuple:
    """Connection failures of the HTTP client huggingface_hub uses (httpx2; httpx for older versions).

    They are not OSErrors, and huggingface_hub lets them through unwrapped.
    """
    found = []
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError")):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            pass
    return tuple(found)


@contextlib.contextmanager
def hub_errors():
    """huggingface_hub's exceptions as HubError kinds, most specific first (GatedRepoError is a
    RepositoryNotFoundError; every HTTP error is an OSError; HFValidationError is a ValueError)."""
    from huggingface_hub.errors import (
        DisabledRepoError, GatedRepoError, HfHubHTTPError, HFValidationError, RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    try:
        yield
    except HFValidationError as exc:
        raise InvalidRepoId(str(exc)) from None
    except GatedRepoError:
        raise RepoGated() from None
    except RepositoryNotFoundError:
        raise RepoNotFound() from None
    except RevisionNotFoundError:
        raise RevisionNotFound() from None
    except HfHubHTTPError as exc:  # 401 invalid token, 403, 429, 5xx: keep what the hub said
        status = getattr(getattr(exc, "response", None), "status_code", None)
        kind = RepoDisabled if isinstance(exc, DisabledRepoError) else HubHTTPError
        raise kind(status, getattr(exc, "server_message", None) or "") from None
    except (OSError, *transport_errors()) as exc:
        raise HubUnreachable(exc.__class__.__name__) from None
    except (ValueError, TypeError, KeyError) as exc:  # an answer that is not the JSON the client expects
        raise HubAnswerUnreadable(exc.__class__.__name__) from None


class HubClient:
    def __init__(self, *, token: str | bool | None = None, timeout: float | None = None):
        from huggingface_hub import HfApi

        self.api, self.token, self.timeout = HfApi(), token, timeout

    def model_info(self, hub_id: str, revision: str, *, expand: list[str]):
        """One request: the revision resolved to a commit sha, with the ``expand`` fields."""
        with hub_errors():
            return self.api.model_info(hub_id, revision=revision, expand=expand, token=self.token,
                                       timeout=self.timeout)

    def other_kind(self, hub_id: str) -> str | None:
        """'dataset' or 'space' when ``hub_id`` names one of those instead of a model (best effort)."""
        for kind in ("dataset", "space"):
            with contextlib.suppress(Exception):  # only a hint: any failure just means "no"
                if self.api.repo_exists(hub_id, repo_type=kind, token=self.token):
                    return kind
        return None

    def read_file(self, repo_id: str, filename: str, sha: str, *, max_bytes: int) -> bytes | None:
        """A file at ``sha``: one GET through huggingface_hub's session, header builder and error mapping (what
        ``model_info`` uses), never written to the cache; None if the file does not exist, FileTooLarge over the
        cap."""
        from huggingface_hub import hf_hub_url
        from huggingface_hub.errors import RemoteEntryNotFoundError
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        url = hf_hub_url(repo_id, filename, revision=sha)
        with hub_errors(), get_session().stream("GET", url, headers=build_hf_headers(token=self.token),
                                                timeout=self.timeout) as response:
            try:
                hf_raise_for_status(response)
            except RemoteEntryNotFoundError:
                return None
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > max_bytes:
                    raise FileTooLarge(max_bytes)
        return bytes(data)

    def read_range(self, repo_id: str, filename: str, sha: str, *, start: int, end: int) -> bytes:
        """Bytes ``start`` to ``end`` (inclusive) of a file at ``sha``: one ranged GET, as huggingface_hub reads
        safetensors headers (redirects to the CDN followed). A server that ignores the range is cut off after
        the bytes asked for, so a large file is never read whole."""
        from huggingface_hub import hf_hub_url
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        url = hf_hub_url(repo_id, filename, revision=sha)
        headers = {**build_hf_headers(token=self.token), "Range": f"bytes={start}-{end}"}
        wanted = end - start + 1
        with hub_errors(), get_session().stream("GET", url, headers=headers, timeout=self.timeout) as response:
            hf_raise_for_status(response)
            skip = start if response.status_code == 200 else 0  # the whole file came: drop what precedes start
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) >= skip + wanted:
                    break
        return bytes(data[skip:skip + wanted])

    def files_info(self, repo_id: str, paths: list[str], sha: str) -> dict[str, tuple[int, str | None]]:
        """path -> (size in bytes, sha256 if the file is stored with LFS else None), for the paths that exist."""
        with hub_errors():
            found = self.api.get_paths_info(repo_id, paths, revision=sha, token=self.token)
        return {item.path: (int(item.size), item.lfs.sha256 if getattr(item, "lfs", None) else None)
                for item in found if hasattr(item, "size")}

    def safetensors_counts(self, repo_id: str, sha: str) -> dict[str, int]:
        """Tensor elements per dtype, read from the safetensors headers by byte ranges (a few requests)."""
        from huggingface_hub.errors import NotASafetensorsRepoError, SafetensorsParsingError

        try:
            with hub_errors():
                metadata = self.api.get_safetensors_metadata(repo_id, revision=sha, token=self.token,
                                                             timeout=self.timeout)
        except (NotASafetensorsRepoError, SafetensorsParsingError) as exc:
            raise SafetensorsUnreadable(exc.__class__.__name__) from None
        return dict(metadata.parameter_count)

    def dataset_snapshot(self, repo_id: str, revision: str, *, allow_patterns: list[str],
                         cache_dir=None) -> tuple[Path, str]:
        """The files of a dataset matching ``allow_patterns``, downloaded at the commit ``revision`` resolves to
        (so a branch moving mid-download cannot mix two commits); returns (local folder, commit sha)."""
        from huggingface_hub import snapshot_download

        with hub_errors():
            info = self.api.dataset_info(repo_id, revision=revision, token=self.token, timeout=self.timeout)
            folder = snapshot_download(repo_id, repo_type="dataset", revision=info.sha, token=self.token,
                                       allow_patterns=allow_patterns, cache_dir=cache_dir)
        return Path(folder), info.sha
