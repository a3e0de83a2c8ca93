"""``train-victim``, ``attack``, ``attack-one`` and ``report`` subcommands."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from annotations.store import Store
from engine.attack import AttackResult, AttackTools, attack_pair, run_attacks
from engine.datasets import FORMATS, LABELS, read_pairs
from engine.errors import InputError
from engine.metrics import format_table, load_report, run_metrics, write_csv
from engine.natlog.setups import SETUPS, get_setup
from engine.parse import validate_premise, validate_text
from engine.scoring import SCORERS
from engine.settings import Settings, get_settings
from engine.training import OFFLINE_EVAL, OFFLINE_TRAIN, DataSource, TrainConfig, model_card_markdown, train_victim
from engine.victim import load_victim


def register(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("train-victim", help="fine-tune an NLI classifier (the offline default victim)")
    t.add_argument("--backbone", default=None, help="encoder: 'offline' (all-MiniLM-L6-v2), a folder or hub id")
    t.add_argument("--data", action="append", metavar="SPEC",
                   help="training file: PATH[,format=F][,split=S][,limit=N] (repeatable; relative paths are "
                        "under settings.shared_data_dir; default: the offline recipe)")
    t.add_argument("--eval", action="append", metavar="SPEC", help="held-out file to report accuracy on (repeatable)")
    t.add_argument("--output", type=Path, default=None, help="model folder (default: under settings.models_dir)")
    t.add_argument("--epochs", type=float, default=TrainConfig.epochs)
    t.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    t.add_argument("--learning-rate", type=float, default=TrainConfig.learning_rate)
    t.add_argument("--max-minutes", type=float, default=TrainConfig.max_minutes,
                   help="wall-clock limit for the training loop")
    t.add_argument("--seed", type=int, default=TrainConfig.seed)
    t.add_argument("--force", action="store_true", help="retrain even if a matching model is cached")
    t.set_defaults(func=cmd_train_victim)

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
    a.add_argument("--run-name", default=None, help="run name; rerun with the same name to resume")
    a.set_defaults(func=cmd_attack)

    o = sub.add_parser("attack-one", help="attack one premise-hypothesis pair and print the trace")
    o.add_argument("--premise", required=True)
    o.add_argument("--hypothesis", required=True)
    o.add_argument("--label", required=True, choices=LABELS)
    _attack_options(o)
    o.add_argument("--json", action="store_true", help="print the full result as JSON")
    o.set_defaults(func=cmd_attack_one)

    r = sub.add_parser("report", help="ASR, HVASR, QN and PPL per run (paper Tables 4-5), with breakdowns")
    r.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    r.add_argument("--run", default=None, help="only this run")
    r.add_argument("--csv", type=Path, default=None,
                   help="write the run table here, and the breakdowns beside it (-operator.csv, -polarity.csv)")
    r.set_defaults(func=cmd_report)


def _attack_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--setup", required=True, help=", ".join(SETUPS))
    p.add_argument("--victim", default=None, help="'offline' (from train-victim), a model folder or hub id")
    p.add_argument("--label-map", default=None, help="victim output order, e.g. entailment,neutral,contradiction")
    p.add_argument("--budget", type=int, default=None, help="query budget per pair (default: settings, 500)")
    p.add_argument("--top", type=int, default=None, help="candidates kept per round (default: settings.top_k)")
    p.add_argument("--scorer", choices=SCORERS, default=None, help="ranking scorer (default: settings.scorer)")
    p.add_argument("--no-alt-lm", action="store_true", help="leave out the AltLM operator")


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, object] = {}
    for option, name in (("budget", "query_budget"), ("top", "top_k"), ("scorer", "scorer")):
        value = getattr(args, option, None)
        if value is not None:
            overrides[name] = value
    if overrides.get("query_budget", 1) < 1 or overrides.get("top_k", 1) < 1:  # type: ignore[operator]
        raise InputError("--budget and --top must be at least 1")
    return get_settings().with_overrides(**overrides)


def cmd_train_victim(args: argparse.Namespace) -> int:
    settings = get_settings()
    base = settings.shared_data_dir
    train = tuple(DataSource.parse(spec, base) for spec in (args.data or OFFLINE_TRAIN))
    evaluation = [DataSource.parse(spec, base) for spec in (args.eval or ([] if args.data else OFFLINE_EVAL))]
    config = TrainConfig(
        backbone=args.backbone or settings.backbone, train=train, epochs=args.epochs,
        batch_size=args.batch_size, learning_rate=args.learning_rate, seed=args.seed,
        max_minutes=args.max_minutes,
    )
    result = train_victim(config, settings, args.output, evaluation, force=args.force)
    print(f"{'reused cached' if result.reused else 'saved'} victim: {result.folder}")
    print(model_card_markdown(result.card), end="")
    return 0


def cmd_attack(args: argparse.Namespace) -> int:
    settings = _settings(args)
    setup = get_setup(args.setup)
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    pairs = read_pairs(args.data, args.format, args.split)
    victim_name = args.victim or settings.victim
    victim = load_victim(victim_name, args.label_map, settings)
    tools = AttackTools.build(settings, alt_lm=not args.no_alt_lm)
    name = args.run_name or (
        f"{setup.name}-{Path(victim_name).name}-{args.data.stem}-n{args.limit or 'all'}-seed{args.seed}"
    )
    with Store.open(args.db, settings) as store:
        report = run_attacks(
            store, name, args.data, args.format, setup, victim_name, victim, tools, settings,
            limit=args.limit, seed=args.seed, split=args.split, pairs=pairs,
        )
        print(f"run {report.run.name!r}: {report.selected} pairs selected, {report.resumed} already done, "
              f"{report.attacked} attacked now ({report.successful} successful), "
              f"{report.skipped} skipped (victim already wrong), {report.seconds:.1f} s")
        print(format_table(run_metrics(store, report.run.name)))
    return 0


def _print_result(result: AttackResult) -> None:
    print(f"P:  {result.premise}\nH:  {result.hypothesis}")
    print(f"setup {result.setup}: {result.gold_label} -> {result.target_label}; victim on (P, H): "
          f"{result.original.label} " + " ".join(f"{l}={p:.2f}" for l, p in zip(LABELS, result.original.probs)))
    for r in result.rounds:
        print(f"round {r.index}: from {r.hypothesis!r} (H {'/'.join(x.symbol for x in r.composed)} it), "
              f"{len(r.candidates)} ranked, {len(r.queried)} queried, {r.guard_rejected} rejected by the guard, "
              f"{r.premise_rejected} by the premise check -> {r.outcome}")
    print(f"status: {result.status}{' (' + result.reason + ')' if result.status == 'failed' else ''}; "
          f"queries {result.queries}, cache hits {result.cache_hits}, {result.seconds:.1f} s")
    if result.status == "success" and result.adversarial is not None:
        print(f"H*: {result.adversarial_hypothesis}  (victim: {result.adversarial.label}, "
              f"PPL {result.perplexity:.1f}; H {'/'.join(x.symbol for x in sorted(result.relation, key=lambda x: x.name))} H*)")
        for step in result.derivation:
            c = step.candidate
            print(f"  round {step.round}: {c.operator} {c.old!r} -> {c.new!r} ({c.lexical_relation.symbol} at "
                  f"{step.polarity}, projects to {c.relation.symbol})")


def cmd_attack_one(args: argparse.Namespace) -> int:
    settings = _settings(args)
    setup = get_setup(args.setup)
    validate_premise(args.premise, settings.max_chars)  # fail before loading any model
    validate_text(args.hypothesis, settings.max_chars)
    victim = load_victim(args.victim or settings.victim, args.label_map, settings)
    tools = AttackTools.build(settings, alt_lm=not args.no_alt_lm)
    result = attack_pair(args.premise, args.hypothesis, args.label, setup, victim, tools, settings)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=1))
    else:
        _print_result(result)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.db is not None and not args.db.is_file():
        raise InputError(f"{args.db}: no such store file")
    with Store.open(args.db, settings) as store:
        tables = load_report(store, args.run)
    rows, operators, polarity = tables.runs, tables.operators, tables.polarity
    print(format_table(rows, ["run", "setup", "victim", "data", "pairs", "skipped", "attacked", "successful",
                              "asr", "hvasr", "judged", "qn_mean", "qn_median", "ppl_mean", "seconds"]))
    print("\nSuccessful attacks by operator\n" + format_table(operators))
    print("\nSuccessful attacks by polarity of the edit\n" + format_table(polarity))
    if args.csv is not None:
        write_csv(rows, args.csv)
        write_csv(operators, args.csv.with_name(f"{args.csv.stem}-operator.csv"))
        write_csv(polarity, args.csv.with_name(f"{args.csv.stem}-polarity.csv"))
        print(f"\nwrote {args.csv} and its -operator/-polarity companions")
    return 0
