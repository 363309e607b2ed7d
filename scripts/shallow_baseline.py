"""A shallow learned reference: TF-IDF and logistic regression on train tickets, scored as labels and as a policy.

    python scripts/shallow_baseline.py                                   # 1 to 2 minutes on 2 cores
    python scripts/shallow_baseline.py --train-instances 300 --eval-instances 100 --episodes 100
    python scripts/shallow_baseline.py --json                            # the same figures as JSON

It fits one model per label (severity, component, disposition) on the tickets of train instances
(seeds 0 to N-1 of every generated level): word and character n-grams of the title, description and
log excerpt, plus the structured fields as tokens (reporter, tier, environment, service, candidates,
evidence flags, whether a duplicate is suggested). It prints each label's accuracy on fresh train
seeds (never fitted on), on validation and on test; then plays the models as a policy through the
episode loop (disposition, labels, the owning team, escalation by the handbook's rule) and prints
its mean episode score per level and split beside the random, heuristic and oracle policies.

If it fits train almost perfectly and scores far better on test than the keyword heuristic, the
tickets are easy to learn from their surface: a measure of how much of the task is pattern matching.
Seeded and deterministic: the same flags print the same figures. Needs scikit-learn (the `dev` extra).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from figures import run_writing

from openenv_bug_triage.generator import generate
from openenv_bug_triage.models import ObservationModel, Severity, Ticket, Truth
from openenv_bug_triage.policies import POLICIES, PlanPolicy, run_episode, settle_actions
from openenv_bug_triage.sources import task_infos

MISSING: str | None = None
"""Why the models cannot be fitted here (scikit-learn is missing), or None: `main` exits with it, the audit prints it."""
try:
    import numpy as np
    from scipy.sparse import csr_matrix, hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
except ImportError as missing:  # importing stays possible, so that scripts/audit.py can say so in its row
    MISSING = f"needs scikit-learn ({missing}): pip install -r requirements-dev.txt (or the `dev` extra)"

LABELS = ("severity", "component", "disposition")
SPLITS = ("train", "validation", "test")
FRESH_TRAIN_SEED = 1_000_000
"""Train seeds from here on are never fitted on: they measure the fit on unseen train instances."""


def label_of(truth: Truth, label: str) -> str:
    """The value of `label` in a ticket's truth."""
    return {"severity": truth.true_severity, "component": truth.true_component, "disposition": truth.disposition}[label]


def text_of(t: Ticket) -> str:
    """What the n-grams read: title, description and log excerpt."""
    return "\n".join(part for part in (t.title, t.description, t.log_excerpt) if part)


def fields_of(t: Ticket) -> str:
    """The structured fields as one token each."""
    tokens = [
        f"reporter_{t.reporter_type}",
        f"tier_{t.customer_tier}",
        f"environment_{t.environment}",
        f"service_{t.service}",
        f"first_candidate_{t.component_candidates[0]}",
        *(f"candidate_{c}" for c in t.component_candidates),
        f"attachments_{min(t.attachments_count, 3)}",
        f"repro_{t.repro_steps_present}",
        f"logs_{t.logs_present}",
        f"version_{t.version is not None}",
        f"duplicate_suggested_{bool(t.suspected_duplicate_ids)}",
    ]
    return " ".join(tokens)


@dataclass
class Shallow:
    """Three vectorisers and one logistic regression per label, fitted together."""

    words: TfidfVectorizer = field(
        default_factory=lambda: TfidfVectorizer(
            ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=50_000, dtype=np.float32
        )
    )
    chars: TfidfVectorizer = field(
        default_factory=lambda: TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 4), min_df=3, sublinear_tf=True, max_features=20_000, dtype=np.float32
        )
    )
    fields: TfidfVectorizer = field(
        default_factory=lambda: TfidfVectorizer(
            token_pattern=r"\S+", lowercase=False, use_idf=False, norm=None, dtype=np.float32
        )
    )
    models: dict[str, LogisticRegression] = field(default_factory=dict)

    def fit(self, tickets: Sequence[Ticket], truths: Sequence[Truth]) -> Shallow:
        """Fit the vectorisers and a model per label on `tickets` and their `truths`."""
        texts = [text_of(t) for t in tickets]
        x = hstack(
            [
                self.words.fit_transform(texts),
                self.chars.fit_transform(texts),
                self.fields.fit_transform([fields_of(t) for t in tickets]),
            ]
        ).tocsr()
        for label in LABELS:
            # weakly regularised (the tickets are many and clean); tol 1e-3 stops where accuracy stops moving
            model = LogisticRegression(C=10.0, tol=1e-3, max_iter=1000, random_state=0)
            self.models[label] = model.fit(x, [label_of(truth, label) for truth in truths])
        return self

    def features(self, tickets: Sequence[Ticket]) -> csr_matrix:
        """The feature rows of `tickets`."""
        texts = [text_of(t) for t in tickets]
        return hstack(
            [
                self.words.transform(texts),
                self.chars.transform(texts),
                self.fields.transform([fields_of(t) for t in tickets]),
            ]
        ).tocsr()

    def predict(self, tickets: Sequence[Ticket]) -> dict[str, list[str]]:
        """Each label's prediction for each of `tickets`."""
        x = self.features(tickets)
        return {label: [str(v) for v in model.predict(x)] for label, model in self.models.items()}


