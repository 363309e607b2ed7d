"""A blind label audit of generated queues: export them as a reader sees them, then score the reader.

    python scripts/blind_audit.py export --out audit/ --queue generated_hard/test/41 --queue generated_medium/validation/7
    python scripts/blind_audit.py compare --key audit/key.json --labels audit/labels.json

`export` writes one Markdown file per queue (the release calendar and every ticket as the agent
sees it: no truth, no facts) and `key.json` beside them (the truth, for `compare` only: never
give it to the reader). The reader labels every ticket with the handbook (`data/handbook.md`)
alone and writes `labels.json`:

    {"generated_hard/test/41": {"LRK-13098": {"disposition": "fix", "duplicate_of": null,
        "severity": "sev2", "priority": "p2", "component": "reporting", "team": "data", "escalate": false}}}

`compare` prints agreement per label (severity, priority, component and team over the tickets both
the key and the reader call bugs to fix, the rest over every ticket) and each disagreement.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from openenv_bug_triage.generator import generate
from openenv_bug_triage.models import Ticket, Truth

FIX_LABELS = ("severity", "priority", "component", "team")
"""Labels that are compared only where the key and the reader both call the ticket a bug to fix."""
ALL_LABELS = ("disposition", "duplicate_of", "escalate")


def _ticket_md(t: Ticket) -> str:
    lines = [
        f"### {t.ticket_id}: {t.title}",
        "",
        f"- reporter_type: {t.reporter_type}; customer_tier: {t.customer_tier}; environment: {t.environment}",
        f"- service: {t.service}; component_candidates: {', '.join(t.component_candidates)}",
        f"- created_at: {t.created_at.isoformat()}; version: {t.version}; affected_users: {t.affected_users}",
        f"- repro_steps_present: {t.repro_steps_present}; logs_present: {t.logs_present}; "
        f"attachments_count: {t.attachments_count}; suspected_duplicate_ids: {', '.join(t.suspected_duplicate_ids)}; "
        f"sla_deadline_step: {t.sla_deadline_step}",
        "",
        t.description,
    ]
    if t.log_excerpt:
        lines += ["", "Log excerpt:", "```", t.log_excerpt, "```"]
    for c in t.comments:
        lines += ["", f"> comment by {c.author} ({c.role}) at {c.time.isoformat()}: {c.text}"]
    return "\n".join(lines)


def _labels(truth: Truth) -> dict[str, object]:
    return {
        "disposition": truth.disposition,
        "duplicate_of": truth.duplicate_of,
        "severity": truth.true_severity,
        "priority": truth.true_priority,
        "component": truth.true_component,
        "team": truth.true_assignee_team,
        "escalate": truth.should_escalate,
    }


def export(queues: list[str], out: Path) -> None:
    """Write each queue's reader file and the key of all of them."""
    out.mkdir(parents=True, exist_ok=True)
    key: dict[str, dict[str, dict[str, object]]] = {}
    for name in queues:
        task_id, split, seed = name.split("/")
        made = generate(task_id, int(seed), split)
        calendar = [
            f"- {r.platform} {r.version}: {r.released_at.isoformat()}" + "".join(f"\n  - {n}" for n in r.notes)
            for r in made.task.releases
        ]
        body = [f"# Queue {name}", "", "## Release calendar", "", *calendar, "", "## Tickets", ""]
        body += [_ticket_md(t) + "\n" for t in made.task.tickets]
        (out / f"{name.replace('/', '_')}.md").write_text("\n".join(body))
        key[name] = {t.ticket_id: _labels(made.task.truth[t.ticket_id]) for t in made.task.tickets}
    (out / "key.json").write_text(json.dumps(key, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(queues)} queues, {sum(map(len, key.values()))} tickets, to {out}")


def compare(key: dict[str, dict[str, dict[str, object]]], labels: dict[str, dict[str, dict[str, object]]]) -> int:
    """Print agreement per label and every disagreement; return the number of tickets not fully agreed."""
    agree: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    misses: list[str] = []
    tickets = full = 0
    for queue, truths in key.items():
        for ticket_id, truth in truths.items():
            given = labels.get(queue, {}).get(ticket_id)
            if given is None:
                misses.append(f"{queue} {ticket_id}: not labelled")
                tickets += 1
                continue
            both_fix = truth["disposition"] == "fix" and given.get("disposition") == "fix"
            wrong = []
            for label in ALL_LABELS + (FIX_LABELS if both_fix else ()):
                seen[label] += 1
                if given.get(label) == truth[label]:
                    agree[label] += 1
                else:
                    wrong.append(f"{label} {given.get(label)!r} (key {truth[label]!r})")
            tickets += 1
            full += not wrong
            if wrong:
                misses.append(f"{queue} {ticket_id}: " + "; ".join(wrong))
    print(f"tickets fully agreed: {full}/{tickets} ({full / tickets:.1%})" if tickets else "no tickets")
    for label in ALL_LABELS + FIX_LABELS:
        if seen[label]:
            print(f"  {label:<13} {agree[label]}/{seen[label]} ({agree[label] / seen[label]:.1%})")
    for line in misses:
        print("  -", line)
    return tickets - full


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="write reader files and the key")
    ex.add_argument("--queue", action="append", required=True, help="task/split/seed, e.g. generated_hard/test/41")
    ex.add_argument("--out", type=Path, required=True)
    cmp = sub.add_parser("compare", help="score a reader's labels against the key")
    cmp.add_argument("--key", type=Path, required=True)
    cmp.add_argument("--labels", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "export":
        export(args.queue, args.out)
        return 0
    compare(json.loads(args.key.read_text()), json.loads(args.labels.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
