"""A fake Hugging Face Hub: a real HTTP server on 127.0.0.1 that huggingface_hub talks to as if it were the hub.

Tests never touch the network. This server answers the endpoints huggingface_hub 2.4 calls for
``HfApi.dataset_info`` / ``model_info`` / ``repo_info``, ``list_repo_tree``, ``get_paths_info``,
``list_repo_refs``, ``auth_check``, ``whoami``, ``file_exists``, ``snapshot_download``, ``hf_hub_download``
and ``get_safetensors_metadata`` (``resolve`` with HEAD, GET and byte ranges), with the headers the client
relies on (``X-Repo-Commit``, ``ETag``, ``X-Linked-Etag``, ``X-Linked-Size``, ``Content-Length``) and the
error headers it maps to its exceptions (``X-Error-Code: RepoNotFound`` / ``RevisionNotFound`` /
``EntryNotFound`` / ``GatedRepo``, ``X-Error-Message``).

Usage in a test (import the fixture into the test module, or into a conftest)::

    from tests.support.fake_hub import fake_hub, files_from_folder  # noqa: F401  (fake_hub is a fixture)

    def test_it_works(fake_hub, tmp_path):
        repo = fake_hub.add_repo("org/data", repo_type="dataset", files={"test/a.csv": b"question_id,...\\n"})
        folder = snapshot_download("org/data", repo_type="dataset")      # served by the fake hub
        assert repo.sha in folder                                         # main's commit sha

The ``fake_hub`` fixture starts the server, points huggingface_hub at it (``HF_ENDPOINT`` and the module
constants that were read at import time), gives it an empty ``HF_HOME`` / cache under ``tmp_path``, removes any
token from the environment, and turns off Xet, telemetry, progress bars and offline mode. Outside pytest use
``with fake_hub_session(home_dir) as hub: ...``, or ``with FakeHub() as hub:`` for the bare server.

Repositories
    ``hub.add_repo(repo_id, repo_type="dataset"|"model"|"space", files={path: bytes|str} or a folder,
    revisions={"main": sha, ...}, gated=False|"auto"|"manual", private=False, disabled=False,
    tokens=("hf_...",), card_data={...}, config={...}, safetensors={...} or an int, license="mit",
    tags=[...], info={...}, lfs=("*.safetensors", ...))`` returns a ``FakeRepo``.

    - ``revisions`` names the branches of the first commit (default: ``main`` with a sha derived from the
      content); ``repo.sha`` is main's commit. ``repo.commit(files, branch="main")`` adds a commit (moving the
      branch) and returns its sha; ``repo.tag("v1.0", sha)`` adds a git tag. Revisions resolve by branch or tag
      name, ``refs/heads/<name>``, ``refs/tags/<name>`` or a full 40-character sha; anything else is
      ``RevisionNotFound``.
    - Files are exactly those given. Like the hub, the repo info is derived from them: ``config`` from
      ``config.json``, ``cardData`` from the YAML front matter of ``README.md``, ``safetensors`` parameter counts
      from the headers of ``*.safetensors`` files (see ``safetensors_file``). The keyword arguments override
      what is derived (``safetensors=7_000_000`` means ``{"parameters": {"BF16": 7e6}, "total": 7e6}``);
      ``license`` goes into ``cardData`` and the ``license:<id>`` tag; ``info`` is merged last into the JSON of
      ``/api/<type>s/<id>`` (``library_name``, ``pipeline_tag``, ``baseModels``, ``transformersInfo``...).
    - Files matching ``lfs`` patterns (default: the weight and archive suffixes of the hub's default
      ``.gitattributes``) are reported as LFS files (``lfs`` in the tree, ``X-Linked-Etag`` = sha256).

Access, as on the hub
    - unknown repo, or private without access: ``401`` (anonymous) / ``404`` (with a token) + ``RepoNotFound``;
    - gated without access: the info, tree and refs are public, ``resolve`` answers ``401`` (anonymous) /
      ``403`` (token without access) + ``GatedRepo``;
    - ``tokens=`` grants those tokens access to the repo (``hub.add_token(token)`` registers a valid token with
      no grants); a token the hub does not know answers ``401 Invalid credentials in Authorization header``;
    - ``disabled=True``: ``403 Access to this resource is disabled.``
    Send a token with ``monkeypatch.setenv("HF_TOKEN", token)`` or the ``token=`` argument of the client.

``hub.requests`` records every request (``method``, ``path``, ``query``, ``headers``), so a test can check
what the client asked for, e.g. that downloads used the pinned sha and never ``main``. ``hub.stop()`` closes
the port and every open connection: the client then sees an unreachable hub (connection refused).

Not modelled: Xet storage (off in the fixture), CDN redirects (``resolve`` answers 200 itself, LFS files
included), pagination of trees (one page), pull-request refs, uploads/commits through the API.
"""
from __future__ import annotations

