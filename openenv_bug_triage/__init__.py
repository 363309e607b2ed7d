"""Bug Triage OpenEnv: an RL environment where an agent triages a queue of bug reports."""

from .actions import ActionModel
from .env import DEFAULT_SEED, BugTriageEnv
from .errors import BugTriageError, EpisodeDoneError, FixtureError, ResetNeededError, UnknownTaskError
from .models import GraderResult, ObservationModel, RewardModel, StateModel
from .sources import TaskInfo, TaskSource, load_task, register_source, task_infos
from .tasks import TASK_IDS

__version__ = "0.1.0"
__all__ = [
    "DEFAULT_SEED",
    "TASK_IDS",
    "ActionModel",
    "BugTriageEnv",
    "BugTriageError",
    "EpisodeDoneError",
    "FixtureError",
    "GraderResult",
    "ObservationModel",
    "ResetNeededError",
    "RewardModel",
    "StateModel",
    "TaskInfo",
    "TaskSource",
    "UnknownTaskError",
    "load_task",
    "register_source",
    "task_infos",
]
