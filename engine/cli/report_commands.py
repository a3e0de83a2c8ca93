"""``report`` subcommand: ASR, QN and PPL per run, with the operator and polarity breakdowns (each
operator's ASR contribution and mean QN).

HVASR and each operator's valid and natural shares need the human judgments of the annotation
layer: ``python -m annotations report`` prints the same tables with them, through
:func:`engine.reports.metrics.print_report`."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.reports.metrics import load_report, print_report
from engine.reports.tables import format_table
from engine.store.identity import diff_rows, recipe_rows
from engine.store.store import RunStore


def register(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("report", help="ASR, QN and PPL per run, with breakdowns (with HVASR: python -m annotations report)")
    r.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    r.add_argument("--run", default=None, help="only this run")
    r.add_argument("--csv", type=Path, default=None,
                   help="write the run table here, and the breakdowns beside it (-operator.csv, -polarity.csv)")
    r.add_argument("--recipe", metavar="RUN", default=None,
                   help="print RUN's whole stored recipe (operators, constraints, settings, victim, data, code)")
    r.add_argument("--diff", nargs=2, metavar=("RUN_A", "RUN_B"), default=None,
                   help="print the recipe fields in which two runs differ")
    r.add_argument("--profile", metavar="RUN", default=None,
                   help="print a profile run's report card: failure rate per phenomenon and setup, with its 95 %% "
                        "interval and the estimated validity of the failures (--csv, --latex, --json write it)")
    r.add_argument("--latex", type=Path, default=None, help="with --profile: write the card as a LaTeX tabular")
    r.add_argument("--json", type=Path, default=None, help="with --profile: write the card as JSON")
    r.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.db is not None and not args.db.is_file():
        raise InputError(f"{args.db}: no such store file")
    with RunStore.open(args.db or settings.db_path) as store:
        profile, latex, json_path = (getattr(args, key, None) for key in ("profile", "latex", "json"))
        if profile is not None:
            from engine.cli.profile_commands import print_profile

            print_profile(store, profile, args.csv, latex, json_path)
            return 0
        if latex is not None or json_path is not None:
            raise InputError("--latex and --json go with --profile RUN")
        if args.recipe is not None:
            run = store.run(args.recipe)
            print(f"run {run.name!r} (setup {run.setup}, victim {run.victim}, data {run.data_path}, seed {run.seed})")
            print(format_table(["field", "value"], recipe_rows(run.config)))
            return 0
        if args.diff is not None:
            first, second = (store.run(name) for name in args.diff)
            rows = diff_rows({"setup": first.setup, "seed": first.seed, **first.config},
                             {"setup": second.setup, "seed": second.seed, **second.config})
            print(format_table(["field", first.name, second.name], rows) if rows
                  else f"runs {first.name!r} and {second.name!r} have the same recipe")
            return 0
        tables = load_report(store, args.run)
    print_report(tables, args.csv)
    print("\n(HVASR in its three readings, and each operator's valid and natural shares, come from human "
          "judgments: python -m annotations report)")
    return 0
