"""``attack`` (a data file, into the runs store) and ``attack-one`` (one pair, printed) subcommands."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.attack.build import Resources, build
from engine.attack.recipe import AttackRecipe, load_recipe, recipe_names
from engine.attack.results import AttackResult
from engine.attack.search import Target, attack_pair
from engine.constraints.chain import describe_rejected
from engine.core.errors import InputError
from engine.core.settings import Settings, get_settings
from engine.core.vocab import LABELS, AttackStatus
from engine.data.readers import FORMATS, read_pairs
from engine.natlog.relations import format_relations
from engine.natlog.setups import SETUPS, get_setup
from engine.parse import validate_premise, validate_text
from engine.ranking.scoring import SCORERS
from engine.reports.metrics import run_metrics
from engine.reports.tables import format_table, record_table
from engine.runs.runner import RunSpec, VictimInfo, default_run_name, run_attacks, start_run
from engine.runs.worker import run_worker, worker_running
from engine.store import jobs
from engine.store.identity import describe_differences, differences
from engine.store.store import RunStore
from engine.victim.model import load_victim, victim_labels, victim_location


def register(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser("attack", help="attack the pairs of a data file; results go to the store, pair by pair")
    a.add_argument("--data", type=Path, required=True)
    a.add_argument("--format", choices=FORMATS, default="auto")
    a.add_argument("--split", default=None,
                   help="SICK split (TRAIN, TRIAL, TEST); other files: their stable hash half, TRAIN or TEST "
                        "(the offline victim trains on SNLI's TRAIN half, so attack --split TEST)")
    _attack_options(a)
    a.add_argument("--limit", type=int, default=None, help="attack a seeded sample of N pairs of the source label")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    a.add_argument("--run-name", default=None,
                   help="run name; rerun with the same name and recipe to resume (default: built from the setup, "
                        "victim, data file and its content hash, split, limit and seed)")
    a.add_argument("--include-trained", action="store_true",
                   help="also attack pairs the victim trained on (left out by default; the run records it)")
    a.add_argument("--workers", type=int, default=None,
                   help="shard the pairs over N Ray actors (a local Ray unless --ray-address); this process "
                        "stays the one writer to the store. Default: one per core when the run has 40 pairs "
                        "or more left to attack and Ray is installed, else one process (--workers 1)")
    a.add_argument("--ray-address", default=None, help="an existing Ray cluster, e.g. HEAD:6379 (implies --workers)")
    a.add_argument("--gpus-per-worker", type=float, default=0.0, help="GPUs reserved per Ray actor (GPU clusters: 1)")
    a.set_defaults(func=cmd_attack)

    w = sub.add_parser("worker", help="run the batch jobs queued in a store (the app's Runs page queues them)")
    w.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    w.set_defaults(func=cmd_worker)
    j = sub.add_parser("jobs", help="list the store's batch jobs and their progress")
    j.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    j.set_defaults(func=cmd_jobs)

    o = sub.add_parser("attack-one", help="attack one premise-hypothesis pair and print the trace")
    o.add_argument("--premise", required=True)
    o.add_argument("--hypothesis", required=True)
    o.add_argument("--label", required=True, choices=LABELS)
    _attack_options(o)
    o.add_argument("--json", action="store_true", help="print the full result as JSON")
    o.set_defaults(func=cmd_attack_one)


def _attack_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--setup", required=True, help=", ".join(SETUPS))
    p.add_argument("--recipe", default=None, metavar="NAME|FILE",
                   help=f"the attack recipe: {', '.join(recipe_names())}, or a TOML file (engine recipe NAME --out "
                        "FILE writes one); default: a resumed run's stored recipe, else 'default'. "
                        "--budget, --top, --scorer and --alt-lm change it")
    p.add_argument("--victim", default=None,
                   help="'offline' (from train-victim), a model folder, a hub id or an http(s):// endpoint (docs/victims.md)")
    p.add_argument("--label-map", default=None, help="victim output order, e.g. entailment,neutral,contradiction")
    p.add_argument("--budget", type=int, default=None, help="query budget per pair (default: settings, 500)")
    p.add_argument("--top", type=int, default=None, help="candidates kept per round (default: settings.top_k)")
    p.add_argument("--scorer", choices=SCORERS, default=None, help="ranking scorer (default: settings.scorer)")
    p.add_argument("--alt-lm", dest="alt_lm", action="store_true", default=None,
                   help="use the AltLM operator (off by default: its alternations rarely have evidence of disjointness)")
    p.add_argument("--no-alt-lm", dest="alt_lm", action="store_false", help="leave out the AltLM operator")


def recipe_from_args(args: argparse.Namespace, settings: Settings, stored: Mapping[str, Any] | None = None) -> AttackRecipe:
    """The recipe an attack (or ``candidates``) command runs: ``--recipe``, else a resumed run's
    ``stored`` recipe, else ``default``; with ``--budget``, ``--top``, ``--scorer`` and ``--alt-lm`` applied."""
    if args.recipe is None and stored is not None and "format" in stored:
        recipe = AttackRecipe.from_json(stored, settings, f"run {args.run_name!r}'s stored recipe")
    else:
        recipe = load_recipe(args.recipe, settings)
    search = {name: value for option, name in (("budget", "query_budget"), ("top", "top_k"))
              if (value := getattr(args, option, None)) is not None}
    if any(value < 1 for value in search.values()):
        raise InputError("--budget and --top must be at least 1")
    ranking = {"scorer": args.scorer} if args.scorer is not None else {}
    return recipe.with_changes({"search": search, "ranking": ranking}, "command line").with_alt_lm(args.alt_lm)


def _say_what_a_resume_keeps(name: str, stored: AttackRecipe, configured: AttackRecipe) -> None:
    """A resume runs the stored recipe: say so, and name the settings that differ and are not applied."""
    diff = differences({"recipe": stored.to_json()}, {"recipe": configured.to_json()})
    note = (f"; the configured settings differ in {describe_differences(diff)} and are not applied "
            f"(another recipe needs another --run-name)") if diff else ""
    print(f"run {name!r} resumes with its stored recipe {stored.name} ({stored.hash}){note}")


def _stored_recipe(store: RunStore, name: str) -> Mapping[str, Any] | None:
    """The recipe stored with run ``name`` (None for a new run)."""
    found = [run for run in store.runs() if run.name == name]
    return found[0].config.get("recipe") if found else None


def cmd_attack(args: argparse.Namespace) -> int:
    settings = get_settings()
    setup = get_setup(args.setup)
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers must be at least 1")
    if args.gpus_per_worker < 0:
        raise InputError("--gpus-per-worker must not be negative")
    pairs = read_pairs(args.data, args.format, args.split)
    victim_name = args.victim or settings.victim
    name = args.run_name or default_run_name(setup.name, victim_name, args.data, args.limit, args.seed, args.split)
    distributed = args.workers is not None or args.ray_address is not None
    with RunStore.open(args.db or settings.db_path) as store:
        args.run_name = name
        stored = _stored_recipe(store, name)
        recipe = recipe_from_args(args, settings, stored).for_data(args.data, args.format)
        if args.recipe is None and stored is not None and "format" in stored:
            _say_what_a_resume_keeps(name, recipe, recipe_from_args(args, settings).for_data(args.data, args.format))
        print(f"recipe {recipe.name} ({recipe.hash}): {len(recipe.operators)} operators, "
              f"constraints {', '.join(s.name for s in recipe.constraints) or 'none'}")
        spec = RunSpec(name, args.data, args.format, setup, victim_name, limit=args.limit, seed=args.seed,
                       split=args.split, include_trained=args.include_trained)
        resources = Resources.of(settings)
        # The run's identity is checked before any model loads: a resume with another recipe stops at once.
        location = victim_location(victim_name, settings)
        run, chosen = start_run(store, spec, recipe, resources,
                                VictimInfo(location, victim_labels(location, args.label_map)), pairs)
        if not distributed:
            from engine.runs.distributed import auto_workers

            left = len(chosen) - len(store.done_pair_indices(run.id))
            if (workers := auto_workers(left)) > 1:
                print(f"{left} pairs to attack: on {workers} local Ray workers, one per core (--workers 1 for "
                      "one process)")
                args.workers, distributed = workers, True
        attack = build(recipe, resources)
        if distributed:
            from engine.runs.distributed import RayOptions, run_attacks_distributed

            options = RayOptions(args.workers or 2, args.ray_address, args.gpus_per_worker, args.label_map)
            report = run_attacks_distributed(store, spec, attack, options, pairs=pairs)
        else:
            victim = load_victim(victim_name, args.label_map, settings=settings)
            report = run_attacks(store, spec, attack, victim, pairs=pairs)
        left_out = report.run.config.get("data", {}).get("trained_pairs_left_out", 0)
        if left_out:
            print(f"left out {left_out} pairs the victim trained on (--include-trained attacks them)")
        print(f"run {report.run.name!r}: {report.selected} pairs selected, {report.resumed} already done, "
              f"{report.attacked} attacked now ({report.successful} successful), "
              f"{report.skipped} skipped (victim already wrong), {report.seconds:.1f} s")
        print(record_table(run_metrics(store, report.run.name)))
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    settings = get_settings()
    db = Path(args.db or settings.db_path)
    ran = run_worker(db, Resources.of(settings))
    print(f"worker: {ran} job(s) run" if ran or not worker_running(db) else "worker: another worker is running")
    return 0


def cmd_jobs(args: argparse.Namespace) -> int:
    settings = get_settings()
    with RunStore.open(args.db or settings.db_path) as store:
        rows = [(j.id, j.run_name, j.spec.get("setup") or j.kind, j.status, jobs.progress(store, j), j.total,
                 j.message or "") for j in jobs.jobs(store)]
    print(format_table(["job", "run", "setup", "status", "done", "total", "message"], rows) if rows else "(no jobs)")
    return 0


def _print_result(result: AttackResult) -> None:
    print(f"P:  {result.premise}\nH:  {result.hypothesis}")
    print(f"setup {result.setup}: {result.gold_label} -> {result.target_label}; victim on (P, H): "
          f"{result.original.label} " + " ".join(f"{l}={p:.2f}" for l, p in zip(LABELS, result.original.probs)))
    for r in result.rounds:
        dropped = describe_rejected(r.rejected)
        print(f"round {r.index}: from {r.hypothesis!r} (H {format_relations(r.composed)} it), "
              f"{len(r.candidates)} ranked, {len(r.queried)} queried, {dropped} -> {r.outcome}"
              + (f"; back to paused round {r.back_to} at {r.resumed!r}" if r.back_to is not None
                 else f"; backtracks to {r.resumed!r}" if r.resumed is not None else ""))
    print(f"status: {result.status}{' (' + result.reason + ')' if result.status is AttackStatus.FAILED else ''}; "
          f"queries {result.queries}, cache hits {result.cache_hits}, {result.seconds:.1f} s")
    if result.status is AttackStatus.SUCCESS and result.adversarial is not None:
        print(f"H*: {result.adversarial_hypothesis}  (victim: {result.adversarial.label}, "
              f"PPL {result.perplexity:.1f}; H {format_relations(result.relation)} H*)")
        for step in result.derivation:
            c = step.candidate
            print(f"  round {step.round}: {c.operator} {c.old!r} -> {c.new!r} ({c.lexical_relation.symbol} at "
                  f"{step.polarity}, projects to {c.relation.symbol})")


def cmd_attack_one(args: argparse.Namespace) -> int:
    settings = get_settings()
    recipe = recipe_from_args(args, settings)
    setup = get_setup(args.setup)
    target = Target.of(args.premise, args.hypothesis, args.label, setup)
    validate_premise(args.premise, recipe.search.max_chars)  # fail before loading any model
    validate_text(args.hypothesis, recipe.search.max_chars)
    victim = load_victim(args.victim or settings.victim, args.label_map, settings=settings)
    result = attack_pair(build(recipe, Resources.of(settings)), target, victim)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=1))
    else:
        _print_result(result)
    return 0
