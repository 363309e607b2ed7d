"""Print what the queue generator produces: speed, held-out overlap, duplicates, traps, variety, realism.

    python scripts/generator_stats.py                      # 40 instances per level and split
    python scripts/generator_stats.py --instances 200      # the figures of record (about a minute)
    python scripts/generator_stats.py --json               # the realism figures only, as JSON
    python scripts/generator_stats.py --check              # exit 1 when a realism figure misses its target

Every figure is measured on instances generated in this run (seeds 0 to N-1 of each split). The
realism table reads only what an agent sees (tickets) and the truth's component (to tell titles
about different things apart); `openenv_bug_triage.textstats` says how each figure is measured,
and holds the targets. The exit code is 0 whatever the figures, unless `--check` is given.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence

from figures import run_writing
from pydantic import BaseModel, ConfigDict

from openenv_bug_triage import textstats as ts
from openenv_bug_triage.catalogue import load_phrases
from openenv_bug_triage.generator import GeneratedTask, generate, label_samples
from openenv_bug_triage.generator.levels import partition_of
from openenv_bug_triage.generator.personas import load_personas
from openenv_bug_triage.generator.phrasing import pattern
from openenv_bug_triage.models import Ticket
from openenv_bug_triage.sources import TaskInfo, task_infos
from openenv_bug_triage.tasks import load_task_file
from openenv_bug_triage.world import DATA_DIR

SPLITS = ("train", "validation", "test")


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def timing(task_id: str, runs: int = 60) -> float:
    """Median CPU milliseconds to generate one instance (each seed is new, so nothing is cached).

    CPU time of this process, not wall time, so that other work on the machine does not count.
    """
    times = []
    for seed in range(10_000, 10_000 + runs):
        start = time.process_time()
        generate(task_id, seed, "train")
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def reference_timing(runs: int = 60) -> float:
    """Median CPU milliseconds to parse, check and build the fixed hard task from its JSON file."""
    path = DATA_DIR / "tasks" / "bug_triage_hard.json"
    times = []
    for _ in range(runs):
        start = time.process_time()
        load_task_file(path)
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


# --------------------------------------------------------------------------- realism figures


class Figure(BaseModel):
    """One measured figure beside its target."""

    model_config = ConfigDict(extra="forbid")

    key: str
    """The figure's key in `textstats.TARGETS`."""
    label: str
    values: dict[str, float]
    """Per split, or one entry when the figure is not per split."""
    worst: float
    target: str
    passed: bool
    notes: list[str] = []


class Report(BaseModel):
    """What `--json` prints."""

    model_config = ConfigDict(extra="forbid")

    instances: int
    tickets: dict[str, int]
    figures: list[Figure]
    passed: bool
    """True when every figure keeps its target."""


def figure(key: str, label: str, values: dict[str, float], notes: Sequence[str] = ()) -> Figure:
    """`values` judged by the worst of them against `TARGETS[key]` (no value at all: a failure, said in a note)."""
    if not values:
        return Figure(
            key=key,
            label=label,
            values={},
            worst=math.nan,
            target=str(ts.TARGETS[key]),
            passed=False,
            notes=["nothing to measure in this sample: raise --instances"],
        )
    target = ts.TARGETS[key]
    worst = max(values.values()) if target.at_most else min(values.values())
    return Figure(
        key=key,
        label=label,
        values=values,
        worst=worst,
        target=str(target),
        passed=target.passes(worst),
        notes=list(notes),
    )


def full_text(t: Ticket) -> str:
    """Everything a reader sees of a ticket's text: title, description, version and log excerpt."""
    return "\n".join(part for part in (t.title, t.description, t.version, t.log_excerpt) if part)


def reader_text(t: Ticket) -> str:
    """A ticket's text as a reader goes through it below the title: the description, then the comments."""
    return "\n".join([t.description, *(c.text for c in t.comments)])