import base64
import contextlib
import fnmatch
import hashlib
import itertools
import json
import math
import mimetypes
import os
import re
import socket
import struct
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import pytest

REPO_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
DEFAULT_LFS = ("*.7z", "*.arrow", "*.bin", "*.bz2", "*.ckpt", "*.ftz", "*.gguf", "*.gz", "*.h5", "*.joblib",
               "*.lz4", "*.mlmodel", "*.model", "*.msgpack", "*.npy", "*.npz", "*.onnx", "*.ot", "*.parquet",
               "*.pb", "*.pickle", "*.pkl", "*.pt", "*.pth", "*.rar", "*.safetensors", "*.tar", "*.tflite",
               "*.tgz", "*.wasm", "*.xz", "*.zip", "*.zst", "*tfevents*")
SHA_RE = re.compile(r"[0-9a-f]{40}")
EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)
SAFETENSORS_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
                           "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


# --- helpers to build file contents ------------------------------------------

def files_from_folder(root) -> dict[str, bytes]:
    """``{relative/posix/path: bytes}`` for every file under ``root`` (e.g. one ``write_hub_folder`` wrote)."""
    root = Path(root)
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def json_file(obj) -> bytes:
    return json.dumps(obj, indent=2).encode()


def readme(card_data: dict | None = None, body: str = "") -> bytes:
    """A README.md with ``card_data`` as YAML front matter, as the hub writes model and dataset cards."""
    import yaml

    front = f"---\n{yaml.safe_dump(card_data, sort_keys=False)}---\n" if card_data else ""
    return (front + body).encode()


def safetensors_file(tensors: dict[str, tuple[str, list[int]]], metadata: dict | None = None) -> bytes:
    """A valid .safetensors file: ``{"name": ("BF16", [rows, cols])}``, zero-filled data."""
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        size = math.prod(shape) * SAFETENSORS_DTYPE_BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + bytes(offset)


def _safetensors_parameters(data: bytes) -> dict[str, int]:
    try:
        (length,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + length])
    except (struct.error, ValueError):
        return {}
    counts: dict[str, int] = {}
    for name, tensor in header.items():
        if name != "__metadata__":
            counts[tensor["dtype"]] = counts.get(tensor["dtype"], 0) + math.prod(tensor["shape"])
    return counts


def _card_data_from_readme(data: bytes) -> dict | None:
    import yaml

    text = data.decode("utf-8", "replace")
    match = re.match(r"---\s*\n(.*?)\n---\s*(\n|$)", text, re.S)
    if not match:
        return None
    try:
        loaded = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return None
    return loaded if isinstance(loaded, dict) else None


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


# --- repositories ------------------------------------------------------------

@dataclass(frozen=True)
class Blob:
    data: bytes
    lfs: bool

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def pointer(self) -> bytes:
        return f"version https://git-lfs.github.com/spec/v1\noid sha256:{self.sha256}\nsize {self.size}\n".encode()

    @property
    def oid(self) -> str:
        """The git blob id: of the file itself, or of its LFS pointer."""
        stored = self.pointer if self.lfs else self.data
        return hashlib.sha1(b"blob %d\0" % len(stored) + stored).hexdigest()

    @property
    def etag(self) -> str:
        return self.sha256 if self.lfs else self.oid


@dataclass
class Commit:
    sha: str
    files: dict[str, Blob]
    date: datetime
    title: str

    def folders(self) -> list[str]:
        found = set()
        for path in self.files:
            parts = path.split("/")[:-1]
            found.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
        return sorted(found)


