"""``augment`` and ``repair`` subcommands: successful H* as training data, and the whole repair loop
(:mod:`engine.augment`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.attack.build import Resources, build
from engine.attack.recipe import load_recipe, recipe_names
from engine.augment.export import (
    DEFAULT_MIN_VALIDITY,
    attack_examples,
    export_augmentation,
    held_out_keys,
    profile_anchors,
    profile_examples,
    read_verdicts,
    with_anchors,
)
from engine.augment.repair import (
    MIN_PAIRS,
    REPAIR_HELD_OUT,
    REPAIR_MINE,
    RepairReport,
    RepairSpec,
    augment_file,
    repair_fragments,
    report_path,
    run_repair,
)
from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.profile.runner import DEFAULT_BUDGET, profile_setups
from engine.reports.tables import format_table
from engine.store.store import RunStore
from engine.victim.training import OFFLINE_EVAL, DataSource, TrainConfig


def register(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser("augment", help="export the successful H* of attack and profile runs as a training file "
                                       "(judged valid, or estimated valid where unjudged), with their provenance")
    a.add_argument("--run", action="append", default=[], metavar="NAME", help="an attack run (repeatable)")
    a.add_argument("--profile", action="append", default=[], metavar="NAME", help="a profile run (repeatable)")
    a.add_argument("--out", type=Path, required=True, help="the training file to write (JSON Lines)")
    a.add_argument("--verdicts", type=Path, default=None,
                   help="the study's verdicts: python -m annotations export --format jsonl (judged H* are kept only "
                        "when valid)")
    a.add_argument("--min-validity", type=float, default=DEFAULT_MIN_VALIDITY,
                   help=f"the validity estimate an unjudged H* needs (default {DEFAULT_MIN_VALIDITY})")
    a.add_argument("--held-out", action="append", default=[], metavar="SPEC",
                   help="data the victims are evaluated, profiled or attacked on later: PATH[,format=F][,split=S] "
                        "(repeatable; the offline recipe's evaluation files are always held out)")
    a.add_argument("--anchors", action="store_true",
                   help="also export, per phenomenon of the profile runs, as many H* the victim got right as fooled it, "
                        "other labels first (so no phenomenon becomes a label of its own)")
    a.add_argument("--db", type=Path, default=None, help="the runs store (default: settings.db_path)")
    a.set_defaults(func=cmd_augment)

    r = sub.add_parser("repair", help="the repair loop: profile a victim on training pairs, train a new one with what "
                                      "fooled it, profile both on held-out pairs")
    r.add_argument("--name", default="repair", help="prefix of the loop's runs, files and victim (the same name resumes)")
    r.add_argument("--victim", default=None, help="the victim to repair (default: settings.victim)")
    r.add_argument("--mine", action="append", default=None, metavar="SPEC",
                   help=f"pairs to mine H* on (repeatable; default: {'; '.join(REPAIR_MINE)})")
    r.add_argument("--held-out", action="append", default=None, metavar="SPEC",
                   help=f"pairs both victims are profiled on (repeatable; default: {'; '.join(REPAIR_HELD_OUT)})")
    r.add_argument("--setup", default="E2E,C2C,N2N", help="setups, comma-separated")
    r.add_argument("--recipe", default="default", help=f"the recipe whose first round is asked: {', '.join(recipe_names())}")
    r.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="candidates asked per phenomenon and pair")
    r.add_argument("--min-validity", type=float, default=DEFAULT_MIN_VALIDITY)
    r.add_argument("--epochs", type=float, default=TrainConfig.epochs)
    r.add_argument("--no-anchors", action="store_true",
                   help="train only on what fooled the victim (default: as many anchors per phenomenon beside it)")
    r.add_argument("--output", type=Path, default=None, help="the new victim's folder (default: models_dir/victim-NAME)")
    r.add_argument("--json", type=Path, default=None,
                   help="write the loop's measurements here too (always: data_dir/augment/NAME.report.json, which the "
                        "Report card reads)")
    r.add_argument("--db", type=Path, default=None, help="the runs store (default: settings.db_path)")
    r.set_defaults(func=cmd_repair)


def cmd_augment(args: argparse.Namespace) -> int:
    settings = get_settings()
    if not args.run and not args.profile:
        raise InputError("name at least one --run or --profile to export from")
    if args.anchors and not args.profile:
        raise InputError("--anchors needs a --profile run: attack runs keep no H* the victim got right")
    verdicts = read_verdicts(args.verdicts) if args.verdicts else None
    base = settings.shared_data_dir
    held = held_out_keys([DataSource.parse(s, base) for s in (*OFFLINE_EVAL, *args.held_out)])
    with RunStore.open(args.db or settings.db_path) as store:
        examples = [e for name in args.run for e in attack_examples(store, name, verdicts)]
        examples += [e for name in args.profile for e in profile_examples(store, name, verdicts)]
        anchors = [e for name in args.profile for e in profile_anchors(store, name, verdicts)] if args.anchors else []
    report = export_augmentation(with_anchors(examples, anchors, held, args.min_validity), args.out, held,
                                 args.min_validity)
    print(report.summary())
    print(format_table(["phenomenon or operators", "examples"], [[k, v] for k, v in report.by_what.items()]))
    return 0


def cmd_repair(args: argparse.Namespace) -> int:
    settings = get_settings()
    base = settings.shared_data_dir
    mine = tuple(DataSource.parse(s, base) for s in (args.mine or REPAIR_MINE))
    held_out = tuple(DataSource.parse(s, base) for s in (args.held_out or REPAIR_HELD_OUT))
    for source in mine + held_out:
        if not source.path.is_file():
            raise InputError(f"{source.path}: no such data file")
    if args.budget < 1:
        raise InputError("--budget must be at least 1")
    spec = RepairSpec(args.name, args.victim or settings.victim, mine, held_out, profile_setups(args.setup),
                      args.budget, args.min_validity, args.output, epochs=args.epochs, anchors=not args.no_anchors,
                      scored=repair_fragments(base))
    attack = build(load_recipe(args.recipe, settings), Resources.of(settings))
    with RunStore.open(args.db or settings.db_path) as store:
        report = run_repair(store, spec, attack, settings, augment_path=augment_file(settings, args.name),
                            on_step=lambda line: print(f"[repair] {line}", flush=True))
    print(format_repair_report(report))
    for path in (report_path(settings, args.name), args.json):
        if path is not None:
            path.write_text(json.dumps(report.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


def format_repair_report(report: RepairReport) -> str:
    """What ``engine repair`` prints at its end: the new victim, both victims' clean accuracy and the
    three cells the first failed most on, per held-out file and pooled."""
    return "\n".join((
        f"\nthe new victim: {report.victim_after}",
        format_table(["data", "accuracy before", "accuracy after"],
                     [[name, report.accuracy_before[name], report.accuracy_after.get(name)]
                      for name in report.accuracy_before], ratios=frozenset({"accuracy before", "accuracy after"})),
        f"\nthe three phenomena the victim failed most on, per held-out file (cells of {MIN_PAIRS} pairs or more, "
        "pairs both victims got right):",
        format_table(["data", "phenomenon", "setup", "pairs", "before", "after", "relative drop"],
                     [[w.source, w.phenomenon, w.setup, w.pairs, w.before, w.after, w.relative_drop]
                      for w in report.weakest], ratios=frozenset({"before", "after", "relative drop"}))))