def realism(made: dict[str, list[GeneratedTask]], instances: int, times: dict[str, float], reference: float) -> Report:
    """Every realism figure over the instances `made`, per split, with the generation `times` (ms per task id)."""
    tickets = {split: [t for m in made[split] for t in m.task.tickets] for split in SPLITS}
    bodies = {split: [t.description for t in tickets[split]] for split in SPLITS}
    figures = [
        figure(
            "within_queue_reuse",
            "within-queue sentence reuse",
            {s: ts.within_queue_reuse([[t.description for t in m.task.tickets] for m in made[s]]) for s in SPLITS},
        )
    ]
    common = {s: ts.common_sentences(bodies[s]) for s in SPLITS}
    worst = sorted(((share, s, text) for s in SPLITS for text, share in common[s]), reverse=True)[:5]
    figures.append(
        figure(
            "common_sentences",
            "sentences of 6+ words in over 3% of tickets",
            {s: len(common[s]) for s in SPLITS},
            [f"{share:.1%} of {s} tickets: {text!r}" for share, s, text in worst],
        )
    )
    figures.append(
        figure(
            "boilerplate_share",
            "boilerplate share (sentence in >= 1% of tickets)",
            {s: ts.boilerplate_share(bodies[s]) for s in SPLITS},
        )
    )
    read = {s: [reader_text(t) for t in tickets[s]] for s in SPLITS}
    openings = {s: ts.common_openings(read[s]) for s in SPLITS}
    figures.append(
        figure(
            "recurring_openings",
            "tickets with a sentence opening in over 3% of tickets",
            {s: ts.opening_share(read[s]) for s in SPLITS},
            [f"{s}: " + ", ".join(f"'{o}' ({share:.1%})" for o, share in openings[s][:4]) for s in SPLITS],
        )
    )
    late = {
        s: [(t, ts.anachronisms(full_text(t), t.created_at, m.task.releases)) for m in made[s] for t in m.task.tickets]
        for s in SPLITS
    }
    examples = [
        f"{t.ticket_id} created {t.created_at:%Y-%m-%d %H:%M}: {', '.join(f.text for f in found[:3])}"
        for t, found in late["test"]
        if found
    ]
    examples = examples[:3]
    for s in SPLITS:
        stamped = sum(any(f.kind == "time" for f in found) for _, found in late[s])
        released = sum(any(f.kind == "release" for f in found) for _, found in late[s])
        examples.append(f"{s}: {stamped} tickets with a later timestamp, {released} with a later release")
    figures.append(
        figure(
            "anachronisms",
            "tickets with a timestamp or release after created_at",
            {s: sum(bool(found) for _, found in late[s]) for s in SPLITS},
            examples,
        )
    )
    weekdays = {s: [(t, ts.weekday_mismatches(full_text(t), t.created_at)) for t in tickets[s]] for s in SPLITS}
    figures.append(
        figure(
            "weekday_mismatches",
            "tickets with a weekday that misses its date",
            {s: sum(bool(found) for _, found in weekdays[s]) for s in SPLITS},
            [f"{t.ticket_id}: {found[0]}" for s in SPLITS for t, found in weekdays[s] if found][:3],
        )
    )
    affix_shares: dict[str, float] = {}
    affix_notes: list[str] = []
    for s in SPLITS:
        titled = [(t.title, m.task.truth[t.ticket_id].true_component) for m in made[s] for t in m.task.tickets]
        affixes = ts.stock_affixes(titled)
        affix_shares[s] = ts.titles_with_affix([title for title, _ in titled], affixes) / len(titled)
        top = ts.distinct_affixes(affixes)[:5]
        affix_notes.append(f"{s}: " + ", ".join(f"{a.side} '{a.text}' ({a.titles / len(titled):.1%})" for a in top))
    figures.append(figure("stock_title_affixes", "titles with a stock affix", affix_shares, affix_notes))
    lengths = {s: [ts.word_count(t.description) for t in tickets[s] if t.reporter_type == "user"] for s in SPLITS}
    lengths = {s: values for s, values in lengths.items() if values}  # a tiny sample can hold no customer ticket
    figures.append(
        figure(
            "customer_words_p10",
            "customer ticket words, 10th percentile",
            {s: ts.bottom_decile(v) for s, v in lengths.items()},
        )
    )
    figures.append(
        figure(
            "customer_words_p90",
            "customer ticket words, 90th percentile",
            {s: ts.top_decile(v) for s, v in lengths.items()},
        )
    )
    customers = {s: [t.description for t in tickets[s] if t.reporter_type == "user"] for s in SPLITS}
    figures.append(
        figure(
            "customer_unpadded",
            "customer tickets with no padding",
            {s: ts.carries_none(texts, padding_patterns(s)) for s, texts in customers.items() if texts},
        )
    )
    attached = {s: [t for t in tickets[s] if t.attachments_count > 0] for s in SPLITS}
    attached = {s: found for s, found in attached.items() if found}
    figures.append(
        figure(
            "attachments_mentioned",
            "tickets with attachments that say what is attached",
            {
                s: sum(ts.mentions_attachment(f"{t.title}\n{t.description}") for t in found) / len(found)
                for s, found in attached.items()
            },
        )
    )
    figures += duplicate_figures(made)
    figures.append(hard_case_figure(made))
    figures.append(label_frame_figure(made))
    for key, held_out, other in (
        ("overlap_test_in_validation", "test", "validation"),
        ("overlap_validation_in_train", "validation", "train"),
        ("overlap_test_in_train", "test", "train"),
    ):
        share = ts.partition_overlap(bodies[held_out], bodies[other])
        figures.append(figure(key, f"{held_out} sentences (6+ words) also in {other}", {held_out: share}))
    by_size: dict[int, TaskInfo] = {}
    for info in generated_infos():  # the static level of each size (a live one of that size also draws its history)
        if not info.dynamics:
            by_size.setdefault(info.ticket_count, info)
    for size in (25, 50):
        info = by_size.get(size)
        if info is None:
            continue
        ms = times[info.task_id]
        figures.append(
            figure(
                f"generate_{size}_tickets_ms",
                f"generate {size} tickets, median CPU ms",
                {info.task_id: ms},
                [f"loading the fixed 25-ticket hard fixture: {reference:.2f} ms"],
            )
        )
    return Report(
        instances=instances,
        tickets={s: len(tickets[s]) for s in SPLITS},
        figures=figures,
        passed=all(f.passed for f in figures),
    )