@dataclass
class FakeRepo:
    repo_id: str
    repo_type: str = "dataset"
    private: bool = False
    gated: bool | str = False
    disabled: bool = False
    tokens: set = field(default_factory=set)
    card_data: dict | None = None
    config: dict | None = None
    safetensors: dict | int | None = None
    license: str | None = None
    tags: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    lfs: tuple = DEFAULT_LFS
    commits: dict = field(default_factory=dict)  # sha -> Commit
    branches: dict = field(default_factory=dict)  # name -> sha
    git_tags: dict = field(default_factory=dict)  # name -> sha
    created_at: datetime = EPOCH
    _counter: itertools.count = field(default_factory=itertools.count, repr=False)

    # -- writing

    @property
    def sha(self) -> str:
        """The commit ``main`` points at."""
        return self.branches["main"]

    def commit(self, files, *, branch: str | None = "main", sha: str | None = None, title: str = "Upload") -> str:
        """Add a commit holding exactly ``files`` (a dict or a folder); move ``branch`` to it; return its sha."""
        if isinstance(files, (str, Path)):
            files = files_from_folder(files)
        blobs = {}
        for path, content in (files or {}).items():
            data = content.encode() if isinstance(content, str) else bytes(content)
            blobs[path.strip("/")] = Blob(data, any(fnmatch.fnmatch(path, pattern) for pattern in self.lfs))
        number = next(self._counter)
        if sha is None:
            digest = hashlib.sha1(f"{self.repo_type}/{self.repo_id}#{number}".encode())
            for path in sorted(blobs):
                digest.update(f"{path}\0{blobs[path].oid}\n".encode())
            sha = digest.hexdigest()
        if not SHA_RE.fullmatch(sha):
            raise ValueError(f"a commit sha is 40 lower-case hex characters, not {sha!r}")
        self.commits.setdefault(sha, Commit(sha, blobs, EPOCH + timedelta(hours=number), title))
        if branch:
            self.branches[branch] = sha
        return sha

    def tag(self, name: str, sha: str | None = None) -> str:
        self.git_tags[name] = sha or self.sha
        return self.git_tags[name]

    # -- reading

    def resolve(self, revision: str) -> Commit | None:
        for prefix, refs in (("refs/heads/", self.branches), ("refs/tags/", self.git_tags)):
            if revision.startswith(prefix) and revision[len(prefix):] in refs:
                return self.commits[refs[revision[len(prefix):]]]
        sha = self.branches.get(revision) or self.git_tags.get(revision)
        if sha is None and SHA_RE.fullmatch(revision):
            sha = revision
        return self.commits.get(sha) if sha else None

    def entry(self, commit: Commit, path: str, *, expand: bool = False) -> dict | None:
        if path in commit.files:
            blob = commit.files[path]
            item = {"type": "file", "oid": blob.oid, "size": blob.size, "path": path}
            if blob.lfs:
                item["lfs"] = {"oid": blob.sha256, "size": blob.size, "pointerSize": len(blob.pointer)}
        elif path in commit.folders():
            item = {"type": "directory", "oid": hashlib.sha1(f"{commit.sha}:{path}".encode()).hexdigest(),
                    "size": 0, "path": path}
        else:
            return None
        if expand:
            item["lastCommit"] = {"id": commit.sha, "title": commit.title, "date": _iso(commit.date)}
            if item["type"] == "file":
                item["securityFileStatus"] = {"status": "safe", "avScan": {"virusFound": False, "virusNames": None},
                                              "pickleImportScan": None}
        return item

    def tree(self, commit: Commit, path: str, *, recursive: bool, expand: bool) -> list[dict] | None:
        path = path.strip("/")
        if path and path not in commit.folders():
            return None
        prefix = f"{path}/" if path else ""
        paths = [p for p in commit.folders() + sorted(commit.files) if p.startswith(prefix)]
        if not recursive:
            paths = [p for p in paths if "/" not in p[len(prefix):]]
        return [self.entry(commit, p, expand=expand) for p in paths]

    def info_json(self, commit: Commit, *, blobs: bool = False, expand: list[str] | None = None,
                  security: bool = False) -> dict:
        files = commit.files
        card_data = self.card_data
        if card_data is None and "README.md" in files:
            card_data = _card_data_from_readme(files["README.md"].data)
        if self.license:
            card_data = {**(card_data or {}), "license": self.license}
        tags = list(self.tags)
        if card_data and card_data.get("license") and f"license:{card_data['license']}" not in tags:
            tags.append(f"license:{card_data['license']}")
        siblings = []
        for path in sorted(files):
            sibling = {"rfilename": path}
            if blobs:
                blob = files[path]
                sibling.update(size=blob.size, blobId=blob.oid)
                if blob.lfs:
                    sibling["lfs"] = {"sha256": blob.sha256, "size": blob.size, "pointerSize": len(blob.pointer)}
            siblings.append(sibling)
        author = self.repo_id.split("/")[0] if "/" in self.repo_id else None
        data = {
            "_id": hashlib.sha1(self.repo_id.encode()).hexdigest()[:24],
            "id": self.repo_id,
            "author": author,
            "sha": commit.sha,
            "lastModified": _iso(commit.date),
            "createdAt": _iso(self.created_at),
            "private": self.private,
            "gated": self.gated,
            "disabled": self.disabled,
            "downloads": 0,
            "likes": 0,
            "tags": tags,
            "cardData": card_data,
            "siblings": siblings,
            "usedStorage": sum(blob.size for blob in files.values()),
        }
        if self.repo_type == "model":
            config = self.config
            if config is None and "config.json" in files:
                with contextlib.suppress(ValueError):
                    config = json.loads(files["config.json"].data)
            parameters = self.safetensors
            if parameters is None:
                counts: dict[str, int] = {}
                for path, blob in files.items():
                    if path.endswith(".safetensors"):
                        for dtype, n in _safetensors_parameters(blob.data).items():
                            counts[dtype] = counts.get(dtype, 0) + n
                parameters = {"parameters": counts, "total": sum(counts.values())} if counts else None
            elif isinstance(parameters, int):
                parameters = {"parameters": {"BF16": parameters}, "total": parameters}
            data.update(modelId=self.repo_id, config=config, spaces=[], library_name=None, pipeline_tag=None)
            if parameters:
                data["safetensors"] = parameters
            if security:
                data["securityRepoStatus"] = {"scansDone": True, "filesWithIssues": []}
        data.update(self.info)
        if expand:
            data = {key: value for key, value in data.items() if key in {"_id", "id", *expand}}
        return data