@dataclass(kw_only=True)
class ShallowPolicy(PlanPolicy):
    """Settles each focused ticket as the fitted models predict: disposition, severity, component."""

    model: Shallow
    name: str = "shallow"

    def plan(self, ticket: Ticket, obs: ObservationModel) -> list[dict[str, Any]]:
        p = {label: values[0] for label, values in self.model.predict([ticket]).items()}
        severity: Severity = p["severity"]  # type: ignore[assignment]  # fitted on Severity values only
        return settle_actions(ticket, p["disposition"], severity, p["component"])


def instances(levels: Sequence[str], split: str, count: int) -> list[tuple[str, int]]:
    """(task id, seed) of `count` instances per level of `split`: fresh seeds for train."""
    first = FRESH_TRAIN_SEED if split == "train" else 0
    return [(task_id, seed) for task_id in levels for seed in range(first, first + count)]


def labelled(levels: Sequence[str], split: str, runs: Sequence[tuple[str, int]]) -> tuple[list[Ticket], list[Truth]]:
    """The tickets of the instances `runs` of `split`, and their truths."""
    tickets: list[Ticket] = []
    truths: list[Truth] = []
    for task_id, seed in runs:
        task = generate(task_id, seed, split).task
        tickets.extend(task.tickets)
        truths.extend(task.truth[t.ticket_id] for t in task.tickets)
    return tickets, truths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-instances", type=int, default=60, help="train instances per level to fit on")
    parser.add_argument("--eval-instances", type=int, default=50, help="instances per level and split for accuracy")
    parser.add_argument("--episodes", type=int, default=30, help="episodes per level, split and policy")
    parser.add_argument("--levels", nargs="+", help="generated task ids (default: all)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--write", action="store_true", help="also write the report into its figure block in README.md")
    args = parser.parse_args()
    if MISSING is not None:
        sys.exit(f"scripts/shallow_baseline.py {MISSING}")
    levels = args.levels or [info.task_id for info in task_infos() if info.splits is not None]
    sizes = {info.task_id: info.splits for info in task_infos() if info.splits is not None}
    unknown = [level for level in levels if level not in sizes]
    if unknown:
        parser.error(f"not generated tasks: {unknown}; choose from {list(sizes)}")
    held_out = min(size for split_sizes in sizes.values() for size in split_sizes.values() if size is not None)
    if min(args.train_instances, args.eval_instances, args.episodes) < 1:
        parser.error("--train-instances, --eval-instances and --episodes must be at least 1")
    if max(args.eval_instances, args.episodes) > held_out:
        parser.error(f"--eval-instances and --episodes can be at most {held_out}, the smallest held-out split")

    fit_runs = [(task_id, seed) for task_id in levels for seed in range(args.train_instances)]
    tickets, truths = labelled(levels, "train", fit_runs)
    model = Shallow().fit(tickets, truths)

    accuracy: dict[str, dict[str, float]] = {label: {} for label in LABELS}
    for split in SPLITS:
        eval_tickets, eval_truths = labelled(levels, split, instances(levels, split, args.eval_instances))
        predicted = model.predict(eval_tickets)
        for label in LABELS:
            hits = sum(p == label_of(t, label) for p, t in zip(predicted[label], eval_truths, strict=True))
            accuracy[label][split] = hits / len(eval_truths)

    policies: dict[str, Any] = {name: cls for name, cls in POLICIES.items()}
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for name, make in [*policies.items(), ("shallow", lambda: ShallowPolicy(model=model))]:
        scores[name] = {}
        for split in SPLITS:
            scores[name][split] = {
                task_id: statistics.fmean(
                    run_episode(make(), task_id, seed, split).grade.score
                    for _, seed in instances([task_id], split, args.episodes)
                )
                for task_id in levels
            }

    if args.json:
        print(
            json.dumps(
                {
                    "fitted_tickets": len(tickets),
                    "train_instances": args.train_instances,
                    "eval_instances": args.eval_instances,
                    "episodes": args.episodes,
                    "accuracy": accuracy,
                    "scores": scores,
                },
                indent=2,
            )
        )
        return
    print(
        f"fitted on {len(tickets)} tickets of {args.train_instances} train instances per level; "
        f"accuracy over {args.eval_instances} instances per level and split (train: fresh seeds)"
    )
    print(f"  {'label':<14}" + "".join(f"{split:>12}" for split in SPLITS))
    for label in LABELS:
        print(f"  {label:<14}" + "".join(f"{accuracy[label][split]:>12.3f}" for split in SPLITS))
    print(f"\nmean episode score over {args.episodes} episodes per level and split")
    print(f"  {'policy':<11}{'split':<12}" + "".join(f"{task_id:>22}" for task_id in levels) + f"{'mean':>10}")
    for split in SPLITS:
        for name, by_split in scores.items():
            row = by_split[split]
            cells = "".join(f"{row[task_id]:>22.3f}" for task_id in levels)
            print(f"  {name:<11}{split:<12}{cells}{statistics.fmean(row.values()):>10.3f}")


if __name__ == "__main__":
    run_writing(main, "shallow_baseline", "shallow_baseline.py")
