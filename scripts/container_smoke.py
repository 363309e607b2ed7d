"""Container smoke test without a Docker daemon: do what the Dockerfile does, then play an episode.

    python scripts/container_smoke.py [--keep]

Reads the Dockerfile (not a copy of it): copies what its COPY lines copy (minus .dockerignore)
into a scratch root, installs its `requirements.txt` into a fresh virtual environment (with
`uv`, from PyPI or uv's cache), and runs its CMD there with its ENV, its WORKDIR and a free
PORT, as uid 1000 when run as root and a world-readable Python 3.11 exists (as in the image).
Then: `/health`, the HEALTHCHECK command, `/reset`, a whole heuristic episode over HTTP whose
grade must equal the in-process one, and a clean shutdown. Exit status 0 when all pass.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from openenv_bug_triage.episode import start  # noqa: E402
from openenv_bug_triage.errors import EnvServerError  # noqa: E402
from openenv_bug_triage.http_client import HttpEnvClient  # noqa: E402
from openenv_bug_triage.policies import HeuristicPolicy, run_episode  # noqa: E402

TASK_ID, SEED = "bug_triage_easy", 7
STARTUP_TIMEOUT_S = 300.0
CONTAINER_UID = 1000


class SmokeError(Exception):
    """The Dockerfile cannot be emulated, or the emulated container misbehaved."""


@dataclass
class Plan:
    """What the Dockerfile asks for, in the terms this emulator supports."""

    workdir: PurePosixPath = field(default_factory=lambda: PurePosixPath("/"))
    env: dict[str, str] = field(default_factory=dict)
    copies: list[tuple[list[str], str]] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    uid: int | None = None
    user: str | None = None
    exposed: list[int] = field(default_factory=list)
    healthcheck: list[str] | None = None
    cmd: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- Dockerfile


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined and comments dropped."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if full:
            word, _, rest = full.partition(" ")
            result.append((word.upper(), rest.strip()))
    if pending.strip():
        raise SmokeError("the Dockerfile ends inside a continued line")
    return result


def _command(args: str) -> list[str]:
    """An exec-form (JSON) or shell-form command as an argv list."""
    if args.startswith("["):
        argv = json.loads(args)
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
            raise SmokeError(f"exec-form command must be a non-empty JSON list of strings: {args}")
        return argv
    return ["/bin/sh", "-c", args]


def plan_from(text: str) -> Plan:
    """Interpret the Dockerfile; any instruction this emulator cannot honour is an error, not a skip."""
    plan = Plan()
    for word, args in instructions(text):
        if word == "FROM":
            if not args.startswith("python:3.11"):
                raise SmokeError(f"the emulator runs Python 3.11 images only, got FROM {args}")
        elif word == "ENV":
            plan.env.update(_env_pairs(args))
        elif word == "WORKDIR":
            plan.workdir = plan.workdir / args
        elif word == "COPY":
            parts = [p for p in shlex.split(args) if not p.startswith("--chown=")]
            if any(p.startswith("--") for p in parts) or len(parts) < 2:
                raise SmokeError(f"unsupported COPY form: COPY {args}")
            plan.copies.append((parts[:-1], parts[-1]))
        elif word == "RUN":
            _run_step(plan, args)
        elif word == "USER":
            plan.user = args
        elif word == "EXPOSE":
            plan.exposed += [int(p.split("/")[0]) for p in args.split()]
        elif word == "HEALTHCHECK":
            _, sep, cmd = args.partition("CMD ")
            if not sep:
                raise SmokeError("HEALTHCHECK must end with CMD ...")
            plan.healthcheck = _command(cmd.strip())
        elif word == "CMD":
            plan.cmd = _command(args)
        elif word in ("ENTRYPOINT", "ARG", "ADD", "VOLUME", "SHELL", "ONBUILD"):
            raise SmokeError(f"{word} is not emulated; teach scripts/container_smoke.py about it")
    if not plan.cmd:
        raise SmokeError("the Dockerfile has no CMD")
    return plan


def _env_pairs(args: str) -> dict[str, str]:
    parts = shlex.split(args)
    if len(parts) >= 2 and "=" not in parts[0]:
        return {parts[0]: " ".join(parts[1:])}
    pairs = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep:
            raise SmokeError(f"ENV expects KEY=value pairs, got {part!r}")
        pairs[key] = value
    return pairs


def _run_step(plan: Plan, args: str) -> None:
    argv = shlex.split(args)
    if argv[:2] == ["pip", "install"] and "-r" in argv:
        plan.requirements.append(argv[argv.index("-r") + 1])
    elif argv[:1] == ["useradd"] and "--uid" in argv:
        plan.uid = int(argv[argv.index("--uid") + 1])
    else:
        raise SmokeError(f"RUN {args!r} is not emulated; teach scripts/container_smoke.py about it")


# --------------------------------------------------------------------------- image


def _ignore_patterns(context: Path) -> list[str]:
    path = context / ".dockerignore"
    if not path.exists():
        return []
    patterns = [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    if any(p.startswith("!") for p in patterns):
        raise SmokeError(".dockerignore exceptions (!) are not emulated")
    return patterns


def _ignored(rel: str, patterns: list[str]) -> bool:
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        pattern = pattern.strip("/")
        if pattern.startswith("**/"):
            if any(fnmatch.fnmatch(part, pattern[3:]) for part in parts):
                return True
        elif any(fnmatch.fnmatch(prefix, pattern) for prefix in prefixes):
            return True
    return False


def build_root(plan: Plan, context: Path, root: Path) -> Path:
    """Lay out the image's files under `root`; returns the WORKDIR's path on disk."""
    patterns = _ignore_patterns(context)
    workdir = root / plan.workdir.relative_to("/")
    workdir.mkdir(parents=True, exist_ok=True)
    for sources, dest in plan.copies:
        target = workdir / dest if not dest.startswith("/") else root / dest.lstrip("/")
        into_dir = dest.endswith("/") or len(sources) > 1
        for src in sources:
            if _ignored(src, patterns):
                raise SmokeError(f"COPY {src}: .dockerignore excludes it")
            path = context / src
            if not path.exists():
                raise SmokeError(f"COPY {src}: no such file in the build context")
            if path.is_dir():
                shutil.copytree(
                    path,
                    target,
                    dirs_exist_ok=True,
                    ignore=lambda d, names: {
                        n for n in names if _ignored(str((Path(d) / n).relative_to(context)), patterns)
                    },
                )
            else:
                (target if into_dir else target.parent).mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target / path.name if into_dir else target)
    return workdir


def _world_readable(path: Path) -> bool:
    for part in [path, *path.parents]:
        mode = part.stat().st_mode
        if not mode & stat.S_IXOTH:
            return False
    return True


def pick_python() -> tuple[str, int | None]:
    """The interpreter for the venv, and the uid to run as (None: the current user)."""
    if os.geteuid() == 0:
        for candidate in ("/usr/local/bin/python3.11", "/usr/bin/python3.11"):
            if Path(candidate).exists() and _world_readable(Path(candidate).resolve().parent):
                return candidate, CONTAINER_UID
    return sys._base_executable, None  # type: ignore[attr-defined]


def make_venv(venv: Path, python: str, requirements: list[Path], log: Any) -> None:
    """A fresh virtual environment holding exactly the Dockerfile's requirement files."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise SmokeError("uv is needed to build the venv quickly: pip install -r requirements-dev.txt")
    started = time.monotonic()
    subprocess.run([uv, "venv", "-q", "-p", python, str(venv)], check=True)
    for req in requirements:
        subprocess.run(
            [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), "-r", str(req)], check=True
        )
    log(f"venv: {python} + {[r.name for r in requirements]} in {time.monotonic() - started:.1f} s")


