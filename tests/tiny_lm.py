"""`ScriptedToolCaller`: the tiny model of `scripts/tiny_model.py` with a script for sampling.

In each group of generations the first member calls `next_ticket` with a ticket id read from its
prompt's queue, the second answers without a tool, and after a tool result every member ends its
turn. Only the sampled tokens are scripted; the trainer still computes the model's own
log-probabilities of them and its gradients, so a training step on them is a real one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList, PreTrainedTokenizerFast, Qwen2ForCausalLM

SCRIPTED_TOOL = "next_ticket"
SCRIPTED_ANSWER = "Nothing to do."


class ScriptedTurns(LogitsProcessor):
    """Forces each sequence of one `generate` call through its scripted reply, token by token.

    Before any tool result, even rows call `next_ticket` on the second ticket of the queue in their
    prompt and odd rows answer without a tool; after a tool result every row answers and ends its turn.
    """

    def __init__(self, tokenizer: PreTrainedTokenizerFast) -> None:
        self.tokenizer = tokenizer
        self.tool_response = tokenizer.convert_tokens_to_ids("<tool_response>")
        self.replies: list[list[int]] = []
        self.prompt_length = 0

    def reply(self, row: int, prompt: torch.Tensor) -> list[int]:
        """The token ids row `row` emits, ending with the end-of-turn token."""
        text = SCRIPTED_ANSWER
        if row % 2 == 0 and not bool((prompt == self.tool_response).any()):
            text = scripted_call(self.tokenizer.decode(prompt))
        return [*self.tokenizer.encode(text, add_special_tokens=False), self.tokenizer.eos_token_id]

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if not self.replies:
            self.replies = [self.reply(row, ids) for row, ids in enumerate(input_ids)]
            self.prompt_length = input_ids.shape[1]
        position = input_ids.shape[1] - self.prompt_length
        forced = torch.full_like(scores, float("-inf"))
        for row, reply in enumerate(self.replies):
            forced[row, reply[min(position, len(reply) - 1)]] = 0.0
        return forced


def scripted_call(prompt: str) -> str:
    """A `next_ticket` call naming the second ticket of the last queue in `prompt`."""
    queue = prompt.rsplit("<<<QUEUE>>>\n", 1)[1].split("<<<END QUEUE>>>", 1)[0]
    second = queue.splitlines()[1].split(" | ", 1)[0]
    arguments = json.dumps({"ticket_id": second})
    return f'<tool_call>\n{{"name": "{SCRIPTED_TOOL}", "arguments": {arguments}}}\n</tool_call>'


class ScriptedToolCaller(Qwen2ForCausalLM):
    """The tiny Qwen2 whose sampling follows `ScriptedTurns`; its forward pass (and so training) is untouched."""

    script_tokenizer: PreTrainedTokenizerFast

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["logits_processor"] = LogitsProcessorList([ScriptedTurns(self.script_tokenizer)])
        return super().generate(*args, **kwargs)


def load_scripted(directory: Path) -> ScriptedToolCaller:
    """The model saved in `directory`, loaded with the script for sampling."""
    model = ScriptedToolCaller.from_pretrained(directory)
    model.script_tokenizer = PreTrainedTokenizerFast.from_pretrained(directory)
    return model