# --- the HTTP server ---------------------------------------------------------

@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str  # percent-decoded
    query: dict
    headers: dict  # lower-case names


class HubError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.headers = status, message, code, headers or {}


class FakeHub:
    """The server and its repositories. ``with FakeHub() as hub:`` runs it on a free port of 127.0.0.1."""

    def __init__(self):
        self.repos: dict[tuple[str, str], FakeRepo] = {}
        self.valid_tokens: set[str] = set()
        self.requests: list[SeenRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set = set()  # open keep-alive sockets, closed by stop()
        self.oauth_clients: dict[str, tuple[str, str]] = {}  # client id -> (secret, redirect URI)
        self.oauth_user: dict | None = None  # who is signed in on the hub's consent page
        self._oauth_codes: dict[str, dict] = {}  # code -> {client, redirect_uri, user}
        self._oauth_tokens: dict[str, dict] = {}  # access token -> the user's userinfo

    # -- registry

    def add_repo(self, repo_id: str, repo_type: str = "dataset", files=None, revisions: dict | None = None, *,
                 gated: bool | str = False, private: bool = False, disabled: bool = False, tokens=(),
                 card_data: dict | None = None, config: dict | None = None, safetensors=None,
                 license: str | None = None, tags=(), info: dict | None = None, lfs=DEFAULT_LFS) -> FakeRepo:
        if repo_type not in URL_PREFIX:
            raise ValueError(f"repo_type must be one of {sorted(URL_PREFIX)}")
        repo = FakeRepo(repo_id, repo_type, private=private, gated="auto" if gated is True else gated,
                        disabled=disabled, tokens=set(tokens), card_data=card_data, config=config,
                        safetensors=safetensors, license=license, tags=list(tags), info=dict(info or {}),
                        lfs=tuple(lfs))
        self.valid_tokens |= repo.tokens
        revisions = revisions or {"main": None}
        by_sha: dict = {}
        for name, sha in revisions.items():
            key = sha or object()
            if key not in by_sha:
                by_sha[key] = repo.commit(files, branch=None, sha=sha)
            repo.branches[name] = by_sha[key]
        self.repos[(repo_type, repo_id)] = repo
        return repo

    def repo(self, repo_id: str, repo_type: str = "dataset") -> FakeRepo:
        return self.repos[(repo_type, repo_id)]

    def add_token(self, token: str) -> str:
        self.valid_tokens.add(token)
        return token

    def add_oauth_client(self, client_id: str, secret: str, redirect_uri: str) -> None:
        self.oauth_clients[client_id] = (secret, redirect_uri)

    def oauth_sign_in(self, username: str, *, orgs=(), sub: str | None = None, email: str | None = None) -> dict:
        """The hub user who approves the next authorization request; `orgs`: (name, roleInOrg) pairs. Returns the
        userinfo the hub will answer, in its documented shape (OpenID Connect fields and HF's `orgs`)."""
        self.oauth_user = {
            "sub": sub or f"sub-{username}", "name": username.title(), "preferred_username": username,
            "profile": f"https://huggingface.co/{username}", "picture": "", "isPro": False,
            "orgs": [{"sub": f"sub-{name}", "name": name.title(), "preferred_username": name, "picture": "",
                      "isEnterprise": False, "roleInOrg": role} for name, role in orgs],
            **({"email": email, "email_verified": True} if email else {})}
        return self.oauth_user

    # -- lifecycle

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake hub is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeHub":
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Stop serving and drop open connections: afterwards the client sees a hub it cannot reach."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            for connection in list(self._connections):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            self._thread.join(timeout=5)
            self._server = self._thread = None

    def __enter__(self) -> "FakeHub":
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- request handling (called from the handler threads)

    def _caller(self, headers) -> str | None:
        auth = headers.get("authorization") or ""
        token = auth[len("bearer "):].strip() if auth.lower().startswith("bearer ") else None
        if token is not None and token not in self.valid_tokens:
            raise HubError(401, "Invalid credentials in Authorization header")
        return token

    def _visible_repo(self, repo_type: str, repo_id: str, token: str | None) -> FakeRepo:
        repo = self.repos.get((repo_type, repo_id))
        if repo is None or (repo.private and token not in repo.tokens):
            raise HubError(404 if token else 401, "Repository not found", "RepoNotFound")
        if repo.disabled:
            raise HubError(403, "Access to this resource is disabled.")
        return repo

    @staticmethod
    def _commit(repo: FakeRepo, revision: str) -> Commit:
        commit = repo.resolve(revision)
        if commit is None:
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return commit

    @staticmethod
    def _check_gate(repo: FakeRepo, token: str | None):
        if repo.gated and token not in repo.tokens:
            kind = "model" if repo.repo_type == "model" else repo.repo_type
            if token is None:
                raise HubError(401, f"Access to {kind} {repo.repo_id} is restricted. You must have access to it "
                                    "and be authenticated to access it. Please log in.", "GatedRepo")
            raise HubError(403, f"Access to {kind} {repo.repo_id} is restricted and you are not in the authorized "
                                f"list. Visit https://huggingface.co/{URL_PREFIX[repo.repo_type]}{repo.repo_id} "
                                "to ask for access.", "GatedRepo")

    def handle(self, method: str, raw_path: str, query: dict, headers: dict, body: bytes):
        """Returns (status, headers, body bytes)."""
        segments = [unquote(s) for s in raw_path.strip("/").split("/")] if raw_path.strip("/") else []
        if segments[:1] == ["oauth"]:
            return self._oauth(method, segments[1:], query, headers, body)
        token = self._caller(headers)
        if segments[:1] == ["api"]:
            return self._api(method, segments[1:], query, headers, body, token)
        return self._resolve(method, segments, headers, token)

    def _oauth(self, method, segments, query, headers, body):
        """The hub's OAuth 2 endpoints: authorize (the signed-in user approves at once), token, userinfo."""
        first = {k: v[0] for k, v in query.items()}
        if segments == ["authorize"]:
            client = self.oauth_clients.get(first.get("client_id", ""))
            if client is None or first.get("redirect_uri") != client[1] or first.get("response_type") != "code":
                raise HubError(400, "Invalid client_id, redirect_uri or response_type")
            code = f"code-{len(self._oauth_codes)}-{os.urandom(4).hex()}"
            self._oauth_codes[code] = {"client": first["client_id"], "redirect_uri": first["redirect_uri"],
                                       "user": self.oauth_user, "challenge": first.get("code_challenge")}
            location = f"{first['redirect_uri']}?{urlencode({'code': code, 'state': first.get('state', '')})}"
            return 302, {"Location": location}, b""
        if segments == ["token"] and method == "POST":
            form = {k: v[0] for k, v in _form(headers, body).items()}
            basic = headers.get("authorization") or ""
            if basic.lower().startswith("basic "):  # client_secret_basic: id and secret in the header
                client_id, _, client_secret = base64.b64decode(basic[6:]).decode().partition(":")
                form.update(client_id=unquote(client_id), client_secret=unquote(client_secret))
            grant = self._oauth_codes.pop(form.get("code", ""), None)
            secret = self.oauth_clients.get(form.get("client_id", ""), ("",))[0]
            if (grant is None or grant["client"] != form.get("client_id") or form.get("client_secret") != secret
                    or grant["redirect_uri"] != form.get("redirect_uri")
                    or (grant["challenge"] and not _pkce_ok(grant["challenge"], form.get("code_verifier", "")))):
                return _json({"error": "invalid_grant"}, 400)
            access = f"hf_oauth_{os.urandom(8).hex()}"
            self._oauth_tokens[access] = grant["user"]
            return _json({"access_token": access, "token_type": "Bearer", "expires_in": 28800,
                          "scope": "openid profile"})
        if segments == ["userinfo"]:
            auth = headers.get("authorization") or ""
            user = self._oauth_tokens.get(auth[len("bearer "):].strip() if auth.lower().startswith("bearer ") else "")
            if user is None:
                raise HubError(401, "Invalid credentials in Authorization header")
            return _json(user)
        raise HubError(404, "Not Found")

    def _api(self, method, segments, query, headers, body, token):
        if segments == ["whoami-v2"]:
            if token is None:
                raise HubError(401, "Invalid username or password.")
            return _json({"type": "user", "id": "fake-user-id", "name": "fake-user", "fullname": "Fake User",
                          "orgs": [], "auth": {"type": "access_token",
                                               "accessToken": {"displayName": "fake", "role": "read"}}})
        if segments == ["agent-harnesses"]:
            return _json({"standardEnvVars": [], "harnesses": {}})
        if len(segments) < 2 or segments[0] not in REPO_TYPES:
            raise HubError(404, "Not Found")
        repo_type, rest = REPO_TYPES[segments[0]], segments[1:]
        keywords = {"revision", "tree", "paths-info", "refs", "auth-check"}
        split = 2 if len(rest) >= 2 and rest[1] not in keywords else 1
        repo_id, tail = "/".join(rest[:split]), rest[split:]
        repo = self._visible_repo(repo_type, repo_id, token)
        flag = _truthy(query)

        if not tail or tail[0] == "revision":
            if method not in ("GET", "HEAD"):
                raise HubError(405, "Method not allowed")
            revision = "/".join(tail[1:]) if tail else "main"
            commit = self._commit(repo, revision)
            return _json(repo.info_json(commit, blobs=flag("blobs"), expand=query.get("expand"),
                                        security=flag("securityStatus")))
        if tail[0] == "tree" and len(tail) >= 2:
            commit = self._commit(repo, tail[1])
            entries = repo.tree(commit, "/".join(tail[2:]), recursive=flag("recursive"), expand=flag("expand"))
            if entries is None:
                raise HubError(404, "Entry not found", "EntryNotFound", {"X-Repo-Commit": commit.sha})
            return _json(entries)
        if tail[0] == "paths-info" and len(tail) >= 2 and method == "POST":
            commit = self._commit(repo, tail[1])
            form = _form(headers, body)
            expand = (form.get("expand") or ["false"])[0].lower() in {"1", "true"}
            found = (repo.entry(commit, p.strip("/"), expand=expand) for p in form.get("paths", []))
            return _json([item for item in found if item is not None])
        if tail == ["refs"]:
            def refs(names, kind):
                return [{"name": n, "ref": f"refs/{kind}/{n}", "targetCommit": s} for n, s in sorted(names.items())]

            return _json({"branches": refs(repo.branches, "heads"), "converts": [],
                          "tags": refs(repo.git_tags, "tags"), "pullRequests": []})
        if tail[:1] == ["auth-check"]:
            self._check_gate(repo, token)
            return _json({})
        raise HubError(404, "Not Found")

    def _resolve(self, method, segments, headers, token):
        if method not in ("GET", "HEAD"):
            raise HubError(405, "Method not allowed")
        repo_type = "model"
        if segments[:1] and segments[0] in REPO_TYPES and segments[0] != "models":
            repo_type, segments = REPO_TYPES[segments[0]], segments[1:]
        if len(segments) >= 4 and segments[2] == "resolve":
            repo_id, rest = "/".join(segments[:2]), segments[3:]
        elif len(segments) >= 3 and segments[1] == "resolve":
            repo_id, rest = segments[0], segments[2:]
        else:
            raise HubError(404, "Not Found")
        repo = self._visible_repo(repo_type, repo_id, token)
        commit = self._commit(repo, rest[0])
        self._check_gate(repo, token)
        path = "/".join(rest[1:])
        blob = commit.files.get(path)
        if blob is None:
            raise HubError(404, "Entry not found", "EntryNotFound", {"X-Repo-Commit": commit.sha})
        out = {
            "X-Repo-Commit": commit.sha,
            "ETag": f'"{blob.etag}"',
            "Accept-Ranges": "bytes",
            "Content-Type": mimetypes.guess_type(path)[0] or "application/octet-stream",
            "Content-Disposition": f'inline; filename="{path.rsplit("/", 1)[-1]}"',
        }
        if blob.lfs:
            out.update({"X-Linked-Etag": f'"{blob.sha256}"', "X-Linked-Size": str(blob.size)})
        data, status = blob.data, 200
        byte_range = _parse_range(headers.get("range"), blob.size)
        if byte_range is not None:
            start, end = byte_range
            data, status = blob.data[start:end + 1], 206
            out["Content-Range"] = f"bytes {start}-{end}/{blob.size}"
        return status, out, data


def _pkce_ok(challenge: str, verifier: str) -> bool:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == challenge


def _truthy(query):
    def flag(name):
        return any(v.lower() in {"1", "true"} for v in query.get(name, []))

    return flag


def _form(headers, body: bytes) -> dict:
    if "json" in (headers.get("content-type") or ""):
        payload = json.loads(body or b"{}")
        return {k: v if isinstance(v, list) else [str(v)] for k, v in payload.items()}
    return parse_qs(body.decode(), keep_blank_values=True)


def _parse_range(value: str | None, size: int):
    match = re.fullmatch(r"\s*bytes=(\d*)-(\d*)\s*", value or "")
    if not match or not (match.group(1) or match.group(2)) or size == 0:
        return None
    if match.group(1):
        start = int(match.group(1))
        end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
    else:  # suffix range: the last N bytes
        start, end = max(size - int(match.group(2)), 0), size - 1
    return (start, end) if start <= end else None


def _json(payload, status: int = 200):
    return status, {"Content-Type": "application/json; charset=utf-8"}, json.dumps(payload).encode()


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.1"  # keep-alive, like the hub; every response carries a Content-Length
    timeout = 30  # an idle keep-alive connection does not hold a thread for ever

    def setup(self):
        super().setup()
        self.hub._connections.add(self.connection)

    def finish(self):
        self.hub._connections.discard(self.connection)
        super().finish()

    def _serve(self):
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        query = parse_qs(split.query, keep_blank_values=True)
        self.hub.requests.append(SeenRequest(self.command, unquote(split.path), query, headers))
        try:
            status, out, data = self.hub.handle(self.command, split.path, query, headers, body)
        except HubError as error:
            out = {"Content-Type": "application/json; charset=utf-8", "X-Error-Message": error.message,
                   **error.headers}
            if error.code:
                out["X-Error-Code"] = error.code
            status, data = error.status, json.dumps({"error": error.message}).encode()
        except Exception as error:  # a bug in the fake: say so instead of hanging the client
            status, out, data = 500, {"Content-Type": "text/plain"}, f"fake hub error: {error!r}".encode()
        self.send_response(status)
        for name, value in out.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_POST = _serve

    def log_message(self, format, *args):  # quiet
        pass


# --- pointing huggingface_hub at the fake hub ---------------------------------

def point_huggingface_hub_at(monkeypatch: pytest.MonkeyPatch, endpoint: str, home) -> Path:
    """Make huggingface_hub use ``endpoint`` and an empty ``home``, with no token, Xet, telemetry or offline mode.

    huggingface_hub reads its environment once, at import, into ``huggingface_hub.constants`` (and a few
    modules copy values from there), so both the environment (for subprocesses) and the constants are patched.
    """
    from huggingface_hub import constants
    from huggingface_hub.utils import _http

    home = Path(home)
    cache = home / "hub"
    cache.mkdir(parents=True, exist_ok=True)
    host = urlsplit(endpoint).hostname

    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE", "HF_OIDC_ID_TOKEN", "HF_HUB_OFFLINE",
                 "TRANSFORMERS_OFFLINE", "HUGGINGFACE_CO_STAGING", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",
                 "HF_TOKEN_PATH", "HF_XET_CACHE", "HF_ASSETS_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    for name in ("NO_PROXY", "no_proxy"):
        current = os.environ.get(name, "")
        monkeypatch.setenv(name, ",".join(filter(None, [current, "127.0.0.1", "localhost"])))

    patches = {
        "ENDPOINT": endpoint,
        "HUGGINGFACE_CO_URL_TEMPLATE": endpoint + "/{repo_id}/resolve/{revision}/{filename}",
        "HF_URL_HOSTS": constants.HF_URL_HOSTS | {host},
        "HF_HOME": str(home),
        "HF_HUB_CACHE": str(cache),
        "HUGGINGFACE_HUB_CACHE": str(cache),
        "HF_ASSETS_CACHE": str(home / "assets"),
        "HUGGINGFACE_ASSETS_CACHE": str(home / "assets"),
        "HF_XET_CACHE": str(home / "xet"),
        "HF_TOKEN_PATH": str(home / "token"),
        "HF_STORED_TOKENS_PATH": str(home / "stored_tokens"),
        "AGENT_HARNESSES_PATH": str(home / ".agent_harnesses.json"),
        "HF_HUB_OFFLINE": False,
        "HF_HUB_DISABLE_XET": True,
        "HF_HUB_DISABLE_TELEMETRY": True,
        "HF_HUB_DISABLE_IMPLICIT_TOKEN": False,
    }
    for name, value in patches.items():
        if hasattr(constants, name):
            monkeypatch.setattr(constants, name, value)
    if hasattr(_http, "_HUB_ORIGINS"):
        monkeypatch.setattr(_http, "_HUB_ORIGINS", _http._HUB_ORIGINS | {_http._url_origin(endpoint)})
    with contextlib.suppress(ImportError):  # modules that copied a constant at import
        from huggingface_hub.utils import _cache_manager

        monkeypatch.setattr(_cache_manager, "HF_HUB_CACHE", str(cache))
    _http.close_session()  # the shared client is rebuilt with this environment (proxies) on first use
    return home


@contextlib.contextmanager
def fake_hub_session(home):
    """Outside pytest fixtures: a running FakeHub with huggingface_hub pointed at it until the block ends."""
    from huggingface_hub.utils import _http, are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    bars_were_off = are_progress_bars_disabled()
    with FakeHub() as hub, pytest.MonkeyPatch.context() as monkeypatch:
        point_huggingface_hub_at(monkeypatch, hub.url, home)
        disable_progress_bars()
        try:
            yield hub
        finally:
            _http.close_session()  # drop keep-alive connections to this server
            if not bars_were_off:
                enable_progress_bars()


@pytest.fixture
def fake_hub(tmp_path):
    """A running FakeHub; huggingface_hub talks to it, with an empty HF_HOME under tmp_path and no token."""
    with fake_hub_session(tmp_path / "hf-home") as hub:
        yield hub


@pytest.fixture
def hub_model(fake_hub, tiny_model_dir):
    """The tiny demo model published on the fake hub as demo-org/tiny, with a license."""
    files = files_from_folder(tiny_model_dir)
    files["README.md"] = b"---\nlicense: apache-2.0\n---\n# tiny\n"
    return fake_hub.add_repo("demo-org/tiny", repo_type="model", files=files, license="apache-2.0")
