"""Baseline inference over the bug-triage tasks (the agent logic lives in `openenv_bug_triage.agents`).

python scripts/baseline_inference.py --model MODEL --seed 42            # LLM (OPENAI_API_KEY or HF_TOKEN)
python scripts/baseline_inference.py --agent heuristic                  # no model needed
python scripts/baseline_inference.py --agent heuristic --env-url http://127.0.0.1:8000
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openenv_bug_triage.agents.cli import main

if __name__ == "__main__":
    sys.exit(main())
