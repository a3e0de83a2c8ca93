"""Attack speed: wall time per pair, per failing pair and per pair that spends the whole budget.

    python bench/speed.py --data ../shared/data/snli_test.tsv --split TEST --limit 20 [--all-operators]
                          [--setups C2C,N2N] [--seed 0] [--db var/speed.sqlite]

Runs the setups on a seeded sample (models loaded once, a fresh store each time) and prints one
table: pairs attacked, successes, failures, wall seconds, seconds per attacked pair, per failing
pair, and per pair that spent the budget, with mean queries; then a fingerprint of the results
(pair, status, H*, queries) so that a run before and after a speed change can be checked for
identical results; then each cache's lookups and hit rate over the attacks (engine/core/caches.py).
Per setup it also counts the rounds, those that ran lazy (``lazy_round``: more candidates than
``top_k`` after the cheap checks) and the texts the ranking LM scored (its cache misses).

A second table is the ranking LM's share and its floor. Per attacked pair: the distinct candidates
the search asked the victim, the texts the LM scored (every use: the fluency floor, the ranking,
verb fit), the seconds its forward passes took, and so its cost per text. The fluency floor is a
constraint every asked candidate passes, so no order of the same checks can score fewer texts than
it asks: "LM floor s / pair" is the distinct asked candidates times the measured cost of a text,
what the LM alone would cost a round that scored only what it asks. The line after the table
adds it up: the attacks' seconds with the LM's time above its floor taken out.
``--all-operators`` turns every edit operator on and the insertion-fit cost, the
edit cap and the source check off (close to the settings of the measured runs of docs/attacks.md, where
failing attacks spend the budget).
Run "before" and "after" in one session: timings on a shared machine drift.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import get_settings  # noqa: E402
from engine.attack.build import Resources, build  # noqa: E402
from engine.attack.recipe import load_recipe  # noqa: E402
from engine.core import caches  # noqa: E402
from engine.core.vocab import AttackStatus  # noqa: E402
from engine.natlog.setups import SETUPS, get_setup  # noqa: E402
from engine.ranking.scoring import LMWork, lm_work  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402
from engine.runs.runner import RunHooks, RunSpec, run_attacks  # noqa: E402
from engine.store.store import RunStore  # noqa: E402
from engine.victim.model import load_victim  # noqa: E402


def mean(values: list[float]) -> float | None:
    return statistics.mean(values) if values else None


def distinct_asked(trace: dict) -> int:
    """The distinct candidate texts an attack asked the victim, over all its rounds."""
    return len({q["text"] for r in trace.get("rounds", []) for q in r.get("queried", [])})


def lm_floor(setup: str, attacks: list, lm: LMWork) -> tuple[list, float]:
    """One row of the LM table (per attacked pair: the distinct candidates asked, the LM's texts and
    seconds, its milliseconds a text, and the floor, asked x seconds a text), and the LM's seconds
    above its floor over the whole setup: what scoring only the asked candidates would save."""
    n = len(attacks)
    asked = [float(distinct_asked(a.record.trace or {})) for a in attacks]
    per_text = lm.seconds_per_text
    floor = sum(asked) * per_text if per_text is not None else lm.seconds
    row = [setup, mean(asked), lm.rows / n if n else None, lm.seconds / n if n else None,
           per_text * 1000 if per_text is not None else None, floor / n if n else None]
    return row, lm.seconds - floor


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--format", default="auto")
    parser.add_argument("--split", default=None)
    parser.add_argument("--setups", default=",".join(SETUPS))
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", type=Path, default=Path("var/speed.sqlite"))
    parser.add_argument("--all-operators", action="store_true")
    args = parser.parse_args(argv)

    settings = get_settings()
    recipe = load_recipe("every-operator" if args.all_operators else "default", settings)
    began = time.monotonic()
    victim = load_victim(settings=settings)
    attack = build(recipe, Resources.of(settings))
    loaded = time.monotonic() - began
    args.db.unlink(missing_ok=True)
    rows, floors, digest = [], [], hashlib.sha256()
    at_floor = attack_seconds = 0.0
    total, looked_up = time.monotonic(), caches.counts()
    with RunStore.open(args.db) as store:
        for name in args.setups.split(","):
            setup = get_setup(name)
            spec = RunSpec(f"speed-{setup.name}", args.data, args.format, setup, "offline", limit=args.limit,
                           seed=args.seed, split=args.split)
            lm_before = lm_work()
            report = run_attacks(store, spec, attack, victim, hooks=RunHooks(progress=False))
            lm = lm_work() - lm_before
            attacks = [a for a in store.attacks(report.run.id) if a.record.status != AttackStatus.SKIPPED]
            seconds = [float((a.record.trace or {}).get("seconds", 0.0)) for a in attacks]
            failed = [(s, a) for s, a in zip(seconds, attacks) if a.record.status == AttackStatus.FAILED]
            spent = [(s, a) for s, a in failed if a.record.queries >= recipe.search.query_budget - 1]
            rounds = [r for a in attacks for r in (a.record.trace or {}).get("rounds", [])]
            scored = sum(int(r.get("caches", {}).get("lm.scores", {}).get("misses", 0)) for r in rounds)
            rows.append([setup.name, len(attacks), report.successful, len(failed), round(report.seconds, 1),
                         mean(seconds), mean([s for s, _ in failed]), len(spent), mean([s for s, _ in spent]),
                         mean([float(a.record.queries) for a in attacks]), len(rounds),
                         sum(1 for r in rounds if r.get("windows")), scored])
            floor_row, above_floor = lm_floor(setup.name, attacks, lm)
            floors.append(floor_row)
            attack_seconds += report.seconds
            at_floor += report.seconds - above_floor
            for a in store.attacks(report.run.id, with_trace=False):
                digest.update(f"{setup.name}|{a.record.pair_index}|{a.record.status}|{a.record.adversarial_hypothesis}|"
                              f"{a.record.queries}\n".encode())
    headers = ["setup", "attacked", "successful", "failed", "wall s", "s / pair", "s / failing pair",
               "budget spent", "s / budget-spent pair", "queries / pair", "rounds", "lazy rounds", "LM-scored texts"]
    print(format_table(headers, rows, frozenset()))
    print("\n" + format_table(["setup", "asked / pair", "LM texts / pair", "LM s / pair", "LM ms / text",
                               "LM floor s / pair"], floors, frozenset()))
    print(f"\nattacks {attack_seconds:.1f} s; at the LM floor (everything else as measured) {at_floor:.1f} s, "
          f"{attack_seconds / at_floor if at_floor else float('nan'):.2f}x faster")
    print(f"\nmodels loaded in {loaded:.1f} s; attacks {time.monotonic() - total:.1f} s; "
          f"results fingerprint {digest.hexdigest()[:16]} (limit={args.limit}, seed={args.seed}, "
          f"all_operators={args.all_operators})")
    used = caches.since(looked_up)
    print("\n" + format_table(["cache", "lookups", "hits", "hit rate"],
                              [[name, c.lookups, c.hits, round(c.hit_rate or 0.0, 3)] for name, c in used.items()],
                              frozenset()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