def duplicate_figures(made: dict[str, list[GeneratedTask]]) -> list[Figure]:
    """Duplicates that copy a 6+-word sentence of their original, and duplicates titled like it."""
    copied: dict[str, float] = {}
    alike: dict[str, float] = {}
    copy_notes: list[str] = []
    title_notes: list[str] = []
    for s in SPLITS:
        pairs = [
            (m.task.by_id[original], t)
            for m in made[s]
            for t in m.task.tickets
            if (original := m.task.truth[t.ticket_id].duplicate_of) in m.task.by_id  # not a tracker ticket
        ]
        if not pairs:
            continue
        shared = [(o, d, ts.duplicate_copies(o.description, d.description)) for o, d in pairs]
        copied[s] = sum(bool(c) for *_, c in shared) / len(pairs)
        alike[s] = sum(ts.titled_alike(o.title, d.title) for o, d in pairs) / len(pairs)
        copy_notes += [f"{s} {d.ticket_id}: {c[0]!r}" for _, d, c in shared if c][:2]
        title_notes += [f"{s}: {o.title!r} / {d.title!r}" for o, d in pairs if ts.titled_alike(o.title, d.title)][:2]
    return [
        figure(
            "duplicates_sharing_sentence",
            "duplicates sharing a 6+-word sentence with their original",
            copied,
            copy_notes,
        ),
        figure("duplicates_titled_alike", "duplicates titled like their original", alike, title_notes),
    ]


def hard_kind(trap: str) -> str:
    """The hard kind a trap belongs to (the three ways of telling a report against the notes are one)."""
    return trap.split(":")[0]


