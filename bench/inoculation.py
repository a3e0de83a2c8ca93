"""Inoculation curves per semantic fragment (Richardson et al. 2020; Liu et al. 2019's method).

    python bench/inoculation.py --k 0,50,100,500 --dev-limit 300 --original-limit 300 \\
        --out docs/probes/inoculation-fragments.json --plots docs/probes

For each fragment, a fresh copy of the victim is fine-tuned on k items of the fragment's released
``train.tsv`` and scored on (a seeded sample of) its ``dev.tsv`` and on SNLI test's TEST half (the
original benchmark the offline victim never trained on). Writes every curve with Liu et al.'s
reading (learned without loss / at a cost / not learned) to ``--out``, and one SVG per fragment
group (the logic fragments; the monotonicity fragments) to ``--plots``. Minutes per fragment on two
cores: this is a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import get_settings  # noqa: E402
from engine.data.readers import read_pairs  # noqa: E402
from engine.probes.fragments import LOGIC_FRAGMENTS, MONOTONICITY_FRAGMENTS, read  # noqa: E402
from engine.probes.inoculation import InoculationSettings, inoculate, outcome, parse_ks  # noqa: E402
from engine.probes.svg_plot import inoculation_svg  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402

GROUPS = {"logic": LOGIC_FRAGMENTS, "monotonicity": MONOTONICITY_FRAGMENTS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", default="0,50,100,500")
    parser.add_argument("--fragments", default=None, help="comma-separated (default: all)")
    parser.add_argument("--victim", default=None)
    parser.add_argument("--dev-limit", type=int, default=300)
    parser.add_argument("--original-limit", type=int, default=300)
    parser.add_argument("--epochs", type=float, default=InoculationSettings.epochs)
    parser.add_argument("--learning-rate", type=float, default=InoculationSettings.learning_rate)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/probes/inoculation-fragments.json"))
    parser.add_argument("--plots", type=Path, default=Path("docs/probes"))
    args = parser.parse_args(argv)

    settings = get_settings()
    folder = settings.shared_data_dir / "semantic_fragments"
    if not folder.is_dir():
        print(f"error: {folder}: no semantic fragments (the shared data folder)", file=sys.stderr)
        return 2
    ks = parse_ks(args.k)
    wanted = args.fragments.split(",") if args.fragments else [*LOGIC_FRAGMENTS, *MONOTONICITY_FRAGMENTS]
    original = read_pairs(settings.shared_data_dir / "snli_test.tsv", "auto", "TEST")
    original = random.Random(args.seed).sample(original, min(args.original_limit, len(original)))
    victim = args.victim or settings.victim
    config = InoculationSettings(epochs=args.epochs, learning_rate=args.learning_rate, max_minutes=30.0)
    curves = {}
    for fragment in tqdm(wanted, desc="fragments", unit="fragment"):
        train = read(folder / fragment / "train.tsv")
        dev = read(folder / fragment / "dev.tsv")
        dev = random.Random(args.seed).sample(dev, min(args.dev_limit, len(dev)))
        curves[fragment] = inoculate(victim, None, train, dev, original, ks, settings, config)
        points = curves[fragment]
        print(f"\n{fragment}: {outcome(points, len(dev), len(original))}")
        print(format_table(["k", "probe accuracy", "original accuracy", "steps", "seconds"],
                           [[p.k, p.probe_accuracy, p.original_accuracy, p.steps, p.seconds] for p in points],
                           ratios=frozenset({"probe accuracy", "original accuracy"})))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "victim": victim, "ks": ks, "dev_limit": args.dev_limit, "original": "snli_test.tsv TEST half",
        "original_limit": len(original), "config": asdict(config),
        "fragments": {f: {"outcome": outcome(p, args.dev_limit, len(original)), "points": [asdict(x) for x in p]}
                      for f, p in curves.items()},
    }, indent=1), encoding="utf-8")
    args.plots.mkdir(parents=True, exist_ok=True)
    for group, members in GROUPS.items():
        chosen = {f: curves[f] for f in members if f in curves}
        if chosen:
            (args.plots / f"inoculation-{group}.svg").write_text(
                inoculation_svg(chosen, f"Inoculation by fine-tuning: {group} fragments"), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