# --------------------------------------------------------------------------- run


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(server: HttpEnvClient, proc: subprocess.Popen[bytes], timeout_s: float) -> float:
    """Seconds until GET /health answered healthy; raises if the process dies or time runs out."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if proc.poll() is not None:
            raise SmokeError(f"the server exited with status {proc.returncode} before becoming healthy")
        try:
            if server.get("/health") == {"status": "healthy"}:
                return time.monotonic() - started
        except EnvServerError:
            pass
        time.sleep(0.2)
    raise SmokeError(f"/health did not answer within {timeout_s:.0f} s")


def play_episode(server: HttpEnvClient) -> dict[str, Any]:
    """A whole heuristic episode over HTTP; its grade must equal the agent's copy of the in-process one."""
    try:
        episode = start(server, HeuristicPolicy(), TASK_ID, SEED).play()
        grade = server.grade()
    except EnvServerError as exc:
        raise SmokeError(str(exc)) from None
    expected = run_episode(HeuristicPolicy(), TASK_ID, SEED).agent_grade
    if grade != expected:
        raise SmokeError(f"/grader answered {grade}; in-process grade is {expected}")
    return {"steps": len(episode.steps), "score": grade.score}


def smoke(context: Path = REPO, keep: bool = False, log: Any = print) -> dict[str, Any]:
    """Run the whole smoke test; returns what it measured."""
    plan = plan_from((context / "Dockerfile").read_text())
    scratch = Path(tempfile.mkdtemp(prefix="container-smoke-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        os.chmod(scratch, 0o755)
        workdir = build_root(plan, context, scratch / "root")
        python, uid = pick_python()
        if plan.user is None or plan.uid is None:
            raise SmokeError("the Dockerfile must create a user with useradd --uid and switch to it with USER")
        make_venv(scratch / "venv", python, [workdir / r for r in plan.requirements], log)
        home = scratch / "home"
        home.mkdir()
        if uid is not None:
            os.chown(home, uid, uid)
        port = free_port()
        env = {
            "PATH": f"{scratch / 'venv' / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            **plan.env,
            "PORT": str(port),
        }
        out = (scratch / "server.log").open("wb")
        log(f"CMD {plan.cmd} in {plan.workdir} as uid {uid if uid is not None else os.geteuid()}, PORT={port}")
        proc = subprocess.Popen(
            plan.cmd,
            cwd=workdir,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            user=uid,
            group=uid,
            start_new_session=True,
        )
        server = HttpEnvClient(f"http://127.0.0.1:{port}", timeout=10)
        try:
            startup = wait_healthy(server, proc, STARTUP_TIMEOUT_S)
            log(f"/health healthy after {startup:.1f} s")
            if plan.healthcheck:
                subprocess.run(plan.healthcheck, cwd=workdir, env=env, check=True, user=uid, group=uid, timeout=30)
                log("HEALTHCHECK command passed")
            result = play_episode(server)
            log(f"episode: {result['steps']} steps over HTTP, score {result['score']}, equal to in-process")
        except Exception:
            out.flush()
            log((scratch / "server.log").read_text(errors="replace")[-4000:])
            raise
        finally:
            server.close()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        out.close()
        shutdown_logged = b"Application shutdown complete" in (scratch / "server.log").read_bytes()
        if code not in (0, -signal.SIGTERM) or not shutdown_logged:  # uvicorn re-raises SIGTERM once shut down
            raise SmokeError(f"the server did not shut down cleanly on SIGTERM (status {code})")
        log("server shut down cleanly on SIGTERM")
        return {"startup_s": startup, "uid": uid, **result}
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if keep:
            log(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args()
    try:
        smoke(keep=args.keep)
    except (SmokeError, subprocess.CalledProcessError) as exc:
        print(f"CONTAINER SMOKE FAILED: {exc}", file=sys.stderr)
        return 1
    print("container smoke passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
