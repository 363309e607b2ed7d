"""The server on the other OpenEnv line: a throwaway venv with `openenv==0.10.0` and this package's
`server-openenv10` extra (installed from a freshly built wheel), the `server` command started there on a
loopback port, then episodes over HTTP and the WebSocket, the Task API, and both of 0.10's validators.

openenv 0.10 sends observation `metadata` on the wire and registers its own Task API routes: the frames
are checked for hidden truth and metadata, and the Task API for being served once, by this server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import REPO, VENV_BIN, ServerProcess, play_http, truth_names_in
from websockets.sync.client import connect

from openenv_bug_triage import task_api
from openenv_bug_triage.policies import OraclePolicy, oracle_actions, run_episode
from server.adapter import ENV_NAME

pytestmark = pytest.mark.slow

OPENENV_010 = "openenv==0.10.0"

CLIENT_EPISODE = """
import json
from openenv_bug_triage.client import WebSocketEnv
from openenv_bug_triage.policies import oracle_actions
from openenv_bug_triage.server.openenv_compat import installed_line

env = WebSocketEnv({url!r})
obs = env.reset(task_id="bug_triage_medium", seed=5)
for action in oracle_actions("bug_triage_medium"):
    obs, reward, done, info = env.step(action)
env.close()
line = installed_line()
print(json.dumps({{"done": done, "score": info["grader"]["score"], "line": [line.distribution, line.version]}}))
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding openenv 0.10.0 and this package with its `server-openenv10` extra, resolved together."""
    uv = shutil.which("uv", path=str(VENV_BIN)) or shutil.which("uv")
    assert uv, "uv comes with requirements-dev.txt"
    root = tmp_path_factory.mktemp("openenv010")
    subprocess.run(
        [str(VENV_BIN / "pip"), "wheel", "-q", "--no-deps", "--wheel-dir", str(root / "dist"), str(REPO)],
        check=True,
        capture_output=True,
        cwd=root,
    )
    (wheel,) = (root / "dist").glob("openenv_bug_triage-*.whl")
    venv = root / "venv"
    subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", python, OPENENV_010, f"{wheel}[server-openenv10]"],
        check=True,
        timeout=900,
    )
    return venv


@pytest.fixture(scope="module")
def server(venv: Path) -> Iterator[ServerProcess]:
    with ServerProcess([str(venv / "bin" / "server")], env={"MAX_SESSIONS": "8"}) as live:
        yield live


def run_in(venv: Path, code: str) -> Any:
    """Run `code` with the venv's Python outside the repository; its last stdout line, as JSON."""
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, cwd=venv, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_extra_installs_openenv_010_without_openenv_core(venv: Path) -> None:
    found = run_in(
        venv,
        "import json, importlib.metadata as m\n"
        "def v(name):\n    try: return m.version(name)\n    except m.PackageNotFoundError: return None\n"
        "print(json.dumps([v('openenv'), v('openenv-core'), v('pydantic-settings') is not None]))",
    )
    assert found == ["0.10.0", None, True]


def test_http_reset_and_step_play_a_whole_episode(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        played = play_http(http, OraclePolicy(), "bug_triage_hard", 4)
    assert played.grade == run_episode(OraclePolicy(), "bug_triage_hard", 4).agent_grade
    assert played.grade.score == 1.0
    for reply in played.responses:
        assert reply.status_code == 200 and truth_names_in(reply.text) == []
        assert reply.json()["observation"].get("metadata", {}) == {}


def test_a_websocket_episode_sends_no_metadata_and_no_truth(server: ServerProcess) -> None:
    frames: list[str] = []
    with connect(server.url.replace("http://", "ws://") + "/ws", max_size=None) as ws:
        ws.send(json.dumps({"type": "reset", "data": {"task_id": "bug_triage_easy", "seed": 9}}))
        frames.append(str(ws.recv(timeout=30)))
        for action in oracle_actions("bug_triage_easy"):
            ws.send(json.dumps({"type": "step", "data": action}))
            frames.append(str(ws.recv(timeout=30)))
        ws.send(json.dumps({"type": "state"}))
        frames.append(str(ws.recv(timeout=30)))
        ws.send(json.dumps({"type": "close"}))
    messages = [json.loads(frame) for frame in frames]
    assert [m["type"] for m in messages] == ["observation"] * (len(frames) - 1) + ["state"]
    last = messages[-2]["data"]
    assert last["done"] and last["observation"]["info"]["grader"]["score"] == 1.0
    for frame, message in zip(frames, messages, strict=True):
        assert truth_names_in(frame) == [], frame[:300]
        assert "metadata" not in message["data"]  # 0.10 adds it beside the observation only when non-empty
        assert message["data"].get("observation", {}).get("metadata", {}) == {}


def test_our_websocket_client_plays_on_openenv_010(venv: Path, server: ServerProcess) -> None:
    result = run_in(venv, CLIENT_EPISODE.format(url=server.url))
    assert result == {"done": True, "score": 1.0, "line": ["openenv", "0.10.0"]}


def test_the_task_api_is_served_once_and_by_this_server(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        paths = http.get("/openapi.json").json()["paths"]
        assert [p for p in paths if p.endswith("/splits")] == [f"/{ENV_NAME}/splits"]
        assert not [p for p in paths if "{" in p]  # not openenv's /{env_name}/... routes
        assert http.get("/list_environments").json() == [ENV_NAME]
        assert http.get(f"/{ENV_NAME}/splits").json() == task_api.list_splits()
        count = http.post(f"/{ENV_NAME}/num_tasks", json={"split": "validation"}).json()
        assert count == {"num_tasks": task_api.num_tasks("validation")}
        spec = http.post(f"/{ENV_NAME}/task", json={"split": "validation", "index": 3}).json()["task"]
        assert spec == task_api.get_task("validation", 3).model_dump(mode="json")
        bad = http.post(f"/{ENV_NAME}/task", json={"split": "validation", "index": 10**9})
        assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_task_index"
        assert http.get("/BugTriageEnvironment/splits").status_code == 404  # openenv's default name: not served
        reset = http.post("/reset", json={"split": "validation", "index": 3})
        assert reset.status_code == 200 and reset.json()["seed"] == spec["seed"]


def validate(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(venv / "bin" / "openenv"), "validate", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)


def test_openenv_010_static_validation_passes_in_the_repo(venv: Path) -> None:
    run = validate(venv, "--level", "static", "--skip-build")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Verdict: PASS" in run.stdout


def test_openenv_010_runtime_validation_passes_against_the_server(venv: Path, server: ServerProcess) -> None:
    run = validate(venv, "--url", server.url)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("  PASS  ") == 6 and "Verdict: PASS" in run.stdout
