"""Could a cheap first order decide which candidates the ranking LM scores? (issue 48, item 1)

    python bench/prefilter_recall.py --data ../shared/data/snli_test.tsv --split TEST --per-setup 25 \
        [--setups C2C,E2E,N2N] [--seed 0] [--keep 100,150,200,300] [--out results/speed/prefilter_recall.md]

For a seeded sample of pairs per setup, the first round of the default recipe is generated and put
through the constraints that need no LM (relation guard, premise check, edit cap, no repeat,
reparse check); every survivor is then scored by the ranking LM, as a round does today. The exact
ranked list is the best ``top_k`` of those under the fluency floor. A pre-filter that scores only the
best M candidates by a cheap proxy leaves a round's attack unchanged exactly when every member of
that list is among the M. Per proxy and M: the rounds left unchanged, the ranked-list members lost,
and the share of LM-scored candidates left. Proxies: the rarest new word's Zipf frequency
(``zipf``), the same less 0.3 per new word (``zipf-short``), and the new word's frequency against the
old word's (``zipf-vs-old``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wordfreq import zipf_frequency  # noqa: E402

from engine.api import get_settings  # noqa: E402
from engine.attack.build import Resources, build  # noqa: E402
from engine.attack.recipe import load_recipe  # noqa: E402
from engine.constraints import CheckContext  # noqa: E402
from engine.core.errors import InputError  # noqa: E402
from engine.data.readers import read_pairs  # noqa: E402
from engine.natlog.polarity import polarize  # noqa: E402
from engine.natlog.setups import get_setup  # noqa: E402
from engine.parse import parse  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402

Row = dict[str, object]


def rarest(words: str | None) -> float:
    found = [w for w in (words or "").replace("-", " ").split() if w.isalpha()]
    return min((zipf_frequency(w, "en") for w in found), default=8.0)


PROXIES: dict[str, Callable[[Row], float]] = {  # lower: scored first
    "zipf": lambda c: -rarest(str(c["new"] or "")),
    "zipf-short": lambda c: -(rarest(str(c["new"] or "")) - 0.3 * len(str(c["new"] or "").split())),
    "zipf-vs-old": lambda c: -(rarest(str(c["new"] or "")) - 0.5 * rarest(str(c["old"] or ""))),
}


def collect(args: argparse.Namespace) -> tuple[list[dict[str, object]], int, float]:
    settings = get_settings()
    attack = build(load_recipe("default", settings), Resources.of(settings))
    scorer = attack.ranker.scorer
    names = [c.name for c in attack.chain.constraints]
    floor = attack.chain.constraints[names.index("fluency-floor")]
    cheap = attack.chain.constraints[:names.index("fluency-floor")]
    pairs = read_pairs(args.data, args.format, args.split)
    rng = random.Random(args.seed)
    rounds = []
    for name in args.setups.split(","):
        setup = get_setup(name)
        mine = [p for p in pairs if p.label == setup.source_label.value]
        for pair in rng.sample(mine, min(args.per_setup, len(mine))):
            try:
                polarized = polarize(parse(pair.hypothesis, settings=settings), conventions=attack.reading)
            except InputError:
                continue
            reference = scorer.score([pair.hypothesis])[0]
            found = attack.generate(polarized, setup.relations, setup=setup.name, settings=attack.settings,
                                    fill_in=attack.fill_in, alternated=frozenset(), senses=attack.senses,
                                    premise=pair.premise, operators=attack.operators)
            check = CheckContext(setup, pair.premise, source=polarized, settings=attack.settings, scorer=scorer,
                                 reference=reference)
            kept = list(found)
            for constraint in cheap:
                kept = constraint.keep(kept, check)
            scores = scorer.score([c.text for c in kept]) if kept else []
            rounds.append({"setup": setup.name, "reference": reference, "candidates": [
                {"text": c.text, "operator": c.operator, "old": c.old, "new": c.new, "score": s}
                for c, s in zip(kept, scores)]})
            print(f"{setup.name} {len(kept):4d} candidates: {pair.hypothesis}", file=sys.stderr)
    return rounds, attack.search.top_k, float(getattr(floor, "fluency_floor", 0.0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--format", default="auto")
    parser.add_argument("--split", default=None)
    parser.add_argument("--setups", default="C2C,E2E,N2N")
    parser.add_argument("--per-setup", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", default="100,150,200,300")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    began = time.monotonic()
    rounds, top_k, floor = collect(args)
    total = sum(len(r["candidates"]) for r in rounds)  # type: ignore[arg-type]
    sizes = sorted(len(r["candidates"]) for r in rounds)  # type: ignore[arg-type]
    operators = Counter(str(c["operator"]) for r in rounds for c in r["candidates"])  # type: ignore[attr-defined]
    rows = []
    for proxy, key in PROXIES.items():
        for m in (int(x) for x in args.keep.split(",")):
            same = lost = scored = 0
            for r in rounds:
                cands: list[Row] = r["candidates"]  # type: ignore[assignment]
                limit = floor * float(r["reference"])  # type: ignore[arg-type]
                passing = [c for c in cands if not floor or float(c["score"]) <= limit]  # type: ignore[arg-type]
                ranked = {c["text"] for c in sorted(passing, key=lambda c: float(c["score"]))[:top_k]}  # type: ignore[arg-type]
                chosen = {c["text"] for c in (sorted(cands, key=key)[:m] if len(cands) > m else cands)}
                scored += min(len(cands), m)
                same += ranked <= chosen
                lost += len(ranked - chosen)
            rows.append([proxy, m, f"{same}/{len(rounds)}", lost, f"{scored / max(total, 1):.2f}"])
    table = format_table(["proxy", "M scored", "rounds unchanged", "ranked members lost", "share scored"], rows,
                         frozenset())
    head = (f"{len(rounds)} first rounds ({args.setups}, {args.per_setup} pairs each, seed {args.seed}), "
            f"{total} candidates after the constraints that need no LM; top_k {top_k}, fluency floor {floor}; "
            f"largest rounds {sizes[-5:]}; by operator {dict(operators.most_common())}")
    print(head + "\n\n" + table)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(f"# Pre-filter recall\n\n`python bench/prefilter_recall.py --data {args.data} --split "
                            f"{args.split} --per-setup {args.per_setup} --setups {args.setups} --seed {args.seed}` "
                            f"({time.strftime('%Y-%m-%d')}, {time.monotonic() - began:.0f} s)\n\n{head}\n\n{table}\n",
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
