"""How many attacked pairs could end in a natural H* at all? The first round's ceiling.

The search stops at its first success, so a run says nothing about the successes it did not ask
for. This bench asks the victim about *every* first-round candidate of each attacked pair of a
run (the shipped recipe's generation and constraint chain, no ``top_k`` cut), and writes, per
pair, the candidates that fool it with their operator, natural estimate and place in the round's
order. ``report`` joins the blind labels: per setup, the share of pairs with a one-edit H* that
fools the victim, with one that is not a double negation, and with one the judges give the target
label and ``ok`` English, beside what the run ended in.

    python bench/natural_ceiling.py run results/validity/v47_dev.jsonl --setups E2E,C2C,N2N \\
        --out results/validity/ceiling/v47_dev.jsonl
    python bench/natural_ceiling.py to-label results/validity/ceiling/*.jsonl \\
        --labels results/validity/labels.jsonl --out /tmp/to_label.jsonl   # blind: P and H* only
    python bench/natural_ceiling.py report results/validity/ceiling/*.jsonl \\
        --labels results/validity/labels.jsonl

``to-label`` takes, per pair whose run did not end in a natural success, the fooling non-double-
negation candidates with the highest natural estimate (``--per-pair``, default 2; v49 used 8) that
no label covers yet: a bounded check, so the report's "natural reachable" is a lower bound on the
true ceiling (a pair counts only where a labelled candidate is natural), and its "at most" adds
every pair with a fooling lexical candidate no label covers.

``second CEILING`` goes one edit further on the pairs where no first-round lexical edit fools the
victim: a whole second round from each of the first ``--starts`` (5) lexical candidates, every
candidate asked, written in the same form (each fooling H* with the first edit it went ``via``),
so ``to-label`` and ``report`` read it as they read a first round.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm  # noqa: E402

from bench.validity import item_key, read_jsonl, read_labels, source_recipe, with_texts  # noqa: E402
from engine.api import get_settings  # noqa: E402
from engine.attack.build import Resources, build  # noqa: E402
from engine.attack.recipe import load_recipe  # noqa: E402
from engine.natlog.setups import get_setup  # noqa: E402
from engine.reports.tables import RATIOS, format_table  # noqa: E402
from engine.victim.model import load_victim  # noqa: E402

LAST_RESORT = "DoubleNegation"
EVERY = 1_000_000


def _parts(recipe: str, victim: str | None) -> tuple[Any, Any]:
    """The recipe's attack, built once, and the victim."""
    settings = get_settings()
    return build(load_recipe(recipe, settings), Resources.of(settings)), load_victim(victim, settings=settings)


def _fooling(victim: Any, row: dict[str, Any], candidates: list[Any], via: list[Any] | None = None) -> list[dict[str, Any]]:
    """``candidates`` asked of ``victim`` against ``row``'s premise: those it answers other than the
    target label, each with its place in ``candidates`` (and, with ``via``, the first edit it came from)."""
    premise = row["premise"]
    preds = victim.predict([(premise, c.text) for c in candidates]) if candidates else []
    return [
        {"h_star": c.text, "key": item_key(premise, c.text), "operator": c.operator, "position": n,
         "naturalness": c.naturalness, "validity": c.validity, "victim": p.label.value,
         **({"via": {"h_star": via[n].text, "operator": via[n].operator}} if via is not None else {})}
        for n, (c, p) in enumerate(zip(candidates, preds)) if p.label.value != row["target_label"]
    ]


def _write(path: Path, rows: list[dict[str, Any]], began: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} pairs to {path} in {time.monotonic() - began:.0f} s", file=sys.stderr)


def _first_rounds(rows: list[dict[str, Any]], attack: Any,
                  desc: str) -> Iterator[tuple[dict[str, Any], Any, Any, list[Any]]]:
    """Each row with its setup and its whole first round, with a progress bar; rows whose H cannot
    be read are left out after a one-line note."""
    for row in tqdm(rows, desc=desc, unit="pair", mininterval=10):
        setup = get_setup(row["setup"])
        local = attack.with_recipe(source_recipe(attack.recipe, row["source"]))
        first = first_round_all(row, setup, local)
        if first is not None:
            yield row, setup, local, first


