"""The Write page's latency: once the models are loaded, how long the victim's answer on (P, H*)
and natural logic's verdict on H -> H* take for an edit a person might type.

    python bench/write_latency.py --data ../shared/data/snli_test.tsv --split TEST --limit 40 [--seed 0] \
        [--out results/speed/write_latency.md]

For a seeded sample of the file's pairs, the "typed" edit of H is the engine's best candidate in a
label-preserving setup (E2E, C2C or N2N by the pair's label; proposed before the clock starts): the
kind of one-word edit a person makes. Timed per edit, as the page runs it after each pause in typing:
the victim on (P, H*) and ``label_after_edit`` (the verifier parses H and H*, aligns them and
composes the relations). Every edit is new to the process (no cached answer). Prints the median,
90th percentile and maximum, and the share within one second; ``--out`` writes it as Markdown. The
page adds its 0.3 s typing pause and the drawing to these times.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import (  # noqa: E402
    Resources,
    build,
    get_settings,
    label_after_edit,
    load_recipe,
    load_victim,
    parse,
    polarize,
    propose,
    read_pairs,
    setups_for_label,
)
from engine.reports.tables import format_table  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--split", default="TEST")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--victim", default="offline")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    settings = get_settings()
    pairs = [p for p in read_pairs(args.data) if not args.split or p.split in ("", args.split)]
    random.Random(args.seed).shuffle(pairs)
    attack = build(load_recipe("default", settings), Resources.of(settings))
    victim = load_victim(args.victim, settings=settings)
    label_after_edit("entailment", "A dog runs.", "An animal runs.", settings)  # models loaded, as on the page
    victim.predict([("A dog runs.", "An animal runs.")])
    rows, times = [], []
    for pair in pairs:
        if len(times) >= args.limit:
            break
        same = next(s for s in setups_for_label(pair.label) if s.target_label == s.source_label)
        try:
            (proposal,) = propose(attack, polarize(parse(pair.hypothesis, settings=settings),
                                                    conventions=attack.reading), [same], pair.premise, 1)
        except Exception:  # noqa: BLE001 - an unparsable hypothesis: no edit to time
            continue
        if not proposal.candidates:
            continue
        hstar = proposal.candidates[0].text
        began = time.perf_counter()
        victim.predict([(pair.premise, hstar)])
        asked = time.perf_counter()
        verdict = label_after_edit(pair.label, pair.hypothesis, hstar, settings)
        done = time.perf_counter()
        times.append(done - began)
        rows.append([pair.hypothesis[:50], hstar[:50], verdict.label, f"{(asked - began) * 1000:.0f}",
                     f"{(done - asked) * 1000:.0f}"])
    summary = [["edits", len(times)], ["median s", f"{statistics.median(times):.3f}"],
               ["90th percentile s", f"{percentile(times, 0.9):.3f}"], ["max s", f"{max(times):.3f}"],
               ["within 1 s", f"{sum(t <= 1.0 for t in times) / len(times):.2f}"]]
    table = format_table(["measure", "value"], summary)
    print(table)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        detail = format_table(["H", "H*", "verdict", "victim ms", "verdict ms"], rows)
        Path(args.out).write_text(
            "# The Write page's latency\n\n`python bench/write_latency.py "
            + " ".join(a for a in (argv or sys.argv[1:])) + "`\n\n" + table + "\n\n" + detail + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
