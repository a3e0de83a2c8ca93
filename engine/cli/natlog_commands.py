"""``polarize``, ``verify`` and ``polarity-eval`` subcommands."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.natlog.evaluation import read_gold, score
from engine.natlog.polarity import polarize
from engine.natlog.relations import format_relations
from engine.natlog.triggers import (
    DEFINITE_READINGS,
    INDEFINITE_READINGS,
    NUMERAL_READINGS,
    Conventions,
    indefinite_reading,
)
from engine.parse import PARSERS, parse
from engine.reports.tables import spreadsheet_safe
from engine.verify.verifier import verify


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("polarize", help="mark each token of a sentence with its polarity (↑ ↓ =)")
    p.add_argument("text")
    p.add_argument("--json", action="store_true", help="print polarity, operators and projection list per token")
    p.add_argument("--pretokenized", action="store_true", help="split tokens on spaces only")
    p.add_argument("--parser", choices=PARSERS, default=None, help="parser backend (default: settings)")
    p.add_argument("--definite", choices=DEFINITE_READINGS, default=None,
                   help="reading of 'the' (default: settings.definite_reading)")
    p.add_argument("--numerals", choices=NUMERAL_READINGS, default=None,
                   help="reading of a bare subject numeral (default: settings.numeral_reading)")
    p.add_argument("--indefinite", choices=INDEFINITE_READINGS, default=None,
                   help="reading of an indefinite subject: existential (strict) or scene (as SNLI/SICK "
                        "annotators read captions); default: settings.indefinite_reading (auto: existential here)")
    p.set_defaults(func=cmd_polarize)

    v = sub.add_parser("verify", help="natural-logic relation from a premise to a hypothesis a few edits away; "
                                      "with --run, how many of a stored run's H* natural logic licenses")
    v.add_argument("--premise", default=None)
    v.add_argument("--hypothesis", default=None)
    v.add_argument("--json", action="store_true", help="print relation, label and derivation as JSON")
    v.add_argument("--run", default=None,
                   help="instead: verify(H, H*) for every successful attack of this stored run (NatLog's or a "
                        "peer's, e.g. RUN-pwws) against its setup's relations")
    v.add_argument("--db", type=Path, default=None, help="with --run: the store (default: settings.db_path)")
    v.add_argument("--csv", type=Path, default=None, help="with --run: write one row per attack here")
    v.add_argument("--show", type=int, default=5, help="with --run: attacks shown per verdict (default 5)")
    v.set_defaults(func=cmd_verify)

    e = sub.add_parser("polarity-eval", help="score the polarity marker on a gold file (tokens ending in ↑ ↓ =)")
    e.add_argument("file", type=Path)
    e.add_argument("--parser", choices=PARSERS, default=None, help="parser backend (default: settings)")
    e.add_argument("--definite", choices=DEFINITE_READINGS, default=None,
                   help="reading of 'the' (default: settings.definite_reading)")
    e.add_argument("--numerals", choices=NUMERAL_READINGS, default=None,
                   help="reading of a bare subject numeral (default: settings.numeral_reading)")
    e.add_argument("--indefinite", choices=INDEFINITE_READINGS, default=None,
                   help="reading of an indefinite subject: existential (strict) or scene (as SNLI/SICK "
                        "annotators read captions); default: settings.indefinite_reading (auto: existential here)")
    e.set_defaults(func=cmd_polarity_eval)


def cmd_verify(args: argparse.Namespace) -> int:
    if args.run is not None:
        if args.premise is not None or args.hypothesis is not None:
            raise InputError("give either --run or --premise and --hypothesis, not both")
        return cmd_verify_run(args)
    if args.premise is None or args.hypothesis is None:
        raise InputError("verify needs --premise and --hypothesis (or --run RUN to check a stored run's H*)")
    verdict = verify(args.premise, args.hypothesis, get_settings())
    if args.json:
        print(json.dumps(verdict.to_json(), ensure_ascii=False, indent=1))
        return 0
    relation = verdict.relation.symbol if verdict.relation else format_relations(verdict.relations)
    print(f"{verdict.label} ({relation if verdict.relations else 'no relation'})")
    for step in verdict.steps:
        print(f"  {step.line}")
    if verdict.reason:
        print(f"  {verdict.reason}")
    return 0


VERDICTS = ("re-derived", "unknown", "fails")


def cmd_verify_run(args: argparse.Namespace) -> int:
    """Per successful attack of a stored run, whether natural logic licenses H -> H* in the run's
    setup (:func:`engine.verify.verifier.self_check`): re-derived, unknown (no licensed relation for some
    edit: the studio cannot vouch for it), or fails (it derives a relation outside the setup's)."""
    import csv

    from engine.core.vocab import AttackStatus
    from engine.natlog.setups import get_setup
    from engine.reports.tables import format_table
    from engine.store.store import RunStore
    from engine.verify.verifier import self_check

    settings = get_settings()
    db = args.db or settings.db_path
    if not Path(db).is_file():
        raise InputError(f"{db}: no such store file")
    if args.show < 0:
        raise InputError(f"--show must be 0 or more, got {args.show}")
    with RunStore.open(db) as store:
        run = store.run(args.run)
        won = [a for a in store.attacks(run.id, with_trace=False) if a.record.status == AttackStatus.SUCCESS]
    setup = get_setup(run.setup)
    rows = []
    for attack in tqdm(won, desc=f"verify {run.name}", unit="H*", leave=False):
        check = self_check(attack.record.hypothesis, str(attack.record.adversarial_hypothesis), setup.relations,
                           settings)
        rows.append({"attack_id": attack.id, "hypothesis": attack.record.hypothesis,
                     "adversarial_hypothesis": attack.record.adversarial_hypothesis, **check.to_json()})
    print(f"run {run.name!r} ({run.system}, setup {setup.name}: H -> H* must be "
          f"{format_relations(setup.relations)}): {len(won)} successful attacks")
    if not won:
        return 0
    print(format_table(["verdict", "attacks", "share"],
                       [[v, n, n / len(rows)] for v in VERDICTS for n in [sum(r["status"] == v for r in rows)]],
                       ratios=frozenset({"share"})))
    for verdict in ("fails", "unknown", "re-derived"):
        shown = [r for r in rows if r["status"] == verdict][:args.show]
        if shown:
            print(f"\n{verdict}:")
            for r in shown:
                print(f"  #{r['attack_id']}: {r['hypothesis']} -> {r['adversarial_hypothesis']}")
                print(f"    {r['relations']}: {r['reason']}")
    if args.csv is not None:
        try:
            with args.csv.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in rows)
        except OSError as exc:
            raise InputError(f"{args.csv}: cannot write ({exc.strerror})") from exc
        print(f"\nwrote {len(rows)} rows to {args.csv}")
    return 0


