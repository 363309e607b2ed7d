"""Scenario kinds that make real triage hard, drawn at per-level rates (`Rates` in `levels.json`).

Exposures of customer data are told as traps: seen only in staging or development (still
sev0 and escalated), or retested clean on the current release (still a bug to fix, since a
leak that cannot be reproduced may still have happened).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalogue import Defect
from .facts import scope_options

if TYPE_CHECKING:
    from .plan import Planner, Slot

EXPOSURE_TRAPS: tuple[str, ...] = ("environment", "retest")
"""How an exposure is told: outside production, or with a passing retest on the current release."""


def exposure_slots(planner: Planner, defects: list[Defect], room: int) -> list[Slot]:
    """At most one bug to fix that exposes customer data, drawn at the level's `exposure` rate.

    The defect is taken out of `defects` (the planner's remaining ones) and its slot carries
    the trap it will be told as; `room` is how many bugs to fix are still to be drawn.
    """
    from .plan import Slot

    r = planner.rng
    if room < 1 or not r.random() < planner.level.rates.exposure:
        return []
    exposures = [d for d in defects if d.exposure]
    if not exposures:
        return []
    d = r.choice(exposures)
    defects.remove(d)
    return [Slot("defect", d, exposure_trap=r.choice(EXPOSURE_TRAPS))]


def place_exposure_traps(planner: Planner, slots: list[Slot]) -> None:
    """Tell each exposure trap: move it outside production, or give it a clean retest.

    Either way it is a user's or QA's report (not an alert), and its truth stays sev0, a bug
    to fix, escalated.
    """
    r = planner.rng
    for s in slots:
        if s.exposure_trap is None:
            continue
        s.monitoring = False
        if s.exposure_trap == "environment":
            s.environment = r.choice(["staging", "development"])
            s.scope = None
        else:
            if s.environment != "production":
                assert isinstance(s.scenario, Defect)
                s.environment, s.scope = "production", r.choice(scope_options(s.scenario))
            s.clean_retest = True
