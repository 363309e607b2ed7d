"""Packaging: the wheel carries every data file, no top-level `server`, and plays from a fresh venv with the core dependencies alone (pydantic, rank-bm25)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import REPO, VENV_BIN, free_port

pytestmark = [pytest.mark.packaging, pytest.mark.slow]

PLAY = """
import importlib.util, json
from openenv_bug_triage import BugTriageEnv
from openenv_bug_triage.policies import oracle_actions
from openenv_bug_triage.tools import BugTriageToolEnv, prompt_messages
from openenv_bug_triage.world import DATA_DIR

env = BugTriageEnv()
env.reset(task_id="bug_triage_hard", seed=3)
for action in oracle_actions("bug_triage_hard"):
    _, _, done, info = env.step(action)
tools = BugTriageToolEnv()
tools.reset(task_id="bug_triage_easy", seed=1)
for action in oracle_actions("bug_triage_easy"):
    getattr(tools, action.pop("action_type"))(**action)
print(json.dumps({
    "done": done,
    "terminated": info["terminated"],
    "score": info["grader"]["score"],
    "tool_reward": tools.get_reward(),
    "handbook": "Larkspur triage handbook" in prompt_messages()[0]["content"],
    "data_dir": str(DATA_DIR),
    "importable": [m for m in ("server", "openenv", "fastapi", "openai", "httpx") if importlib.util.find_spec(m)],
}))
"""


def data_files() -> set[str]:
    """Every JSON and Markdown file under the repository's data/."""
    return {p.relative_to(REPO / "data").as_posix() for p in (REPO / "data").rglob("*") if p.suffix in (".json", ".md")}


def server_static_files() -> list[Path]:
    """Every file under server/static/ (the web playground's assets), if that folder exists."""
    return [p for p in (REPO / "server" / "static").rglob("*") if p.is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [str(VENV_BIN / "pip"), "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(REPO)],
        check=True,
        capture_output=True,
        cwd=out,
    )
    (built,) = out.glob("openenv_bug_triage-*.whl")
    yield built


def test_the_wheel_carries_all_data_and_no_top_level_server(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n.removeprefix("openenv_bug_triage/data/") for n in names if n.startswith("openenv_bug_triage/data/")}
    assert data_files() and data_files() <= shipped
    assert "openenv_bug_triage/server/app.py" in names
    static = {f"openenv_bug_triage/server/{p.relative_to(REPO / 'server').as_posix()}" for p in server_static_files()}
    assert static <= set(names)  # the web playground's files, when there are any
    assert {n.split("/")[0] for n in names} == {"openenv_bug_triage", wheel.name.split("-py3")[0] + ".dist-info"}
    meta = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/METADATA").decode()
    core = [line for line in meta.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    # Field(exclude_if=...) is pydantic 2.12; rank-bm25 ranks the live queues' tracker search
    assert core == ["Requires-Dist: pydantic<3,>=2.12", "Requires-Dist: rank-bm25>=0.2.2"]


def fresh_venv(tmp_path: Path, requirement: str) -> tuple[Path, Path]:
    """A new venv with `requirement` installed (by uv), and an empty directory outside the repository."""
    uv = shutil.which("uv", path=str(VENV_BIN)) or shutil.which("uv")
    assert uv, "uv comes with requirements-dev.txt"
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    subprocess.run([uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), requirement], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return venv, elsewhere


def test_the_wheel_plays_from_a_fresh_venv_outside_the_repo(wheel: Path, tmp_path: Path) -> None:
    venv, elsewhere = fresh_venv(tmp_path, str(wheel))
    python = str(venv / "bin" / "python")
    out = subprocess.run([python, "-c", PLAY], capture_output=True, text=True, cwd=elsewhere, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["done"] and result["terminated"] and result["score"] == 1.0 and result["tool_reward"] == 1.0
    assert result["handbook"]
    assert result["data_dir"].startswith(str(venv)) and result["data_dir"].endswith("openenv_bug_triage/data")
    assert result["importable"] == []  # pydantic alone: no server stack, no top-level `server`


def test_the_server_extra_serves_from_the_installed_package(wheel: Path, tmp_path: Path) -> None:
    venv, elsewhere = fresh_venv(tmp_path, f"{wheel}[server]")
    port = free_port()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "PORT": str(port), "HOST": "127.0.0.1"}
    proc = subprocess.Popen([str(venv / "bin" / "server")], cwd=elsewhere, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300  # importing the server stack is slow on a loaded machine
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        reset = httpx.post(f"http://127.0.0.1:{port}/reset", json={"task_id": "generated_hard", "seed": 3}, timeout=30)
        assert reset.status_code == 200 and reset.json()["observation"]["task_id"] == "generated_hard"
        secret = {"X-Episode-Secret": reset.json()["episode_secret"]}
        action = {"action": {"action_type": "next_ticket"}}
        step = httpx.post(f"http://127.0.0.1:{port}/step", json=action, headers=secret, timeout=30)
        assert step.status_code == 200 and set(step.json()["info"]) >= {"terminated", "truncated"}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
