"""`BugTriageToolEnv`: the environment as one typed tool per action, for trainers such as TRL.

    from trl import GRPOTrainer
    from openenv_bug_triage.tools import BugTriageToolEnv, dataset_rows

    trainer = GRPOTrainer(model=..., train_dataset=Dataset.from_list(dataset_rows(...)),
                          environment_factory=BugTriageToolEnv)

TRL builds the class with no arguments, calls `reset(**row)` with every dataset column, offers
each other public method as a tool (described by its type hints and its `Args:` docstring), and
calls `get_reward()` when the rollout ends. The tool methods are made from the action union in
`models.py`: one per action type, named after it, with the model's fields as arguments and their
descriptions as the docstring, so a new action type needs no change here.

With `BUG_TRIAGE_ENV_URL` set to a server's URL, episodes run on that server over its WebSocket
instead of in this process; the text is the same either way.
"""

from __future__ import annotations

import inspect
import os
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from ..actions import ACTION_MODELS
from ..errors import EpisodeDoneError, InvalidMoveError, ResetNeededError
from ..models import ObservationModel
from .backends import Backend, LocalBackend, RemoteBackend, Turn
from .text import opening_text, refusal_text, step_text

ENV_URL_VARIABLE = "BUG_TRIAGE_ENV_URL"
"""Environment variable naming a server URL; when set, episodes run there over its WebSocket."""

RewardMode = Literal["score", "dense"]
TOOL_RETURNS = "What happened: the result, the step's reward, the queue entries that changed and the new focus."


def _parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """The model's fields as keyword-or-positional parameters: required ones first, optional ones default None."""
    required, optional = [], []
    for name, field in model.model_fields.items():
        if name == "action_type":
            continue
        if field.description is None:
            raise TypeError(f"{model.__name__}.{name} has no description; a tool argument needs one")
        if field.is_required():
            required.append(
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=field.annotation)
            )
        else:
            if field.default not in (None, PydanticUndefined) and field.default_factory is None:
                raise TypeError(f"{model.__name__}.{name}: an optional tool argument must default to None")
            if field.annotation is None:
                raise TypeError(f"{model.__name__}.{name} has no type annotation; a tool argument needs one")
            optional.append(
                inspect.Parameter(
                    name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=field.annotation | None
                )
            )
    return required + optional


def _docstring(model: type[BaseModel], params: list[inspect.Parameter]) -> str:
    if not model.__doc__:
        raise TypeError(f"{model.__name__} has no docstring; a tool needs a description")
    summary = inspect.cleandoc(model.__doc__).splitlines()[0]
    args = [f"    {p.name}: {model.model_fields[p.name].description}" for p in params]
    return "\n".join([summary, "", "Args:", *args, "", "Returns:", f"    {TOOL_RETURNS}"])


def tool_method(model: type[BaseModel]) -> Callable[..., str]:
    """A method that takes `model`'s fields as arguments and plays that action (None means leave it out)."""
    action_type: str = model.model_fields["action_type"].default
    params = _parameters(model)
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *params], return_annotation=str
    )

    def tool(self: BugTriageToolEnv, *args: Any, **kwargs: Any) -> str:
        bound = signature.bind(self, *args, **kwargs)
        fields = {k: v for k, v in bound.arguments.items() if k != "self" and v is not None}
        return self._act({"action_type": action_type, **fields})

    tool.__name__ = tool.__qualname__ = action_type
    tool.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    hints = typing.get_type_hints(tool)  # the same types without pydantic's constraint metadata
    tool.__annotations__ = hints
    # typeshed's function type does not declare `__signature__`, the attribute inspect.signature reads
    tool.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[signature.parameters["self"], *(p.replace(annotation=hints[p.name]) for p in params)]
    )
    tool.__doc__ = _docstring(model, params)
    return tool


class BugTriageToolEnv:
    """One triage episode per `reset`, played through one tool per action type.

    Tools (made from the action union): `classify`, `assign`, `mark_duplicate`, `request_info`,
    `defer`, `close`, `escalate_incident`, `next_ticket`. Each returns compact text; a move the
    environment judges invalid still costs its step and raises `InvalidMoveError`: the
    environment's message, the step's reward, and the steps left or how the episode ended
    (TRL shows it to the model). `get_reward()` is the episode's grader
    score in [0, 1] (0 if the rollout stopped before the episode ended); set `reward_mode =
    "dense"` on a subclass (or use `DenseRewardToolEnv`) for the sum of the per-step rewards.
    """

    reward_mode: ClassVar[RewardMode] = "score"

    def __init__(self) -> None:
        url = os.environ.get(ENV_URL_VARIABLE)
        self._backend: Backend = RemoteBackend(url) if url else LocalBackend()
        self._obs: ObservationModel | None = None
        self._turn: Turn | None = None

    def reset(
        self,
        task_id: str | None = None,
        seed: int | None = None,
        split: str | None = None,
        index: int | None = None,
        **columns: Any,
    ) -> str:
        """Start the episode a dataset row names and return the opening text (queue and focused ticket).

        `split` and `index` are passed on only when not None (a fixed task's row has `split` None);
        other columns (such as `prompt`) are the trainer's and are ignored.
        """
        options: dict[str, Any] = {"task_id": task_id, "seed": seed}
        options.update({k: v for k, v in (("split", split), ("index", index)) if v is not None})
        self._obs = self._backend.reset(**options)
        self._turn = None
        return opening_text(self._obs)

    def get_reward(self) -> float:
        """The rollout's reward: the grader score once the episode ended (else 0), or the summed step rewards."""
        turn = self._turn
        if self.reward_mode == "dense":
            return turn.cumulative if turn is not None else 0.0
        return turn.score if turn is not None and turn.score is not None else 0.0

    def _act(self, action: dict[str, Any]) -> str:
        if self._obs is None:
            raise ResetNeededError("Call reset() before using a tool.")
        if self._turn is not None and self._turn.done:
            raise EpisodeDoneError("The episode is over; stop calling tools.")
        before = self._obs
        turn = self._backend.step(action)
        self._obs, self._turn = turn.observation, turn
        ending = "terminated" if turn.terminated else "truncated" if turn.truncated else None
        if turn.error is not None:
            raise InvalidMoveError(refusal_text(turn.error, turn.observation, turn.reward, ending, turn.score))
        return step_text(before, turn.observation, turn.reward, ending, turn.score)


for _model in ACTION_MODELS:
    setattr(BugTriageToolEnv, _model.model_fields["action_type"].default, tool_method(_model))


class DenseRewardToolEnv(BugTriageToolEnv):
    """`BugTriageToolEnv` whose `get_reward()` is the sum of the per-step rewards."""

    reward_mode: ClassVar[RewardMode] = "dense"
