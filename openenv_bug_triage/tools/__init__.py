"""The environment as typed tools for LLM trainers (TRL's `environment_factory`), and dataset rows for them."""

from .dataset import EVAL_FIRST_SEED, dataset_rows, eval_rows, prompt_messages, train_rows
from .env import ENV_URL_VARIABLE, BugTriageToolEnv, DenseRewardToolEnv, tool_method

__all__ = [
    "ENV_URL_VARIABLE",
    "EVAL_FIRST_SEED",
    "BugTriageToolEnv",
    "DenseRewardToolEnv",
    "dataset_rows",
    "eval_rows",
    "prompt_messages",
    "tool_method",
    "train_rows",
]
