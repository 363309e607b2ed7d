"""openenv 0.10.0's `openenv validate`, static and over `--url`, from its own venv (openenv-core 0.3.0's
validator runs in tests/test_server_deploy.py; both packages install an `openenv` command, so they cannot share one).

The venv is cached at `.venv/openenv010` (inside `.venv`, which the validator leaves out of the source it hashes).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from server_helpers import REPO, VENV_BIN, LiveServer

OPENENV_010 = "openenv==0.10.0"
VENV_010 = REPO / ".venv" / "openenv010"


@pytest.fixture(scope="module")
def openenv010() -> Path:
    """The `openenv` command of openenv 0.10.0, installed into its own venv on first use."""
    command = VENV_010 / "bin" / "openenv"
    if not command.exists():
        uv = shutil.which("uv", path=str(VENV_BIN)) or shutil.which("uv")
        assert uv, "uv comes with requirements-dev.txt"
        subprocess.run([uv, "venv", "-q", "--allow-existing", "-p", sys.executable, str(VENV_010)], check=True)
        python = str(VENV_010 / "bin" / "python")
        subprocess.run([uv, "pip", "install", "-q", "--python", python, OPENENV_010], check=True, timeout=600)
    return command


def validate(command: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(command), "validate", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.slow  # installs openenv 0.10.0 from the package index on first use
def test_static_validation_passes_with_the_manifest(openenv010: Path) -> None:
    run = validate(openenv010, "--level", "static", "--skip-build")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS  static.manifest" in run.stdout and "Verdict: PASS" in run.stdout


@pytest.mark.slow  # installs openenv 0.10.0 from the package index on first use
def test_static_validation_fails_without_the_validation_block(openenv010: Path, tmp_path: Path) -> None:
    manifest = yaml.safe_load((REPO / "openenv.yaml").read_text())
    assert "validation" in manifest
    del manifest["validation"]
    (tmp_path / "openenv.yaml").write_text(yaml.safe_dump(manifest))
    run = validate(openenv010, str(tmp_path), "--level", "static", "--skip-build")
    assert run.returncode == 1 and "no `validation:` block" in run.stdout


@pytest.mark.slow  # installs openenv 0.10.0 from the package index on first use
def test_runtime_validation_passes_against_a_running_server(openenv010: Path, server: LiveServer) -> None:
    run = validate(openenv010, "--url", server.url)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("  PASS  ") == 6 and "Verdict: PASS" in run.stdout


def test_declared_task_counts_are_the_task_apis() -> None:
    from openenv_bug_triage import task_api

    declared = yaml.safe_load((REPO / "openenv.yaml").read_text())["validation"]["capabilities"]
    assert declared["task_api"] is True
    assert declared["declared_task_count"] == {s["name"]: task_api.num_tasks(s["name"]) for s in task_api.list_splits()}
