"""Which labelled WordNet substitutions a change to the lexicon stops generating, and how they were
judged: a mechanism's effect measured on every labelled single-edit H* at once, not on one sentence.

    python bench/lexical_rules.py generated --out /tmp/new.json             # this checkout
    PYTHONPATH=OLD_CHECKOUT python bench/lexical_rules.py generated --out /tmp/old.json
    python bench/lexical_rules.py compare /tmp/old.json /tmp/new.json

``generated`` re-generates, for every labelled (pass 1) single-edit H* of a WordNet operator in the
kept runs and sampled candidates (``results/validity/v3*.jsonl``, ``v4*.jsonl``, ``candidates/``), the
first-round candidates of its pair and setup (operators only: no constraint, no victim), and writes
which of those H* are still among them. ``compare`` prints, for the H* one checkout generates and the
other does not, their count, valid share (target label, not broken) and natural share (target label,
ok English) under both passes, by operator; and the same for the H* both generate.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "validity"
sys.path.insert(0, str(HERE))

import validity as V  # noqa: E402  (bench/validity.py)

WORDNET_OPERATORS = ("PerturbHypo", "PerturbHyper", "PerturbSyno", "PerturbCoHyper", "PerturbAnto")


def labelled_items() -> list[dict[str, Any]]:
    labels = V.read_labels(RESULTS / "labels.jsonl")
    files = sorted(RESULTS.glob("v3*.jsonl")) + sorted(RESULTS.glob("v4*.jsonl"))
    files += sorted((RESULTS / "candidates").glob("*.jsonl"))
    rows: dict[str, dict[str, Any]] = {}
    for path in files:
        for row in V.read_jsonl(path):
            ops = row.get("operators") or []
            if row.get("key") in labels and len(ops) == 1 and ops[0] in WORDNET_OPERATORS and row.get("edits", 1) == 1:
                rows.setdefault(row["key"], row)
    return V.with_texts(list(rows.values()))


def generated(args: argparse.Namespace) -> None:
    from engine.api import get_settings
    from engine.edits.candidates import generate_candidates
    from engine.lexicon.senses import build_sense_chooser
    from engine.natlog.polarity import polarize
    from engine.natlog.setups import get_setup
    from engine.natlog.triggers import Conventions
    from engine.parse import parse

    settings = get_settings()
    senses = build_sense_chooser(settings)
    items = labelled_items()
    by_pair: dict[tuple[str, str, int], list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_pair[(item["setup"], item["source"], item["index"])].append(item)
    kept: dict[str, bool] = {}
    for (setup_name, source, _), group in tqdm(sorted(by_pair.items()), desc="pairs", mininterval=10):
        pair = group[0]
        configured = V.source_settings(settings, source)
        try:
            polarized = polarize(parse(pair["hypothesis"], settings=settings), conventions=Conventions.of(configured))
            found = generate_candidates(polarized, get_setup(setup_name).relations, setup=setup_name,
                                        settings=configured, senses=senses, premise=pair["premise"])
        except Exception as exc:  # noqa: BLE001 - a pair an older checkout cannot read counts as not generated
            print(f"skipped {source} pair: {exc}", file=sys.stderr)
            found = []
        texts = {c.text.strip() for c in found}
        for item in group:
            kept[item["key"]] = item["h_star"].strip() in texts
    args.out.write_text(json.dumps(kept), encoding="utf-8")
    print(f"{sum(kept.values())} of {len(kept)} labelled H* generated", file=sys.stderr)


def _shares(keys: list[str], items: dict[str, dict[str, Any]], labels: dict[str, dict[str, Any]]) -> str:
    judged = [k for k in keys if k in labels]
    if not judged:
        return "-"
    valid = sum(labels[k]["label"] == items[k]["target_label"] and labels[k].get("english") != "broken"
                for k in judged)
    natural = sum(labels[k]["label"] == items[k]["target_label"] and labels[k].get("english") == "ok" for k in judged)
    return f"{valid / len(judged):.2f} / {natural / len(judged):.2f}"


def compare(args: argparse.Namespace) -> None:
    old, new = json.loads(args.old.read_text()), json.loads(args.new.read_text())
    items = {i["key"]: i for i in labelled_items()}
    passes = [V.read_labels(RESULTS / name) for name in ("labels.jsonl", "labels_pass2.jsonl")]
    groups = {"removed (old only)": [k for k in old if old[k] and not new.get(k)],
              "added back (new only)": [k for k in old if not old[k] and new.get(k)],
              "kept (both)": [k for k in old if old[k] and new.get(k)]}
    print("| H* | operator | n | valid / natural, pass 1 | valid / natural, pass 2 |")
    print("|---|---|---|---|---|")
    for name, keys in groups.items():
        for op in ("all", *WORDNET_OPERATORS):
            chosen = [k for k in keys if k in items and (op == "all" or items[k]["operators"][0] == op)]
            if chosen:
                print(f"| {name} | {op} | {len(chosen)} | {_shares(chosen, items, passes[0])} | "
                      f"{_shares(chosen, items, passes[1])} |")
    if args.list:
        for key in groups["removed (old only)"]:
            item = items[key]
            print(f"- {item['operators'][0]}: {item['hypothesis']} -> {item['h_star']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generated")
    g.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--list", action="store_true", help="list the removed H*")
    args = parser.parse_args()
    {"generated": generated, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
