"""Interactive latency: how long the first round of an attack takes, as the stepper and the
Candidates page run it, once the models are loaded.

    python bench/round_latency.py --data ../shared/data/snli_test.tsv --split TEST --limit 30 \
        [--setups E2E,C2C] [--seed 0] [--out results/speed/round_latency.md]

For a seeded sample of the file's pairs, per setup whose source label the pair has: the search is
started (the original pair asked, H parsed) and its first round run (generate, check, rank,
estimate, ask), each timed apart, in one process as the studio runs: every pair is new to it, so its
parses and scores are computed, while WordNet walks of common words are found in the caches as a
user's session finds them (the same hypothesis asked again is faster still). Prints the median,
90th percentile and maximum, per setup and overall, and the share of first rounds within one
second; ``--out`` writes the same table as Markdown.
Run "before" and "after" in one session: timings on a shared machine drift.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import get_settings  # noqa: E402
from engine.attack.build import Resources, build  # noqa: E402
from engine.attack.recipe import load_recipe  # noqa: E402
from engine.attack.search import Target, start_search  # noqa: E402
from engine.data.readers import read_pairs  # noqa: E402
from engine.natlog.setups import get_setup  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402
from engine.victim.model import load_victim  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--format", default="auto")
    parser.add_argument("--split", default=None)
    parser.add_argument("--setups", default="E2E,C2C")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recipe", default="default")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--slowest", type=int, default=3, help="list the N slowest first rounds with their H")
    args = parser.parse_args(argv)

    settings = get_settings()
    recipe = load_recipe(args.recipe, settings)
    victim = load_victim(settings=settings)
    attack = build(recipe, Resources.of(settings))
    setups = [get_setup(name) for name in args.setups.split(",")]
    pairs = read_pairs(args.data, args.format, args.split)
    rows, every, slow = [], [], []
    for setup in setups:
        mine = [p for p in pairs if p.label == setup.source_label.value]
        sample = random.Random(args.seed).sample(mine, min(args.limit, len(mine)))
        starts, firsts = [], []
        # Warm-up on a pair outside the sample: the first call of each model pays for its lazy
        # initialisation.
        for pair in (p for p in mine if p not in sample):
            if not (warm := start_search(attack, Target.of_pair(pair, setup), victim)).done:
                warm.step()
                break
        for pair in sample:
            began = time.perf_counter()
            search = start_search(attack, Target.of_pair(pair, setup), victim)
            started = time.perf_counter()
            if search.done:  # the victim is wrong on the pair already: nothing to attack
                continue
            first = search.step()
            starts.append(started - began)
            firsts.append(time.perf_counter() - started)
            slow.append((firsts[-1], setup.name, pair.hypothesis, len(first.candidates), first.rejected))
        every += firsts
        rows.append(row(setup.name, starts, firsts))
    rows.append(row("all", [], every))
    headers = ["setup", "pairs", "start s (median)", "first round s (median)", "p90", "max", "within 1 s"]
    table = format_table(headers, rows, frozenset())
    print(table)
    slowest = [f"{seconds:.1f} s {name} {hypothesis!r}: {ranked} ranked, {sum(rejected.values())} dropped by the "
               "constraints" for seconds, name, hypothesis, ranked, rejected in sorted(slow, reverse=True)[:args.slowest]]
    print("\n".join(slowest))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            "# First-round latency\n\n"
            f"`python bench/round_latency.py --data {args.data} --split {args.split} --limit {args.limit} "
            f"--setups {args.setups} --seed {args.seed} --recipe {args.recipe}` "
            f"({time.strftime('%Y-%m-%d')}, torch threads {settings.torch_threads or 'default'}):\n\n"
            + table + "\n\nThe slowest first rounds:\n\n" + "".join(f"- {line}\n" for line in slowest), encoding="utf-8")
    return 0


def row(name: str, starts: list[float], firsts: list[float]) -> list[object]:
    if not firsts:
        return [name, 0, "-", "-", "-", "-", "-"]
    return [name, len(firsts), round(statistics.median(starts), 2) if starts else "-",
            round(statistics.median(firsts), 2), round(percentile(firsts, 0.9), 2), round(max(firsts), 2),
            f"{sum(f <= 1.0 for f in firsts)}/{len(firsts)}"]


if __name__ == "__main__":
    raise SystemExit(main())
