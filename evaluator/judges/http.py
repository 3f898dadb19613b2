"""A judge behind any OpenAI-compatible chat-completions endpoint (vLLM's server, a hosted API).

One request per question, `concurrency` in flight, temperature 0. Log-probs are
asked for (`logprobs`, `top_logprobs`); a server that refuses them gets the same
request without, once, and the judge carries on with parsed replies (recorded in
describe()). The API key is read from the environment variable named by
`api_key_env` at call time and is never stored or logged.

Transient failures (connection errors, 408/429/5xx) are retried with backoff;
after `max_retries` the batch fails with a JudgeError whose message carries the
status code only: never the request (which holds a question) nor the body.
"""
from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence
from urllib.parse import urlsplit

from .base import JudgeError
from .parsing import Judgement, judgement_from_openai
from .prompt import PROMPT_VERSION, prompt_hash, render

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


def chat_completions_url(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise JudgeError(f"the judge endpoint must be an http(s) URL such as http://127.0.0.1:8000/v1, got "
                         f"{endpoint!r}")
    url = endpoint.rstrip("/")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def endpoint_is_private(endpoint: str) -> bool:
    """True for loopback / private-network hosts (a self-hosted server), False for anything else."""
    import ipaddress

    host = (urlsplit(endpoint).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".internal") or "." not in host:
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


class HTTPJudge:
    kind = "http"

    def __init__(self, model: str, *, endpoint: str, revision: str = "", api_key_env: str = "MRSCORE_JUDGE_API_KEY",
                 logprobs: bool = True, top_logprobs: int = 20, concurrency: int = 8, timeout: float = 60.0,
                 max_retries: int = 3, retry_backoff: float = 1.0, max_tokens: int = 8, seed: int | None = 0) -> None:
        self.model, self.revision = model, revision or ""
        self.endpoint, self.url = endpoint, chat_completions_url(endpoint)
        self.api_key_env = api_key_env
        self.logprobs, self.top_logprobs = logprobs, top_logprobs
        self.concurrency, self.timeout = max(1, int(concurrency)), timeout
        self.max_retries, self.retry_backoff = max(0, int(max_retries)), retry_backoff
        self.max_tokens, self.seed = max_tokens, seed
        self.logprobs_refused = False
        self.fingerprints: set[str] = set()
        self.served_models: set[str] = set()
        self._lock = threading.Lock()

    # -- requests ----------------------------------------------------------------
    def _body(self, question: str, *, logprobs: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": render(question, rendering="chat")}],
            "temperature": 0, "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        if logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = self.top_logprobs
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        attempt = 0
        while True:
            request = urllib.request.Request(self.url, data=data, headers=self._headers(), method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = _error_code(exc)
                if exc.code == 400 and "logprobs" in body:
                    raise _LogprobsRefused() from None  # maybe; _one retries once without them
                if exc.code not in RETRY_STATUSES or attempt >= self.max_retries:
                    hint = " (is the API key set in $%s?)" % self.api_key_env if exc.code in (401, 403) else ""
                    raise JudgeError(f"judge endpoint answered HTTP {exc.code}{detail and ' ' + detail}{hint}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt >= self.max_retries:
                    reason = getattr(exc, "reason", exc)
                    raise JudgeError(f"judge endpoint unreachable after {attempt + 1} tries: "
                                     f"{reason.__class__.__name__}") from None
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise JudgeError("judge endpoint returned a body that is not JSON") from None
            time.sleep(self.retry_backoff * (2 ** attempt))
            attempt += 1

    def _one(self, question: str) -> Judgement:
        want = self.logprobs and not self.logprobs_refused
        try:
            payload = self._post(self._body(question, logprobs=want))
        except _LogprobsRefused:
            payload = self._post(self._body(question, logprobs=False))  # a second 400 is a JudgeError
            with self._lock:
                self.logprobs_refused = True
        try:
            choice = payload["choices"][0]
            reply = (choice.get("message") or {}).get("content")
            steps = (choice.get("logprobs") or {}).get("content") if choice.get("logprobs") else None
        except (KeyError, IndexError, TypeError, AttributeError):
            raise JudgeError("judge endpoint returned JSON without choices[0].message") from None
        with self._lock:
            if payload.get("system_fingerprint"):
                self.fingerprints.add(str(payload["system_fingerprint"])[:100])
            if payload.get("model"):
                self.served_models.add(str(payload["model"])[:200])
        return judgement_from_openai(reply if isinstance(reply, str) else None, steps)

    # -- protocol ----------------------------------------------------------------
    def judge(self, questions: Sequence[str]) -> list[Judgement]:
        if self.concurrency == 1 or len(questions) <= 1:
            return [self._one(q) for q in questions]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(questions))) as pool:
            return list(pool.map(self._one, questions))

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "endpoint_kind": "openai-compatible-http", "endpoint": self.endpoint,
            "model": self.model, "revision": self.revision,
            "mode": "logprobs" if self.logprobs and not self.logprobs_refused else "reply",
            "logprobs_refused": self.logprobs_refused,
            "prompt_version": PROMPT_VERSION, "prompt_rendering": "chat", "prompt_hash": prompt_hash("chat"),
            "served_models": sorted(self.served_models), "system_fingerprints": sorted(self.fingerprints),
            "api_key_env": self.api_key_env, "concurrency": self.concurrency,
        }


class _LogprobsRefused(Exception):
    pass


def _error_code(exc: urllib.error.HTTPError) -> str:
    """The error's type/code fields of an OpenAI-style error body; never its free text."""
    try:
        body = json.loads(exc.read(4096).decode("utf-8", "replace"))
        err = body.get("error", body) if isinstance(body, dict) else {}
        if not isinstance(err, dict):
            return ""
        bits = [str(err[k])[:60] for k in ("type", "code", "param") if err.get(k)]
        return "(" + ", ".join(bits) + ")" if bits else ""
    except Exception:  # noqa: BLE001 - a broken error body must not mask the status code
        return ""
