"""Export attacks with their votes and majority as CSV or JSON Lines: each vote with its label and
fluency (ok, odd or broken; ``not_fluent`` beside it for older readers), and per item the counts of
labels and of fluency levels."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import IO, Any

from annotations.aggregation import item_results
from annotations.store import Store
from engine.core.errors import InputError
from engine.reports.tables import spreadsheet_safe

EXPORT_FORMATS = ("csv", "jsonl")
COLUMNS = (
    "run", "setup", "victim", "dataset", "pair_index", "status", "item_id", "premise",
    "original_hypothesis", "adversarial_hypothesis", "gold_label", "source_label", "target_label",
    "original_prediction", "original_probabilities", "adversarial_prediction",
    "adversarial_probabilities", "queries", "cache_hits", "perplexity", "operators", "polarity",
    "votes", "vote_counts", "fluency_votes", "not_fluent_votes", "majority", "state", "derivation",
)


def export_rows(store: Store, run_name: str | None = None) -> list[dict[str, Any]]:
    """One row per attack (of one run, or all) with victim outputs, votes and majority."""
    run_id = store.run(run_name).id if run_name is not None else None
    runs = {run.id: run for run in store.runs()}
    results = item_results(store)
    votes: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in store.db.query(
        "SELECT j.item_id, a.name, j.label, j.fluency, j.not_fluent, j.comment FROM judgments j "
        "JOIN annotators a ON a.id = j.annotator_id ORDER BY j.id"
    ):
        vote = {"annotator": row["name"], "label": row["label"], "fluency": row["fluency"],
                "not_fluent": bool(row["not_fluent"])}
        if row["comment"]:
            vote["comment"] = row["comment"]
        votes[row["item_id"]].append(vote)
    rows = []
    for attack in store.attacks(run_id, with_trace=False):
        run, record = runs[attack.run_id], attack.record
        result = results.get(attack.id)
        rows.append({
            "run": run.name, "setup": run.setup, "victim": run.victim,
            "dataset": Path(run.data_path).name, "pair_index": record.pair_index,
            "status": record.status, "item_id": attack.item_id, "premise": record.premise,
            "original_hypothesis": record.hypothesis,
            "adversarial_hypothesis": record.adversarial_hypothesis,
            "gold_label": record.gold_label, "source_label": record.source_label,
            "target_label": record.target_label,
            "original_prediction": record.original_prediction,
            "original_probabilities": record.original_probabilities,
            "adversarial_prediction": record.adversarial_prediction,
            "adversarial_probabilities": record.adversarial_probabilities,
            "queries": record.queries, "cache_hits": record.cache_hits,
            "perplexity": record.perplexity, "operators": list(record.operators),
            "polarity": record.polarity,
            "votes": votes.get(attack.item_id, []) if attack.item_id else [],
            "vote_counts": result.votes if result else None,
            "fluency_votes": result.fluency if result else None,
            "not_fluent_votes": result.not_fluent if result else None,
            "majority": result.majority if result else None,
            "state": result.state if result else None,
            "derivation": record.derivation,
        })
    return rows


def write_export(rows: list[dict[str, Any]], fmt: str, out: IO[str]) -> None:
    """Write rows as JSON Lines (exact), or as CSV with nested values JSON-encoded and every text cell
    that starts like a spreadsheet formula prefixed with an apostrophe
    (:func:`engine.reports.tables.spreadsheet_safe`)."""
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"export format must be one of {', '.join(EXPORT_FORMATS)}, got {fmt!r}")
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    writer = csv.DictWriter(out, fieldnames=COLUMNS)
    writer.writeheader()
    for row in rows:
        writer.writerow({key: spreadsheet_safe(json.dumps(value, ensure_ascii=False)
                                               if isinstance(value, (dict, list)) else value)
                         for key, value in row.items()})
