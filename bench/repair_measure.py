"""The repair loop's measurement from its stored profile runs: per held-out file, the failure rate of
every cell before and after on the pairs both victims got right, the three cells the first victim
failed most on (20 pairs or more) with their relative drop, and the clean accuracy of both victims.

``engine repair`` runs the loop and prints the same; this reads runs made step by step (or a loop cut
short: a partial "after" run is compared on the pairs it reached), and writes a page of results.

    python bench/repair_measure.py --db var/v50/repair.sqlite --pair repair-before-snli repair-after-snli \
        --db var/v50/repair-mono.sqlite --pair repair-before-mono repair-after-mono \
        --victim-before offline --victim-after var/models/victim-augmented-HASH \
        --out results/profile/repair_offline.md --json results/profile/repair_offline.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from engine.api import get_settings  # noqa: E402
from engine.augment.repair import MIN_PAIRS, compare_profiles, repair_fragments  # noqa: E402
from engine.store.store import RunStore  # noqa: E402
from engine.victim.model import load_victim  # noqa: E402
from engine.victim.training import OFFLINE_EVAL, DataSource, evaluate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", type=Path, required=True, help="a runs store (one per --pair)")
    parser.add_argument("--pair", action="append", nargs=2, metavar=("BEFORE", "AFTER"), required=True)
    parser.add_argument("--victim-before", default="offline")
    parser.add_argument("--victim-after", required=True)
    parser.add_argument("--fragments-limit", type=int, default=500)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if len(args.db) != len(args.pair):
        raise SystemExit("give one --db per --pair")
    settings = get_settings()
    lines = ["# The repair loop on the offline victim", "",
             f"Before: `{args.victim_before}`; after: `{Path(args.victim_after).name}`. Failure rates on the held-out "
             "pairs both victims got right (so both were profiled on them).", ""]
    profiles = []
    for db, (before_name, after_name) in zip(args.db, args.pair):
        with RunStore.open(db) as store:
            before_run, after_run = store.profile_run(before_name), store.profile_run(after_name)
            profiles.append((Path(before_run.data_path).name, store.profile_pairs(before_run.id),
                             store.profile_pairs(after_run.id)))
    weak, cells = compare_profiles(profiles)
    found: dict[str, object] = {"cells": cells, "weakest": [w.__dict__ | {"relative_drop": w.relative_drop}
                                                           for w in weak]}
    for name, table in cells.items():
        later = {(c["phenomenon"], c["setup"]): c for c in table["after"]}
        lines += [f"## {name}", "", "| phenomenon | setup | pairs | before | after | relative drop |",
                  "|---|---|---|---|---|---|"]
        for c in sorted(table["before"], key=lambda c: (c["pairs"] < MIN_PAIRS, -c["failure_rate"])):
            if c["pairs"] < 5:
                continue
            rate = later[(c["phenomenon"], c["setup"])]["failure_rate"] if (c["phenomenon"], c["setup"]) in later else 0.0
            drop = f"{(c['failure_rate'] - rate) / c['failure_rate']:.2f}" if c["failure_rate"] else "-"
            lines.append(f"| {c['phenomenon']} | {c['setup']} | {c['pairs']} | {c['failure_rate']:.3f} | {rate:.3f} | {drop} |")
        lines.append("")
    lines += ["## The three cells it failed most on (20 pairs or more)", "",
              "| held-out | phenomenon | setup | pairs | before | after | relative drop |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {w.source} | {w.phenomenon} | {w.setup} | {w.pairs} | {w.before:.3f} | {w.after:.3f} | "
              f"{w.relative_drop:.0%} |" for w in weak]
    lines.append("")
    victims = {"before": load_victim(args.victim_before, settings=settings),
               "after": load_victim(args.victim_after, settings=settings)}
    sources = [DataSource.parse(s, settings.shared_data_dir) for s in OFFLINE_EVAL]
    sources += [dataclasses.replace(s, limit=args.fragments_limit) for s in repair_fragments(settings.shared_data_dir)]
    accuracy: dict[str, dict[str, float]] = {}
    for source in tqdm(sources, desc="clean accuracy", unit="file"):
        pairs = source.load(13)
        accuracy[f"{source.name} ({len(pairs)})"] = {k: round(evaluate(v, pairs).accuracy, 4) for k, v in victims.items()}
    found["accuracy"] = accuracy
    lines += ["## Clean accuracy (seeded samples, the model card's seed)", "", "| data | before | after |", "|---|---|---|"]
    lines += [f"| {name} | {acc['before']:.3f} | {acc['after']:.3f} |" for name, acc in accuracy.items()]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(found, ensure_ascii=False, indent=1), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
