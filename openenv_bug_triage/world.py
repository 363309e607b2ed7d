"""The fictional organisation: teams, components, ownership and the handbook's rules."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from .models import Priority, Severity, Tier

DATA_PACKAGE = "openenv_bug_triage.data"
"""The repository's `data/` as an installed package (the wheel maps it there)."""


def find_data_dir() -> Path:
    """Where the handbook, world and task fixtures are: the one place every loader reads data from.

    `BUG_TRIAGE_DATA_DIR` if set; else the `openenv_bug_triage.data` package (an installed wheel, or
    an editable install, which maps it to the repository's `data/`); else, in a checkout that is
    not installed (the Docker image), the `data/` directory beside this package.
    """
    override = os.environ.get("BUG_TRIAGE_DATA_DIR")
    if override:
        return Path(override)
    try:
        root = resources.files(DATA_PACKAGE)
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / "data"
    if not isinstance(root, Path):
        raise RuntimeError(f"{DATA_PACKAGE} must be installed as files on disk, found {root!r}")
    return root


DATA_DIR = find_data_dir()
"""Handbook, world and task fixtures (see `find_data_dir`)."""


@dataclass(frozen=True)
class World:
    """The organisation every task is set in, as `data/world.json` describes it."""

    teams: tuple[str, ...]
    components: tuple[str, ...]
    services: tuple[str, ...]
    owner: dict[str, str]
    service_of: dict[str, str]
    priority_rule: dict[str, dict[str, Priority]]
    escalate_severities: frozenset[str]
    escalate_environment: str

    def priority_for(self, severity: Severity, tier: Tier) -> Priority:
        """The handbook's priority for a severity and a customer tier."""
        return self.priority_rule[severity][tier]

    def needs_escalation(self, severity: Severity, environment: str) -> bool:
        """True when the handbook requires `escalate_incident` for a bug to fix."""
        return severity in self.escalate_severities and environment == self.escalate_environment


def _read_world(path: Path) -> World:
    raw = json.loads(path.read_text(encoding="utf-8"))
    owner = {comp: team for comps in raw["services"].values() for comp, team in comps.items()}
    return World(
        teams=tuple(sorted(raw["teams"])),
        components=tuple(sorted(owner)),
        services=tuple(sorted(raw["services"])),
        owner=owner,
        service_of={comp: svc for svc, comps in raw["services"].items() for comp in comps},
        priority_rule=raw["priority_rule"],
        escalate_severities=frozenset(raw["escalate_severities"]),
        escalate_environment=raw["escalate_environment"],
    )


@cache
def load_world() -> World:
    """The world shipped in `data/world.json` (read once per process)."""
    return _read_world(DATA_DIR / "world.json")


@cache
def load_handbook() -> str:
    """The triage handbook that agents read (`data/handbook.md`)."""
    return (DATA_DIR / "handbook.md").read_text(encoding="utf-8")