def run(args: argparse.Namespace) -> None:
    attack, victim = _parts(args.recipe, args.victim)
    wanted = set(args.setups.split(","))
    rows = [r for r in with_texts(read_jsonl(args.run)) if r["setup"] in wanted and r["status"] != "skipped"]
    rows = rows[args.shard::args.shards]
    began = time.monotonic()
    out = []
    for row, _, _, found in _first_rounds(rows, attack, f"ceiling {args.run.name}"):
        fooling = _fooling(victim, row, found)
        out.append({
            "setup": row["setup"], "source": row["source"], "index": row["index"],
            "target_label": row["target_label"], "status": row["status"], "queries": row["queries"],
            "run_key": row.get("key"), "run_operators": row.get("operators", []), "run_edits": row.get("edits"),
            "candidates": len(found), "fooling": fooling,
        })
    _write(args.out, out, began)


def first_round_all(row: dict[str, Any], setup: Any, attack: Any) -> list[Any] | None:
    """Every candidate of the first round of ``row``'s attack in the order it would be asked (no
    ``top_k`` cut), or None after a one-line note when H cannot be read. ``attack`` carries the
    conventions of ``row``'s source already (:func:`_first_rounds`)."""
    from engine.attack.round import propose
    from engine.core.errors import InputError
    from engine.natlog.polarity import polarize
    from engine.parse import parse

    try:
        polarized = polarize(parse(row["hypothesis"], settings=attack.settings), conventions=attack.reading)
        (proposal,) = propose(attack, polarized, [setup], row["premise"], top_k=EVERY)
    except InputError as exc:
        print(f"skipped {row['source']} pair: {exc}", file=sys.stderr)
        return None
    return list(proposal.candidates)


def second(args: argparse.Namespace) -> None:
    """The second round's reach on the pairs the first round cannot fool with a lexical edit: from
    each of the first ``--starts`` lexical candidates in the round's order, a whole second round
    (no ``top_k`` cut), every candidate asked; the fooling ones whose two edits are both lexical
    are kept, each with the first edit it went ``via``."""
    from engine.attack.round import RoundStart, candidate_round
    from engine.attack.search import allowed_next
    from engine.core.errors import InputError
    from engine.natlog.polarity import polarize
    from engine.natlog.relations import Relation, join_sets
    from engine.parse import parse

    attack, victim = _parts(args.recipe, args.victim)
    rows = [r for r in with_texts(read_jsonl(args.ceiling))
            if not any(f["operator"] != LAST_RESORT for f in r["fooling"])][args.shard::args.shards]
    began = time.monotonic()
    out = []
    for row, setup, local, first in _first_rounds(rows, attack, f"second round {args.ceiling.name}"):
        reference = local.ranker.scorer.score([row["hypothesis"]])[0]
        starts = [c for c in first if c.operator != LAST_RESORT][:args.starts]
        found: list[tuple[Any, Any]] = []
        seen = {c.text for c in first}
        for start in starts:
            composed = join_sets(frozenset({Relation.EQUIVALENCE}), {start.relation})
            alternated = (frozenset(start.new.lower().split())
                          if start.lexical_relation is Relation.ALTERNATION and start.new else frozenset())
            try:
                polarized = polarize(parse(start.text, settings=local.settings), conventions=local.reading)
            except InputError:
                continue
            round_two = candidate_round(local, RoundStart(
                polarized, setup, row["hypothesis"], row["premise"], reference, allowed_next(composed, setup),
                composed, (start.operator,), alternated, frozenset(seen), top_k=EVERY))
            fresh = [c for c in round_two.kept if c.operator != LAST_RESORT and c.text not in seen]
            seen.update(c.text for c in fresh)
            found += [(start, c) for c in fresh]
        fooling = _fooling(victim, row, [c for _, c in found], via=[s for s, _ in found])
        out.append({**{k: v for k, v in row.items() if k not in ("premise", "hypothesis")},
                    "starts": len(starts), "candidates": len(found), "fooling": fooling})
    _write(args.out, out, began)


def _best(row: dict[str, Any], per_pair: int) -> list[dict[str, Any]]:
    """The fooling candidates that are not double negations, highest natural estimate first."""
    lexical = [f for f in row["fooling"] if f["operator"] != LAST_RESORT]
    return sorted(lexical, key=lambda f: -(f["naturalness"] or 0.0))[:per_pair]


def _natural(label: dict[str, Any] | None, target: str) -> bool:
    return label is not None and label["label"] == target and label["english"] == "ok"


def to_label(args: argparse.Namespace) -> None:
    labels = read_labels(args.labels)
    todo: dict[str, dict[str, str]] = {}
    for path in args.ceilings:
        for row in with_texts(read_jsonl(path)):
            if row["status"] == "success" and _natural(labels.get(row["run_key"] or ""), row["target_label"]):
                continue  # the run already ended natural
            for f in _best(row, args.per_pair):
                if f["key"] not in labels:
                    todo[f["key"]] = {"key": f["key"], "premise": row["premise"], "hypothesis": f["h_star"]}
    items = list(todo.values())
    random.Random(args.seed).shuffle(items)
    args.out.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    print(f"{len(items)} pairs to label -> {args.out}")


