"""Agents that play the bug-triage tasks, and the baseline run that scores them.

`prompt` builds the LLM's messages from `prompt_template.md`; `reply` turns a model's reply
into a validated action; `chat` calls an OpenAI-compatible endpoint with retries; `llm` is
the LLM agent; `runner` plays the tasks with the package's one episode loop (`episode`),
in-process or over `http_client`; `artifact` writes the scores; `cli` is `scripts/baseline_inference.py`.
"""