def hard_case_figure(made: dict[str, list[GeneratedTask]]) -> Figure:
    """Share of hard-case tickets holding a marker phrase of their kind, per split; per kind in the notes."""
    shares: dict[str, float] = {}
    notes: list[str] = []
    for s in SPLITS:
        texts = [(f"{t.title}\n{t.description}", m.facts[t.ticket_id]) for m in made[s] for t in m.task.tickets]
        by_kind: dict[str, list[str]] = {}
        for text, facts in texts:
            for kind in {hard_kind(trap) for trap in facts.traps} & set(ts.HARD_KINDS):
                by_kind.setdefault(kind, []).append(text)
        marked = ts.hard_case_markers(by_kind, [text for text, _ in texts])
        total = sum(m.tickets for m in marked)
        if total:
            shares[s] = sum(m.marked * m.tickets for m in marked) / total
        if s == "test":
            notes += [
                f"{m.kind}: {m.marked:.0%} of {m.tickets}" + (f", e.g. {m.markers[0][0]!r}" if m.markers else "")
                for m in sorted(marked, key=lambda m: -m.marked)
            ]
    return figure("hard_cases_marked", "hard-case tickets with a marker phrase", shares, notes)


LABELS = ("true_severity", "disposition")
"""The labels a stock frame must not give away."""


def label_frame_figure(made: dict[str, list[GeneratedTask]]) -> Figure:
    """The largest share of a label's tickets that hold one 6-word frame predicting that label
    (severity or disposition) across scenarios, per split; the worst frames in the notes."""
    shares: dict[str, float] = {}
    notes: list[str] = []
    for s in SPLITS:
        frames, held = [], 0.0
        for field in LABELS:
            samples = label_samples(made[s], field)
            found = ts.label_frames(samples)
            frames += found
            held = max(held, ts.label_framed_share(samples, found))
        shares[s] = max((f.of_label for f in frames), default=0.0)
        notes.append(f"{s}: {held:.1%} of tickets hold a frame that predicts their severity or disposition")
        notes += [
            f"{s} {f.label}: {f.of_label:.1%} of its tickets ({f.tickets} hold it, {f.purity:.0%} with the label): {f.frame!r}"
            for f in sorted(frames, key=lambda f: -f.of_label)[:3]
        ]
    return figure("label_frames", "largest share of a label's tickets with a frame that predicts it", shares, notes)


def padding_patterns(split: str) -> list[re.Pattern[str]]:
    """Patterns of every sentence a customer writes only to pad a ticket in `split`: the long
    greetings, the self-introductions and organisation blurbs, the filler."""
    partition = partition_of(split)
    phrases = load_phrases()
    frames = [f for pool in ("opener_user", "self_intro", "filler_user") for f in phrases.pool(pool, partition)]
    frames += [o.about for o in load_personas().organisations if o.partition == partition]
    return [pattern(f) for f in frames]


def show(value: float, key: str) -> str:
    """`value` in the unit of its target."""
    unit = ts.TARGETS[key].unit
    if unit == "share":
        return f"{value:.1%}"
    if unit == "ms":
        return f"{value:.2f} ms"
    return f"{value:g}"


def print_table(report: Report) -> None:
    """The realism figures as a table: values per split, target, verdict, then notes."""
    counts = ", ".join(f"{s} {n}" for s, n in report.tickets.items())
    print(f"\nrealism figures over {report.instances} instances per level and split ({counts} tickets)")
    print(f"  {'figure':<56}{'values':<50}{'target':<14}verdict")
    for f in report.figures:
        values = "  ".join(f"{k} {show(v, f.key)}" for k, v in f.values.items())
        print(f"  {f.label:<56}{values:<50}{f.target:<14}{'PASS' if f.passed else 'FAIL'}")
        for note in f.notes:
            print(f"  {'':<4}{note}")
    failed = sum(not f.passed for f in report.figures)
    print(f"  {len(report.figures) - failed} of {len(report.figures)} figures on target")


def generated_infos() -> list[TaskInfo]:
    """The generated tasks, in the order the sources list them."""
    return [info for info in task_infos() if info.splits is not None]