def report(args: argparse.Namespace) -> None:
    labels = read_labels(args.labels)
    rows = [r for path in args.ceilings for r in read_jsonl(path)]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups["all"].append(row)
        groups[row["setup"]].append(row)
        groups[f"source {row['source']}"].append(row)
    table = []
    for name in ["all", "E2E", "C2C", "N2N", *sorted(k for k in groups if k.startswith("source "))]:
        members = groups.get(name, [])
        if not members:
            continue
        n = len(members)
        run_natural = [r["status"] == "success" and _natural(labels.get(r["run_key"] or ""), r["target_label"])
                       for r in members]
        any_fool = [bool(r["fooling"]) for r in members]
        lexical = [any(f["operator"] != LAST_RESORT for f in r["fooling"]) for r in members]
        # A pair reaches a natural one-edit H*: the run's own natural success, or a labelled fooling
        # candidate with the target label and ok English.
        reach = [nat or any(_natural(labels.get(f["key"]), r["target_label"]) for f in r["fooling"])
                 for r, nat in zip(members, run_natural)]
        # At most: those, and the pairs with a fooling lexical candidate no label covers yet.
        most = [ok or any(f["operator"] != LAST_RESORT and f["key"] not in labels for f in r["fooling"])
                for r, ok in zip(members, reach)]
        checked = [any(f["key"] in labels for f in _best(r, args.per_pair)) for r in members]
        fooling = [len(r["fooling"]) for r in members]
        table.append([name, n, sum(run_natural) / n, sum(any_fool) / n, sum(lexical) / n, sum(reach) / n,
                      sum(most) / n, sum(checked), float(statistics.median(r["candidates"] for r in members)),
                      float(statistics.median(fooling))])
    headers = ["group", "pairs", "run natural", "any fools", "lexical fools", "natural reachable",
               "at most", "pairs checked", "candidates median", "fooling median"]
    print(format_table(headers, table, RATIOS | {"run natural", "any fools", "lexical fools", "natural reachable", "at most"}))
    print("run natural: the run ended in a success judged target label and ok English; any fools: some first-round "
          "candidate fools the victim; lexical fools: one that is not a double negation; natural reachable: the "
          "run's natural success or a labelled fooling candidate with the target label and ok English (a lower "
          "bound: only the labelled candidates count); at most: those and every pair with a fooling lexical candidate no "
          "label covers yet.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(required=True)
    commands = {
        "run": (run, "every first-round candidate of a run's attacked pairs, asked of the victim", "run"),
        "second": (second, "a whole second round from the first lexical candidates, on the pairs a ceiling file "
                           "shows no first-round lexical edit fools", "ceiling"),
        "to-label": (to_label, "the best fooling lexical candidates no label covers yet (P and H* only)", "ceilings"),
        "report": (report, "the ceiling per setup and source, with the labels", "ceilings"),
    }
    for name, (func, text, positional) in commands.items():
        command = sub.add_parser(name, help=text)
        command.add_argument(positional, type=Path, nargs="+" if positional == "ceilings" else None)
        command.set_defaults(func=func)
        if name in ("run", "second"):  # the attack's parts, and a share of the pairs
            command.add_argument("--out", type=Path, required=True)
            command.add_argument("--recipe", default="default")
            command.add_argument("--victim", default=None)
            command.add_argument("--shard", type=int, default=0)
            command.add_argument("--shards", type=int, default=1)
        else:  # what the labels say
            command.add_argument("--labels", type=Path, required=True)
            command.add_argument("--per-pair", type=int, default=2)
    sub.choices["run"].add_argument("--setups", default="E2E,C2C,N2N")
    sub.choices["second"].add_argument("--starts", type=int, default=5)
    sub.choices["to-label"].add_argument("--out", type=Path, required=True)
    sub.choices["to-label"].add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    given = [getattr(args, name, None) for name in ("run", "ceiling")] + list(getattr(args, "ceilings", None) or [])
    if missing := [str(path) for path in given if path is not None and not path.is_file()]:
        parser.error(f"no such file: {', '.join(missing)}")
    if getattr(args, "labels", None) is not None and not args.labels.is_file():
        parser.error(f"no such labels file: {args.labels}")
    args.func(args)


if __name__ == "__main__":
    main()
