"""A real OpenAI-compatible chat-completions server on loopback, replying with crafted texts."""
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

QUESTION = re.compile(r"Question: (.*?)\n\nReturn only", re.S)


class JudgeServer:
    """reply(question) -> str or {"content": str, "top": [(token, prob), ...], "second": [(token, prob)]}.

    status_for(question) -> an HTTP status to answer instead (or None). Every request body is kept."""

    def __init__(self):
        self.reply = lambda question: "7"
        self.status_for = lambda question: None
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.refuse_logprobs = False
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"type": "not_found"}})
                question = QUESTION.search(body["messages"][0]["content"]).group(1)
                if server.refuse_logprobs and body.get("logprobs"):
                    return self._send(400, {"error": {"message": "logprobs are not supported", "type": "invalid"}})
                status = server.status_for(question)
                if status:
                    return self._send(status, {"error": {"message": f"failed on {question}", "type": "server"}})
                self._send(200, server.completion(body, server.reply(question)))

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        ThreadingHTTPServer.request_queue_size = 128  # concurrent judge requests must not overflow the backlog
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @staticmethod
    def completion(body, spec):
        if isinstance(spec, str):
            spec = {"content": spec}
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": spec["content"]}}
        if body.get("logprobs") and spec.get("top"):
            steps = []
            for key in ("top", "second"):
                if spec.get(key):
                    top = [{"token": t, "logprob": math.log(p)} for t, p in spec[key] if p > 0]
                    steps.append({"token": top[0]["token"], "logprob": top[0]["logprob"], "top_logprobs": top})
            choice["logprobs"] = {"content": steps}
        return {"id": "x", "object": "chat.completion", "model": body["model"], "system_fingerprint": "fp-test",
                "choices": [choice]}

    def questions(self):
        return [QUESTION.search(b["messages"][0]["content"]).group(1) for b in self.requests]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def judge_server():
    server = JudgeServer()
    yield server
    server.close()