def _conventions(args: argparse.Namespace) -> Conventions:
    settings = get_settings()
    return Conventions(args.definite or settings.definite_reading, args.numerals or settings.numeral_reading,
                       args.indefinite or indefinite_reading(settings.indefinite_reading))


def cmd_polarize(args: argparse.Namespace) -> int:
    result = polarize(parse(args.text, pretokenized=args.pretokenized, parser=args.parser, settings=get_settings()),
                      conventions=_conventions(args))
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=1))
    else:
        print(result.marked)
        for warning in result.warnings:
            print(f"warning: {warning}")
    return 0


def cmd_polarity_eval(args: argparse.Namespace) -> int:
    gold = read_gold(args.file)
    bar = tqdm(gold, desc="polarizing", unit="sentence", leave=False)
    conventions = _conventions(args)
    settings = get_settings()
    report = score(bar, lambda text: polarize(parse(text, pretokenized=True, parser=args.parser, settings=settings),
                                              conventions=conventions))
    for item in report.sentences:
        if not item.correct:
            where = f" ({item.gold.source})" if item.gold.source else ""
            kind = "" if item.logic_correct else "  [error]" if report.has_conventions else ""
            print(f"line {item.gold.line}{where}{kind}")
            print(f"  gold: {item.render(item.gold.marks)}")
            print(f"  pred: {item.render(item.predicted)}")
    sources = report.by_source()
    if len(sources) > 1:
        for name, part in sources.items():
            print(f"{name}: {len(part.sentences)} sentences, {part.summary}")
    print(report.summary)
    return 0
