"""Per-step trajectories of a baseline run, as JSON Lines, for the playground's replay.

`scripts/baseline_inference.py --trajectory PATH` writes one `StepRecord` line per step and
one `EndRecord` line per episode, for every agent kind. Records hold only what the agent
saw and did and the agent-safe grade of the final step, never hidden truth, so a
trajectory can be shared or served. Same run, same bytes: no timings, fixed key order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..episode import Step
from ..models import GraderResult, ObservationModel, QueueEvent

TRAJECTORY_FORMAT: Final = "bug-triage-trajectory/1"
"""Written in every record, so a reader can refuse files of another kind or version."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["bug-triage-trajectory/1"] = TRAJECTORY_FORMAT
    task_id: str
    seed: int
    agent: str
    model: str


class SeenBrief(BaseModel):
    """What the agent was shown before it acted, in brief."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ticket_id: str | None
    ticket_title: str | None
    steps_used: int
    steps_remaining: int
    remaining_count: int
    sla_at_risk_count: int
    last_message: str | None

    @classmethod
    def of(cls, obs: ObservationModel) -> SeenBrief:
        """The brief of one observation."""
        ticket = obs.current_ticket
        last = obs.last_action_result
        return cls(
            ticket_id=ticket.ticket_id if ticket else None,
            ticket_title=ticket.title if ticket else None,
            steps_used=obs.steps_used,
            steps_remaining=obs.steps_remaining,
            remaining_count=obs.remaining_count,
            sla_at_risk_count=obs.sla_at_risk_count,
            last_message=last.message if last else None,
        )


class StepRecord(_Record):
    """One step: what the agent saw, the model's raw replies (none for policies), the action and its reward."""

    type: Literal["step"] = "step"
    step: int
    seen: SeenBrief
    replies: list[str]
    action: dict[str, Any]
    action_valid: bool
    error: str | None
    reward: float
    components: dict[str, float]
    cumulative: float
    message: str
    done: bool
    events: list[QueueEvent] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Live queues: what arrived and whose reporter answered after this step (left out when nothing did)."""
    found: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    """Live queues: the earlier tracker tickets this step's search found, best first (left out when none)."""


class EndRecord(_Record):
    """The end of an episode: its step count, total reward and agent-safe grade (None if the run stopped early)."""

    type: Literal["end"] = "end"
    steps: int
    total_reward: float
    grade: GraderResult | None
    error: str | None


TrajectoryRecord = Annotated[StepRecord | EndRecord, Field(discriminator="type")]
RECORD_ADAPTER: TypeAdapter[StepRecord | EndRecord] = TypeAdapter(TrajectoryRecord)


class TrajectoryWriter:
    """Appends records to a JSON Lines file, one flushed line each, so a run cut short leaves whole lines."""

    def __init__(self, path: Path, agent: str, model: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.agent = agent
        self.model = model
        self._file = path.open("w", encoding="utf-8", newline="\n")
        self._episode: dict[str, Any] = {}

    def start(self, task_id: str, seed: int) -> None:
        """An episode of `task_id` under `seed` begins."""
        self._episode = {"task_id": task_id, "seed": seed, "agent": self.agent, "model": self.model}

    def step(self, step: Step, replies: list[str]) -> None:
        """One step: the agent saw `step.seen`, replied `replies`, chose `step.action`; the environment answered."""
        result = step.observation.last_action_result
        self._write(
            StepRecord(
                **self._episode,
                step=step.number,
                seen=SeenBrief.of(step.seen),
                replies=list(replies),
                action=step.action,
                action_valid=bool(step.info["action_valid"]),
                error=step.info.get("error"),
                reward=step.reward.value,
                components=dict(step.reward.components),
                cumulative=step.reward.cumulative,
                message=result.message if result else "",
                done=step.done,
                events=list(step.observation.events),
                found=[e.ticket_id for e in step.observation.search_results],
            )
        )

    def end(self, steps: int, total_reward: float, grade: GraderResult | None, error: str | None) -> None:
        """The episode ended (`grade` set) or the run stopped (`error` set)."""
        self._write(
            EndRecord(**self._episode, steps=steps, total_reward=round(total_reward, 6), grade=grade, error=error)
        )

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __enter__(self) -> TrajectoryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, record: BaseModel) -> None:
        self._file.write(record.model_dump_json() + "\n")
        self._file.flush()


def read_trajectory(path: Path) -> list[StepRecord | EndRecord]:
    """Every record of a trajectory file, validated; raises `ValueError` naming the bad line."""
    records: list[StepRecord | EndRecord] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(RECORD_ADAPTER.validate_json(line))
        except ValueError as exc:
            raise ValueError(f"{path}, line {number}: not a trajectory record: {exc}") from None
    return records
