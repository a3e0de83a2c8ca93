"""The natural-logic verifier (``engine verify``) on labelled monotonicity data: coverage and precision.

    python bench/verify.py [--data ../shared/data] [--n 400] [--seed 0] [--json FILE]

Sets (paths under ``--data``): HELP's conjunction and disjunction parts (``help/*.tsv``, premise =
``ori_sentence``) and the monotonicity semantic fragments (``semantic_fragments/monotonicity_
{simple,hard}/dev.tsv``). ``--n`` pairs are drawn per set with ``--seed`` (0: all pairs).

For each set, and per monotonicity direction of the edit sites (the polarity the verifier's own
marker gives the edited words: ↑, ↓, =, or mixed), the script prints:

- coverage: the share of pairs where the verifier commits to a label (not *unknown*);
- precision: where it commits, the share whose label is the gold label;
- per label: how often it says entailment / neutral / contradiction and how often rightly.

MonaLog (Hu et al. 2020) is the anchor: high precision by committing only where its rules apply.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import get_settings  # noqa: E402
from engine.core.errors import InputError  # noqa: E402
from engine.data.readers import NLIPair, read_pairs  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402
from engine.verify.verifier import UNKNOWN, verify  # noqa: E402

SETS = {
    "HELP and": ("help/leskexppmb_and.tsv", "help"),
    "HELP or": ("help/leskexppmb_or.tsv", "help"),
    "monotonicity simple": ("semantic_fragments/monotonicity_simple/dev.tsv", "tsv"),
    "monotonicity hard": ("semantic_fragments/monotonicity_hard/dev.tsv", "tsv"),
}


@dataclass(frozen=True)
class Outcome:
    dataset: str
    direction: str
    gold: str
    predicted: str


def sample(pairs: list[NLIPair], n: int, seed: int) -> list[NLIPair]:
    if n <= 0 or n >= len(pairs):
        return pairs
    return random.Random(seed).sample(pairs, n)


def run(data: Path, n: int, seed: int) -> list[Outcome]:
    settings = get_settings()
    outcomes: list[Outcome] = []
    for name, (path, fmt) in SETS.items():
        file = data / path
        if not file.is_file():
            print(f"skipping {name}: {file} not found", file=sys.stderr)
            continue
        pairs = sample(read_pairs(file, fmt), n, seed)
        for pair in tqdm(pairs, desc=name, unit="pair", leave=False):
            try:
                verdict = verify(pair.premise, pair.hypothesis, settings)
            except InputError:
                outcomes.append(Outcome(name, "none", pair.label, UNKNOWN))
                continue
            outcomes.append(Outcome(name, verdict.direction, pair.label, verdict.label))
    return outcomes


def rows(outcomes: list[Outcome], key) -> list[list[object]]:
    groups: dict[tuple, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[key(o)].append(o)
    table = []
    for group, items in sorted(groups.items()):
        committed = [o for o in items if o.predicted != UNKNOWN]
        right = sum(o.predicted == o.gold for o in committed)
        table.append([*group, len(items), len(committed), len(committed) / len(items),
                      right / len(committed) if committed else None])
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=get_settings().shared_data_dir)
    parser.add_argument("--n", type=int, default=400, help="pairs per set (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write every outcome here")
    args = parser.parse_args(argv)
    began = time.monotonic()
    outcomes = run(args.data, args.n, args.seed)
    if not outcomes:
        print(f"no data found under {args.data}", file=sys.stderr)
        return 2
    headers = ["set", "pairs", "committed", "coverage", "precision"]
    print(format_table(headers, rows(outcomes, lambda o: (o.dataset,)), frozenset({"coverage", "precision"})))
    print()
    print(format_table(["set", "direction", "pairs", "committed", "coverage", "precision"],
                       rows(outcomes, lambda o: (o.dataset, o.direction)), frozenset({"coverage", "precision"})))
    print()
    said = Counter((o.predicted, o.predicted == o.gold) for o in outcomes if o.predicted != UNKNOWN)
    labels = sorted({o.predicted for o in outcomes if o.predicted != UNKNOWN})
    print(format_table(["label said", "times", "right", "precision"],
                       [[label, said[(label, True)] + said[(label, False)], said[(label, True)],
                         said[(label, True)] / (said[(label, True)] + said[(label, False)])] for label in labels],
                       frozenset({"precision"})))
    committed = [o for o in outcomes if o.predicted != UNKNOWN]
    overall = sum(o.predicted == o.gold for o in committed) / len(committed) if committed else 0.0
    print(f"\noverall: {len(outcomes)} pairs, coverage {len(committed) / len(outcomes):.3f}, "
          f"precision {overall:.3f} ({time.monotonic() - began:.0f} s, n={args.n}, seed={args.seed})")
    if args.json:
        args.json.write_text("\n".join(json.dumps(o.__dict__) for o in outcomes) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
