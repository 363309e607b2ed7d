"""A real OpenAI-compatible HTTP server on loopback for tests, plus helpers to run the baseline script
(as a subprocess, or its `main` in this process).

`MockOpenAI` answers `POST /v1/chat/completions` by replaying a script of replies in order:
each entry is the reply text, or a `Fault` (an HTTP error status, or a delay longer than the
client's timeout). When the script runs out it answers `default` (a reply or a `Fault`).
Every request body is recorded in `requests`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from openenv_bug_triage.agents.cli import main

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "baseline_inference.py"
CLEARED_VARIABLES = ("OPENAI_API_KEY", "HF_TOKEN", "OPENAI_BASE_URL", "API_BASE_URL", "MODEL_NAME")


@dataclass(frozen=True)
class Fault:
    """An endpoint failure: answer `status` (with an optional Retry-After), after `delay` seconds."""

    status: int = 500
    delay: float = 0.0
    retry_after: str | None = None
    message: str = "scripted failure"


Entry = str | Fault


class MockOpenAI:
    """Scripted chat-completions server on 127.0.0.1 (a random free port), run in a thread."""

    def __init__(self, script: list[Entry] | None = None, default: Entry = '{"action_type": "next_ticket"}') -> None:
        self.script: deque[Entry] = deque(script or [])
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        """What OPENAI_BASE_URL should be."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> MockOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_entry(self, body: dict[str, Any]) -> Entry:
        """Record a request and pop the entry that answers it."""
        with self._lock:
            self.requests.append(body)
            return self.script.popleft() if self.script else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet."""

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                entry = mock.next_entry(body)
                if isinstance(entry, Fault):
                    time.sleep(entry.delay)
                    headers = {"Retry-After": entry.retry_after} if entry.retry_after is not None else None
                    self._send(entry.status, {"error": {"message": entry.message, "type": "server_error"}}, headers)
                    return
                self._send(200, completion(body.get("model", "mock"), entry, len(mock.requests)))

        return Handler


def completion(model: str, text: str, n: int) -> dict[str, Any]:
    """A chat.completion object whose only choice says `text`."""
    return {
        "id": f"chatcmpl-mock-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


@dataclass(frozen=True)
class ScriptRun:
    """A finished run of `scripts/baseline_inference.py`."""

    code: int
    stdout: str
    stderr: str

    def events(self, kind: str) -> list[str]:
        """The stdout lines of one event kind (`START`, `STEP` or `END`)."""
        return [line for line in self.stdout.splitlines() if line.startswith(f"[{kind}] ")]


def run_baseline(*args: str, env: dict[str, str] | None = None, timeout: float = 60.0) -> ScriptRun:
    """Run the baseline script as a subprocess with model variables cleared, then `env` added."""
    full_env = {k: v for k, v in os.environ.items() if k not in CLEARED_VARIABLES}
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return ScriptRun(proc.returncode, proc.stdout, proc.stderr)


def run_main(*args: str, env: dict[str, str] | None = None) -> ScriptRun:
    """What `run_baseline` does, in this process: the script's `main` with model variables cleared, then `env` added."""
    environ = {k: v for k, v in os.environ.items() if k not in CLEARED_VARIABLES}
    environ.update(env or {})
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args), environ)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return ScriptRun(code, out.getvalue(), err.getvalue())


def llm_env(mock: MockOpenAI, model: str = "mock-model") -> dict[str, str]:
    """Environment variables pointing the script's OpenAI client at `mock`."""
    return {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": mock.base_url, "MODEL_NAME": model}
