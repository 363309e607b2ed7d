"""A tiny chat model and tokenizer built here, for real trainer steps on a CPU without downloading anything.

    python scripts/tiny_model.py artifacts/tiny-qwen2
    python scripts/train_grpo.py --model artifacts/tiny-qwen2 --cpu --max-steps 2 --num-generations 2 \
        --per-device-batch-size 2 --gradient-accumulation-steps 1 --max-completion-length 64 --eval-episodes 0

- The tokenizer is byte-level BPE (every text round-trips exactly) trained with the `tokenizers`
  library on the handbook and a few queues, to a vocabulary of `VOCAB_SIZE`, with Qwen's chat tokens
  and TRL's own copy of the Qwen 2.5 chat template, one TRL recognises for tool calls (it renders
  the tool schemas into the system message and parses `<tool_call>` JSON out of a reply).
- The model is a randomly initialised Qwen2 of two layers and 32 dimensions (about 85k weights):
  it writes noise, so a run checks the plumbing, never learning. `tests/tiny_lm.py` scripts its
  sampling to make tool calls.

Needs the training stack (`pip install -r requirements-train.txt`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import torch
import trl
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

from openenv_bug_triage.tools import BugTriageToolEnv, train_rows
from openenv_bug_triage.tools.dataset import system_prompt

VOCAB_SIZE = 2048
CHAT_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TOOL_TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
CHAT_TEMPLATE = Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja"


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
    with torch.random.fork_rng():  # the same weights for the same seed, and the global generator left as it was
        torch.manual_seed(seed)
        return Qwen2ForCausalLM(config)


def save_tiny_model(directory: Path) -> Path:
    """Build the tokenizer and model and save both to `directory`, loadable by path like any hub model."""
    tokenizer = build_tokenizer()
    build_model(tokenizer).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("directory", type=Path, help="where to save the model and tokenizer")
    args = p.parse_args(argv)
    save_tiny_model(args.directory)
    print(f"saved a tiny Qwen2 and its tokenizer to {args.directory}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
