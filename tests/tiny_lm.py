"""A tiny chat model and tokenizer built here, for real trainer steps on a CPU without downloading anything.

- The tokenizer is byte-level BPE (every text round-trips exactly) trained with the `tokenizers`
  library on the handbook and a few queues, to a vocabulary of `VOCAB_SIZE`, with Qwen's chat tokens
  and TRL's own copy of the Qwen 2.5 chat template, one TRL recognises for tool calls (it renders
  the tool schemas into the system message and parses `<tool_call>` JSON out of a reply).
- The model is a randomly initialised Qwen2 of two layers and 32 dimensions (about 70k weights).
- `ScriptedToolCaller` is that model with a script for sampling: in each group of generations the
  first member calls `next_ticket` with a ticket id read from its prompt's queue, the second
  answers without a tool, and after a tool result every member ends its turn. Only the sampled tokens are scripted; the trainer still computes the
  model's own log-probabilities of them and its gradients, so the step is a real one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
import trl
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LogitsProcessor, LogitsProcessorList, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

from openenv_bug_triage.tools import BugTriageToolEnv, train_rows
from openenv_bug_triage.tools.dataset import system_prompt

VOCAB_SIZE = 2048
CHAT_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TOOL_TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
CHAT_TEMPLATE = Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja"
SCRIPTED_TOOL = "next_ticket"
SCRIPTED_ANSWER = "Nothing to do."


def training_corpus() -> list[str]:
    """Text like the prompts': the system message and the opening queues of a few episodes."""
    env = BugTriageToolEnv()
    openings = [env.reset(**row) for row in train_rows(["bug_triage_easy", "generated_easy", "generated_hard"], 2)]
    return [system_prompt(), *openings]


def build_tokenizer() -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer with Qwen's chat tokens and TRL's Qwen 2.5 chat template."""
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=CHAT_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(training_corpus(), trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.add_tokens(TOOL_TAGS)
    tokenizer.chat_template = CHAT_TEMPLATE.read_text(encoding="utf-8")
    return tokenizer


def build_model(tokenizer: PreTrainedTokenizerFast, seed: int = 0) -> Qwen2ForCausalLM:
    """A randomly initialised two-layer Qwen2 for `tokenizer`'s vocabulary."""
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config)


def save_tiny_model(directory: Path) -> Path:
    """Build the tokenizer and model and save both to `directory`, loadable by path like any hub model."""
    tokenizer = build_tokenizer()
    build_model(tokenizer).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


class ScriptedTurns(LogitsProcessor):
    """Forces each sequence of one `generate` call through its scripted reply, token by token.

    Before any tool result, even rows call `next_ticket` on the second ticket of the queue in their
    prompt and odd rows answer without a tool; after a tool result every row answers and ends its turn.
    """

    def __init__(self, tokenizer: PreTrainedTokenizerFast) -> None:
        self.tokenizer = tokenizer
        self.tool_response = tokenizer.convert_tokens_to_ids("<tool_response>")
        self.replies: list[list[int]] = []

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
        return forced  # type: ignore[return-value]


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
