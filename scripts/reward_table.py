"""Print the reward components' table from `reward.COMPONENTS`; `--write` puts it in the docs.

python scripts/reward_table.py            # print the table
python scripts/reward_table.py --write    # also rewrite the docs' `figures:reward_table` block
"""

from __future__ import annotations

import sys

from figures import replace_blocks, report_written

from openenv_bug_triage.reward import reward_table


def block() -> str:
    """The `reward_table` figure block: the command that writes it, then the table."""
    return f"`python scripts/reward_table.py --write`:\n\n{reward_table()}\n"


def main() -> int:
    print(block(), end="")
    if "--write" in sys.argv[1:]:
        report_written("reward_table", replace_blocks("reward_table", block()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
