"""Install size and import time of the core install (pydantic alone) against the full one (`[all]`).

    python scripts/measure_install.py [--runs 5]

Builds the wheel, installs it into two fresh venvs with uv (`openenv-bug-triage` and
`openenv-bug-triage[all]`), and prints each venv's size on disk, its number of distributions, and
the median CPU time a fresh interpreter spends importing what that install is for: the in-process
and tool environments for the core, the server app for the full install.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from figures import run_writing

REPO = Path(__file__).resolve().parent.parent
IMPORTS = {
    "core": "import openenv_bug_triage, openenv_bug_triage.tools",
    "full": "import openenv_bug_triage, openenv_bug_triage.tools, openenv_bug_triage.server.app",
}


def venv_bytes(venv: Path) -> int:
    """Bytes of every regular file in the venv."""
    return sum(p.stat().st_size for p in venv.rglob("*") if p.is_file() and not p.is_symlink())


TIMED = "import time\nstarted = time.process_time()\n{statement}\nprint(time.process_time() - started)"


def import_seconds(python: Path, statement: str, runs: int, cwd: Path) -> float:
    """Median CPU seconds a fresh interpreter spends on `statement` (CPU time: the machine may be shared)."""
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [str(python), "-c", TIMED.format(statement=statement)], check=True, cwd=cwd, capture_output=True, text=True
        )
        times.append(float(out.stdout))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="imports timed per install (the median is shown)")
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in the docs")
    args = parser.parse_args()
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise SystemExit("uv is needed: pip install -r requirements-dev.txt")
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(scratch), str(REPO)],
            check=True,
            capture_output=True,
        )
        (wheel,) = scratch.glob("*.whl")
        empty = scratch / "venv-empty"
        subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(empty)], check=True)
        baseline = venv_bytes(empty)
        print(f"{'install':<8}{'MB on disk':>12}{'distributions':>15}{'import s':>10}   import")
        for name, extra in (("core", ""), ("full", "[all]")):
            venv = scratch / f"venv-{name}"
            subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(venv)], check=True)
            python = venv / "bin" / "python"
            subprocess.run(
                [uv, "pip", "install", "-q", "--compile-bytecode", "--python", str(python), f"{wheel}{extra}"],
                check=True,
            )
            listed = subprocess.run(
                [uv, "pip", "list", "--python", str(python), "--format", "freeze"],
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "NO_COLOR": "1"},
            ).stdout.split()
            size_mb = (venv_bytes(venv) - baseline) / 1e6
            seconds = import_seconds(python, IMPORTS[name], args.runs, scratch)
            print(f"{name:<8}{size_mb:>12.1f}{len(listed):>15}{seconds:>10.2f}   {IMPORTS[name]}")


if __name__ == "__main__":
    run_writing(main, "install_sizes", "measure_install.py")
