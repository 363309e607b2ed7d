"""Sealed mode (`SEALED=1`): episodes of the generated test split tell the agent only whether each action was valid.

A sealed step's reward carries no label signal: the `invalid_action` penalty when the action was
invalid, else 0.0, and on the step that ends the episode the episode's score as `episode_score`.
The reward's `components` and `cumulative`, the observation's `score_breakdown` and the state's
`cumulative_reward` add up these sealed rewards only. The agent's grade (the last step's
`info.grader`, `GET /grader`) keeps the score, the subscores and `passed`, and drops the per-ticket
`mistakes`. Everything else the agent sees depends only on its own actions, never on the truth.
A request with the trainer token sees the unsealed feedback.

Only the test split is sealed. Train and validation are for training, where per-step feedback
is the point. The fixed tasks are public: their truth ships with the package (`data/tasks/`), so
a score on them is never a held-out result and sealing them would hide nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Receive, Scope, Send

from openenv_bug_triage.contract import StepInfo, StepResult
from openenv_bug_triage.models import GraderResult, ObservationModel, RewardModel, StateModel

SEALED_SPLITS: frozenset[str] = frozenset({"test"})
INVALID_COMPONENT = "invalid_action"
SCORE_COMPONENT = "episode_score"

TRAINER_CONNECTION: ContextVar[bool] = ContextVar("bug_triage_trainer_connection", default=False)
"""True while serving a WebSocket whose handshake carried the trainer token (set by `TrainerWebSocket`)."""


def is_sealed(sealed_mode: bool, split: str | None) -> bool:
    """True when a server in `sealed_mode` seals an episode of `split` (None: a fixed task)."""
    return sealed_mode and split in SEALED_SPLITS


def sealed_grade(grade: GraderResult) -> GraderResult:
    """The agent's grade of a sealed episode: score, subscores and pass/fail, no per-ticket lines."""
    return grade.model_copy(update={"mistakes": []})


@dataclass
class SealedFeedback:
    """The running sealed feedback of one episode: its cumulative reward and component totals."""

    cumulative: float = 0.0
    breakdown: dict[str, float] = field(default_factory=dict)

    def step(self, result: StepResult) -> StepResult:
        """`result` as a sealed agent sees it; adds the sealed reward to the running totals."""
        components: dict[str, float] = {}
        if not result.info.action_valid:
            components[INVALID_COMPONENT] = result.reward.components.get(INVALID_COMPONENT, 0.0)
        grade = result.info.grader
        if grade is not None:
            components[SCORE_COMPONENT] = grade.score
        value = round(max(-1.0, min(1.0, sum(components.values()))), 10)
        self.cumulative = round(self.cumulative + value, 10)
        for name, amount in components.items():
            self.breakdown[name] = round(self.breakdown.get(name, 0.0) + amount, 10)
        reward = RewardModel(value=value, components=components, cumulative=self.cumulative)
        info = StepInfo.model_construct(
            **{**result.info.__dict__, "reward": reward, "grader": sealed_grade(grade) if grade else None}
        )
        return StepResult.of(self.observation(result.observation), info)

    def observation(self, observation: ObservationModel) -> ObservationModel:
        """`observation` with the sealed `score_breakdown`."""
        return observation.model_copy(update={"score_breakdown": dict(sorted(self.breakdown.items()))})

    def state(self, state: StateModel) -> StateModel:
        """`state` with the sealed `cumulative_reward`."""
        return state.model_copy(update={"cumulative_reward": self.cumulative})


class TrainerWebSocket:
    """ASGI middleware: a WebSocket whose handshake carries the trainer token is served with
    `TRAINER_CONNECTION` set, so its sealed episodes report the unsealed feedback."""

    def __init__(self, app: ASGIApp, is_trainer: Callable[[str | None], bool]) -> None:
        self.app = app
        self.is_trainer = is_trainer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        authorization = dict(scope["headers"]).get(b"authorization")
        trainer = self.is_trainer(authorization.decode("latin-1") if authorization is not None else None)
        token = TRAINER_CONNECTION.set(trainer)
        try:
            await self.app(scope, receive, send)
        finally:
            TRAINER_CONNECTION.reset(token)