def legacy_figures(made: dict[str, list[GeneratedTask]], levels: list[str]) -> None:
    """Held-out overlap by the generator's own facts, duplicates and traps per level, shared descriptions."""
    train_evidence = {s for m in made["train"] for f in m.facts.values() for _, s in f.evidence}
    train_titles = {t.title.lower() for m in made["train"] for t in m.task.tickets}
    train_scenarios = {f.scenario for m in made["train"] for f in m.facts.values()}
    print("\nheld-out overlap with the train split (share of tickets)")
    for split in ("validation", "test"):
        tickets = [(m, t) for m in made[split] for t in m.task.tickets]
        evidence = sum(any(s in train_evidence for _, s in m.facts[t.ticket_id].evidence) for m, t in tickets)
        titles = sum(t.title.lower() in train_titles for _, t in tickets)
        scenarios = sum(m.facts[t.ticket_id].scenario in train_scenarios for m, t in tickets)
        n = len(tickets)
        print(
            f"  {split:<11} {n} tickets: deciding sentence seen in train {evidence / n:.4f}, "
            f"title {titles / n:.4f}, scenario {scenarios / n:.4f}"
        )

    print("\nduplicates and traps per level (train split)")
    for task_id in levels:
        instances = [m for m in made["train"] if m.task.task_id == task_id]
        level_tickets = [t for m in instances for t in m.task.tickets]
        dups, unlike, traps = 0, 0, Counter[str]()
        for m in instances:
            for t in m.task.tickets:
                traps.update(m.facts[t.ticket_id].traps)
                original = m.task.truth[t.ticket_id].duplicate_of
                if original in m.task.by_id:  # (a live queue's original may be an earlier tracker ticket)
                    dups += 1
                    o = m.task.by_id[original]
                    unlike += jaccard(words(t.title), words(o.title)) < 0.2
        rates = ", ".join(f"{k} {v / len(level_tickets):.2f}" for k, v in sorted(traps.items()))
        print(
            f"  {task_id:<18} duplicates {dups / len(level_tickets):.2f} (of them titled unlike their original {unlike / max(dups, 1):.2f})"
        )
        print(f"  {'':<18} traps per ticket: {rates or 'none'}")

    descriptions = [t.description for m in made["train"] for t in m.task.tickets][:1000]
    shared = sum(n for n in Counter(descriptions).values() if n > 1)
    print(f"\n{len(descriptions)} train tickets: {shared / len(descriptions):.4f} share a description with another")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=40, help="instances per level and split (default 40)")
    parser.add_argument("--timing-runs", type=int, default=60, help="instances timed per level (default 60)")
    parser.add_argument("--json", action="store_true", help="print only the realism figures, as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a realism figure misses its target")
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in the docs")
    args = parser.parse_args()
    if args.instances < 1 or args.timing_runs < 1:
        parser.error("--instances and --timing-runs must be at least 1")
    infos = generated_infos()
    levels = [info.task_id for info in infos]

    times = {task_id: timing(task_id, args.timing_runs) for task_id in levels}
    reference = reference_timing(args.timing_runs)
    if not args.json:
        print(f"generation time, median CPU ms of {args.timing_runs} instances")
        for task_id in levels:
            print(f"  {task_id:<18}{times[task_id]:>8.2f}")
        print(f"  {'reference':<18}{reference:>8.2f}  (load and check the fixed 25-ticket hard fixture)")

    made: dict[str, list[GeneratedTask]] = {
        split: [generate(info.task_id, s, split) for info in infos for s in range(seeds(info, split, args.instances))]
        for split in SPLITS
    }
    report = realism(made, args.instances, times, reference)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        legacy_figures(made, levels)
        print_table(report)
    return 1 if args.check and not report.passed else 0


def seeds(info: TaskInfo, split: str, wanted: int) -> int:
    """How many instances of `split` to draw: `wanted`, or all a held-out split has if fewer."""
    size = (info.splits or {}).get(split)
    return wanted if size is None else min(wanted, size)


if __name__ == "__main__":
    codes: list[int] = []
    run_writing(lambda: codes.append(main()), "generator_stats", "generator_stats.py")
    sys.exit(codes[0])
