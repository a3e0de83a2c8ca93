"""The one runner every probe suite shares: a victim on probe items, stored, then scored.

:func:`run_probe` asks the victim about every item in batches (probe items are an evaluation, not
an attack: no query budget), writes each batch's results to the runs store in one transaction and
resumes a run of the same name where it stopped. :func:`summarize` scores stored results: accuracy
and weighted F1 overall, per category and per category × group, the confusion matrix, and the
suite's own reports (the equivalence suite's both-direction table, RobustLR's consistency).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.vocab import LABELS
from engine.probes.record import ProbeItem
from engine.probes.scores import weighted_f1
from engine.probes.suites import get_suite
from engine.store.probe_runs import ProbeResult, ProbeRun
from engine.store.store import RunStore
from engine.victim.identity import model_identity
from engine.victim.model import Victim

BATCH = 64
Progress = Callable[[int, int], None]


def item_of(result: ProbeResult, suite: str) -> ProbeItem:
    """The probe item a stored result was made from."""
    return ProbeItem(result.premise, result.hypothesis, result.gold_label, suite, result.category,
                     result.group, result.family, result.form, result.meta)


def items_digest(items: Sequence[ProbeItem]) -> str:
    """The sha256 of the items' texts, labels and categories, in order: what identifies a probe run's
    data, wherever the file was read from."""
    h = hashlib.sha256()
    for item in items:
        h.update(f"{item.premise}\t{item.hypothesis}\t{item.label}\t{item.category}\n".encode())
    return h.hexdigest()


def default_probe_run_name(suite: str, victim_name: str, data: Path | None, n: int, seed: int,
                           items: Sequence[ProbeItem]) -> str:
    """A probe run name built from what identifies the data: its folder and name (two fragments'
    ``test.tsv`` differ) and the items' content hash (a changed file under the same name is another run)."""
    source = f"{data.parent.name}-{data.stem}" if data is not None else f"generated-n{n}-seed{seed}"
    return f"{suite}-{Path(victim_name.rstrip('/')).name or victim_name}-{source}-{items_digest(items)[:8]}"


def run_probe(store: RunStore, run_name: str, suite: str, items: Sequence[ProbeItem], victim: Victim,
              victim_name: str, data_path: str, seed: int, config: dict[str, Any] | None = None,
              progress: Progress | None = None, batch: int = BATCH) -> ProbeRun:
    """Run ``victim`` on ``items`` into probe run ``run_name`` (resuming it); return the run.

    The run records the items' content hash and the victim's identity (its weights' hash, or hub
    id), so a resume with other items or another model under the same names is refused."""
    identity = {"items": len(items), "items_sha256": items_digest(items), "victim_model": model_identity(victim.name)}
    run = store.start_probe_run(run_name, suite, victim_name, data_path, seed, {**identity, **(config or {})})
    done = store.done_probe_items(run.id)
    todo = [k for k in range(len(items)) if k not in done]
    if progress:
        progress(len(done), len(items))
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        predictions = victim.predict([(items[k].premise, items[k].hypothesis) for k in chunk])
        store.record_probe_results(run.id, [
            ProbeResult(k, items[k].premise, items[k].hypothesis, items[k].label, items[k].category,
                        items[k].group, items[k].family, items[k].form, items[k].meta, prediction.label,
                        prediction.probs)
            for k, prediction in zip(chunk, predictions)
        ])
        if progress:
            progress(len(done) + start + len(chunk), len(items))
    store.finish_probe_run(run.id)
    return store.probe_run(run_name)


@dataclass(frozen=True)
class ProbeSummary:
    """Scores of one probe run."""

    run: str
    suite: str
    victim: str
    items: int
    accuracy: float
    weighted_f1: float
    by_category: list[dict[str, Any]]
    by_group: list[dict[str, Any]]
    #: gold label -> predicted label -> items
    confusion: dict[str, dict[str, int]]
    reports: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _scores(results: Sequence[ProbeResult]) -> dict[str, Any]:
    gold = [r.gold_label for r in results]
    predicted = [r.predicted_label for r in results]
    return {"items": len(results), "accuracy": round(sum(r.correct for r in results) / max(len(results), 1), 4),
            "weighted_f1": round(weighted_f1(gold, predicted), 4),
            **{f"gold_{label}": gold.count(label) for label in LABELS}}


def summarize(run: ProbeRun, results: Sequence[ProbeResult]) -> ProbeSummary:
    """Accuracy and weighted F1 overall, per category and per category × group, plus the suite's reports."""
    categories = sorted({r.category for r in results})
    by_category = [{"category": c, **_scores([r for r in results if r.category == c])} for c in categories]
    cells = sorted({(r.category, r.group) for r in results})
    by_group = [{"category": c, "group": g, **_scores([r for r in results if (r.category, r.group) == (c, g)])}
                for c, g in cells]
    confusion: dict[str, dict[str, int]] = {str(gold): {str(pred): 0 for pred in LABELS} for gold in LABELS}
    for r in results:
        confusion[r.gold_label][r.predicted_label] += 1
    suite = get_suite(run.suite)
    reports: dict[str, list[dict[str, Any]]] = {}
    if suite.report is not None and results:
        items = [item_of(r, run.suite) for r in results]
        reports = suite.report(items, [r.predicted_label for r in results], [r.probabilities for r in results])
    overall = _scores(results)
    return ProbeSummary(run.name, run.suite, run.victim, len(results), overall["accuracy"], overall["weighted_f1"],
                        by_category, by_group, confusion, reports)
