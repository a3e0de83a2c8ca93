"""``profile`` subcommand: a victim's failures by natural-logic phenomenon over a data file's pairs
(:mod:`engine.profile`); ``report --profile RUN`` prints the report card's table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from engine.attack.build import Resources, build
from engine.attack.recipe import load_recipe, recipe_names
from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.data.readers import FORMATS, file_digest
from engine.profile.card import CARD_RATIOS, card_cells, card_latex, card_table, clean_accuracy
from engine.profile.runner import DEFAULT_BUDGET, ProfileSpec, profile_setups, run_profile
from engine.reports.tables import csv_text, format_table
from engine.store.store import RunStore
from engine.victim.model import load_victim


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profile", help="a victim's failures by natural-logic phenomenon: each phenomenon's best "
                                       "candidates asked on every pair (the report card's data)")
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--format", choices=FORMATS, default="auto")
    p.add_argument("--split", default=None, help="SICK split, or TRAIN / TEST for other files' hash halves")
    p.add_argument("--setup", default="E2E,C2C,N2N",
                   help="setups, comma-separated; each pair is profiled in those of its gold label (default: the "
                        "label-preserving three)")
    p.add_argument("--victim", default=None, help="as for attack (default: settings.victim)")
    p.add_argument("--label-map", default=None, help="victim output order, e.g. entailment,neutral,contradiction")
    p.add_argument("--recipe", default="default", help=f"the recipe whose first round is asked: {', '.join(recipe_names())}")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="candidates asked per phenomenon and pair")
    p.add_argument("--top", type=int, default=None, help="candidates a round keeps (default: the recipe's)")
    p.add_argument("--limit", type=int, default=None, help="a seeded sample of N pairs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--include-trained", action="store_true", help="also pairs the victim trained on (left out by default)")
    p.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    p.add_argument("--name", default=None, help="profile run name; the same name and parameters resume")
    p.set_defaults(func=cmd_profile)


def default_profile_name(victim: str, data: Path, setups: str, limit: int | None, seed: int, split: str | None) -> str:
    victim_part = Path(victim.rstrip("/")).name or victim
    return (f"profile-{victim_part}-{data.stem}-{file_digest(data)[:8]}" + (f"-{split.upper()}" if split else "")
            + f"-{setups.replace(',', '')}-n{limit or 'all'}-seed{seed}")


def cmd_profile(args: argparse.Namespace) -> int:
    settings = get_settings()
    setups = profile_setups(args.setup)
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    if args.budget < 1:
        raise InputError("--budget must be at least 1")
    if not args.data.is_file():
        raise InputError(f"{args.data}: no such data file")
    victim_name = args.victim or settings.victim
    name = args.name or default_profile_name(victim_name, args.data, ",".join(s.name for s in setups), args.limit,
                                             args.seed, args.split)
    recipe = load_recipe(args.recipe, settings)
    spec = ProfileSpec(name, args.data, args.format, setups, victim_name, args.limit, args.seed, args.split,
                       args.budget, args.include_trained, args.top)
    victim = load_victim(victim_name, args.label_map, settings=settings)
    with RunStore.open(args.db or settings.db_path) as store:
        report = run_profile(store, spec, build(recipe, Resources.of(settings)), victim)
        pairs = store.profile_pairs(report.run.id)
    print(f"profile run {name!r}: {report.selected} pairs selected, {report.resumed} (pair, setup) already done, "
          f"{report.profiled} profiled now, {report.skipped} skipped (victim already wrong or unparsable), "
          f"{report.seconds:.1f} s")
    print(format_table(*card_table(card_cells(pairs)), ratios=CARD_RATIOS))
    return 0


def print_profile(store: RunStore, name: str, csv: Path | None = None, latex: Path | None = None,
                  json_path: Path | None = None) -> None:
    """``engine report --profile NAME``: the card's table of a stored profile run, and its exports."""
    run = store.profile_run(name)
    pairs = store.profile_pairs(run.id)
    cells = card_cells(pairs)
    accuracy = ", ".join(f"{setup} {right}/{total}" for setup, (right, total) in sorted(clean_accuracy(pairs).items()))
    print(f"profile run {run.name!r}: victim {run.victim}, data {run.data_path}, setups {', '.join(run.setups)}, "
          f"budget {run.budget} per phenomenon; the victim right on (P, H): {accuracy or 'no pair yet'}")
    headers, rows = card_table(cells)
    print(format_table(headers, rows, ratios=CARD_RATIOS))
    if csv is not None:
        csv.write_text(csv_text(pd.DataFrame(rows, columns=headers)), encoding="utf-8")
    if latex is not None:
        latex.write_text(card_latex(cells), encoding="utf-8")
    if json_path is not None:
        json_path.write_text(json.dumps({"run": run.name, "victim": run.victim, "data": run.data_path,
                                         "setups": list(run.setups), "budget": run.budget,
                                         "cells": [c.to_json() for c in cells]}, ensure_ascii=False, indent=1),
                             encoding="utf-8")
