"""``recipes`` (the named attack recipes) and ``recipe`` (one recipe, or a stored run's, as TOML)."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.attack.recipe import AttackRecipe, load_recipe, recipe_names
from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.reports.tables import format_table
from engine.store.store import RunStore


def register(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("recipes", help="list the named attack recipes (engine attack --recipe NAME)")
    r.set_defaults(func=cmd_recipes)
    one = sub.add_parser("recipe", help="print an attack recipe as TOML: a named one, a file, or a stored run's "
                                        "(--run; engine attack --recipe FILE reruns that run exactly)")
    one.add_argument("name", nargs="?", default="default", metavar="NAME|FILE",
                     help=f"{', '.join(recipe_names())} or a TOML recipe file (default: default)")
    one.add_argument("--run", default=None, help="the recipe stored with this run instead")
    one.add_argument("--db", type=Path, default=None, help="SQLite store for --run (default: settings.db_path)")
    one.add_argument("--out", type=Path, default=None, help="write the TOML here instead of printing it")
    one.set_defaults(func=cmd_recipe)


def cmd_recipes(args: argparse.Namespace) -> int:
    settings = get_settings()
    rows = []
    for name in recipe_names():
        recipe = load_recipe(name, settings)
        rows.append((name, recipe.hash, str(len(recipe.operators)),
                     ", ".join(s.name for s in recipe.constraints), recipe.description))
    print(format_table(["recipe", "hash", "operators", "constraints", "what it is"], rows))
    return 0


def cmd_recipe(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.run is not None:
        if args.db is not None and not args.db.is_file():
            raise InputError(f"{args.db}: no such store file")
        with RunStore.open(args.db or settings.db_path) as store:
            run = store.run(args.run)
        stored = run.config.get("recipe")
        if not isinstance(stored, dict) or "format" not in stored:
            raise InputError(f"run {run.name!r} was stored before recipes were stored whole; "
                             f"engine report --recipe {run.name} prints what it recorded")
        recipe = AttackRecipe.from_json(stored, settings, f"run {run.name!r}'s stored recipe")
    else:
        recipe = load_recipe(args.name, settings)
    text = recipe.to_toml()
    if args.out is None:
        print(text, end="")
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {args.out}: {exc.strerror or exc}") from exc
    print(f"wrote recipe {recipe.name} ({recipe.hash}) to {args.out}")
    return 0
