"""Batch attack runs for several setups in one process (models loaded once), then the report.

    python bench/attack_runs.py --data ../shared/data/snli_test.tsv --limit 200 --db var/bench.sqlite

Each setup is an ordinary resumable run named ``bench-<SETUP>-<SPLIT>-n<LIMIT>``; rerunning continues
where it stopped. Prints each run's wall-clock time, the report table, and the perplexity of the
successful attacks' original hypotheses beside that of their H* (same float32 scorer), so the
report's PPL has a baseline.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from engine.api import get_settings
from engine.attack.build import Resources, build
from engine.attack.recipe import load_recipe
from engine.core.vocab import AttackStatus
from engine.natlog.setups import SETUPS, get_setup
from engine.reports.metrics import run_metrics
from engine.reports.tables import record_table
from engine.runs.runner import RunSpec, run_attacks
from engine.store.store import RunStore
from engine.victim.model import load_victim


@dataclass(frozen=True)
class PerplexityRow:
    """Mean / median perplexity of a run's successful attacks, before (H) and after (H*)."""

    run: str
    successful: int
    ppl_h: str
    ppl_h_star: str


def spread(values: list[float]) -> str:
    return f"{statistics.mean(values):.1f} / {statistics.median(values):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--format", default="auto")
    parser.add_argument("--split", default=None, help="SICK split, or TRAIN/TEST half of other files")
    parser.add_argument("--setups", default=",".join(SETUPS), help="comma-separated setup names")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--victim", default="offline")
    parser.add_argument("--db", type=Path, default=Path("var/bench.sqlite"))
    parser.add_argument("--no-alt-lm", action="store_true")
    args = parser.parse_args()

    settings = get_settings()
    began = time.monotonic()
    victim = load_victim(args.victim, settings=settings)
    attack = build(load_recipe("default", settings).with_alt_lm(False if args.no_alt_lm else None),
                   Resources.of(settings))
    print(f"models loaded in {time.monotonic() - began:.1f} s", flush=True)
    with RunStore.open(args.db) as store:
        for name in args.setups.split(","):
            setup = get_setup(name)
            spec = RunSpec(f"bench-{setup.name}-{args.split or 'all'}-n{args.limit}", args.data, args.format, setup,
                           args.victim, limit=args.limit, seed=args.seed, split=args.split)
            report = run_attacks(store, spec, attack, victim)
            print(f"{setup.name}: {report.selected} pairs ({report.resumed} resumed), {report.attacked} attacked, "
                  f"{report.successful} successful, {report.skipped} skipped in {report.seconds:.1f} s", flush=True)
        print(record_table(run_metrics(store)))
        print("\nPerplexity of the successful attacks' H and H* (mean / median)")
        rows = []
        for run in store.runs():
            won = [a.record for a in store.attacks(run.id, with_trace=False) if a.record.status == AttackStatus.SUCCESS]
            if won:
                before = attack.ranker.perplexity.score([r.hypothesis for r in won])
                after = [r.perplexity for r in won if r.perplexity is not None]
                rows.append(PerplexityRow(run.name, len(won), spread(before), spread(after)))
        print(record_table(rows))


if __name__ == "__main__":
    main()
