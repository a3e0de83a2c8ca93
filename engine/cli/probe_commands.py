"""``probe`` subcommands: generate a suite's items, run a victim on them, report, inoculate."""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.core.vocab import LABELS
from engine.data.readers import read_pairs
from engine.probes.hypothesis_only import hypothesis_only_baseline
from engine.probes.inoculation import (
    InoculationSettings,
    disjoint_training_items,
    inoculate,
    outcome,
    parse_ks,
)
from engine.probes.record import label_counts, write_items
from engine.probes.runner import ProbeSummary, default_probe_run_name, run_probe, summarize
from engine.probes.suites import generate_items, get_suite, load_suite_items
from engine.probes.svg_plot import inoculation_svg
from engine.reports.tables import RATIOS, format_table
from engine.store.store import RunStore
from engine.victim.model import load_victim

PROBE_RATIOS = RATIOS | {"weighted f1", "probe accuracy", "original accuracy"}


def register(sub: argparse._SubParsersAction) -> None:
    probe = sub.add_parser("probe", help="probe suites: logical-equivalence laws, RobustLR, fragments, ConjNLI")
    psub = probe.add_subparsers(dest="probe_command", required=True, metavar="ACTION")

    g = psub.add_parser("generate", help="generate a suite's items (labels derived by its solver) as JSONL")
    g.add_argument("--suite", required=True)
    g.add_argument("--n", type=int, default=600, help="about how many items")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", type=Path, required=True, help="JSONL file to write")
    g.set_defaults(func=cmd_generate)

    r = psub.add_parser("run", help="run a victim on a suite's items and store the results")
    r.add_argument("--suite", required=True)
    r.add_argument("--data", type=Path, default=None,
                   help="items: a JSONL file from 'probe generate', or the suite's released file/folder "
                        "(default: generate --n items with --seed)")
    r.add_argument("--n", type=int, default=600)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--victim", default=None, help="'offline', a model folder, a hub id or an http(s):// endpoint (default: settings.victim)")
    r.add_argument("--label-map", default=None, help="victim output order, e.g. entailment,neutral,contradiction")
    r.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    r.add_argument("--run-name", default=None, help="probe run name (default: SUITE-VICTIM-DATA); the same name resumes")
    r.set_defaults(func=cmd_run)

    p = psub.add_parser("report", help="scores of a stored probe run (or the list of probe runs)")
    p.add_argument("--run", default=None, help="probe run name (default: list the probe runs)")
    p.add_argument("--db", type=Path, default=None, help="SQLite store (default: settings.db_path)")
    p.set_defaults(func=cmd_report)

    b = psub.add_parser("baseline", help="a hypothesis-only bag-of-words baseline: does H alone give the label away?")
    b.add_argument("--suite", required=True)
    b.add_argument("--data", type=Path, default=None, help="test items (as for 'probe run'; default: generated)")
    b.add_argument("--train-data", type=Path, default=None, help="training items (default: generated, --seed + 1)")
    b.add_argument("--n", type=int, default=600)
    b.add_argument("--seed", type=int, default=0)
    b.set_defaults(func=cmd_baseline)

    a = psub.add_parser("agreement", help="the natural-logic core's labels of the released monotonicity "
                                          "fragments against the files' own labels")
    a.add_argument("--data", type=Path, default=None,
                   help="a monotonicity TSV or the fragments folder (default: settings.shared_data_dir/semantic_fragments)")
    a.add_argument("--limit", type=int, default=None, help="the first N items of each fragment")
    a.set_defaults(func=cmd_agreement)

    t = psub.add_parser("train", help="inoculation: fine-tune copies of the victim on k probe items, score each")
    t.add_argument("--suite", required=True)
    t.add_argument("--k", default="0,50,200,1000", help="training sizes, comma-separated (0: the victim as is)")
    t.add_argument("--data", type=Path, default=None, help="test items (as for 'probe run'; default: generated)")
    t.add_argument("--train-data", type=Path, default=None,
                   help="training items (default: generated with --seed + 1, minus any test item)")
    t.add_argument("--n", type=int, default=600, help="generated test items")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--original", type=Path, default=None,
                   help="original benchmark (default: settings.shared_data_dir/snli_test.tsv, TEST half)")
    t.add_argument("--original-split", default="TEST")
    t.add_argument("--original-limit", type=int, default=500)
    t.add_argument("--victim", default=None, help="'offline', a model folder, a hub id or an http(s):// endpoint (default: settings.victim)")
    t.add_argument("--label-map", default=None)
    t.add_argument("--epochs", type=float, default=InoculationSettings.epochs)
    t.add_argument("--learning-rate", type=float, default=InoculationSettings.learning_rate)
    t.add_argument("--max-minutes", type=float, default=InoculationSettings.max_minutes,
                   help="wall-clock cap of each fine-tuning run (the card records steps done)")
    t.add_argument("--out", type=Path, default=None, help="write the curve as JSON")
    t.add_argument("--plot", type=Path, default=None, help="write the curve as an SVG image")
    t.set_defaults(func=cmd_train)


def cmd_generate(args: argparse.Namespace) -> int:
    suite = get_suite(args.suite)
    items = generate_items(suite, args.n, args.seed, get_settings())
    count = write_items(items, args.out)
    print(f"{count} {suite.name} items (seed {args.seed}) -> {args.out}; every label re-derived by the suite's check")
    categories = sorted({item.category for item in items})
    print(format_table(["category", "items", *LABELS],
                       [[c, sum(i.category == c for i in items),
                         *label_counts([i for i in items if i.category == c]).values()] for c in categories]))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    settings = get_settings()
    suite = get_suite(args.suite)
    items = load_suite_items(suite, args.data, args.n, args.seed, settings)
    victim_name = args.victim or settings.victim
    victim = load_victim(victim_name, args.label_map, settings=settings)
    name = args.run_name or default_probe_run_name(suite.name, victim_name, args.data, args.n, args.seed, items)
    data_path = str(args.data.resolve()) if args.data is not None else f"generated:n={args.n}"
    with RunStore.open(args.db or settings.db_path) as store, \
            tqdm(total=len(items), desc=f"probe {suite.name}", unit="item") as bar:
        def progress(done: int, total: int) -> None:
            bar.update(done - bar.n)
        run = run_probe(store, name, suite.name, items, victim, victim_name, data_path, args.seed,
                        progress=progress)
        summary = summarize(run, store.probe_results(run.id))
    print(format_summary(summary))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    settings = get_settings()
    with RunStore.open(args.db or settings.db_path) as store:
        if args.run is None:
            runs = store.probe_runs()
            if not runs:
                print("no probe runs stored")
                return 0
            print(format_table(["probe run", "suite", "victim", "items", "finished"],
                               [[r.name, r.suite, r.victim, r.config.get("items"), r.finished_at or "-"]
                                for r in runs]))
            return 0
        run = store.probe_run(args.run)
        print(format_summary(summarize(run, store.probe_results(run.id))))
    return 0


def cmd_baseline(args: argparse.Namespace) -> int:
    suite, settings = get_suite(args.suite), get_settings()
    test = load_suite_items(suite, args.data, args.n, args.seed, settings)
    train = disjoint_training_items(load_suite_items(suite, args.train_data, args.n, args.seed + 1, settings), test)
    result = hypothesis_only_baseline(train, test)
    print(f"hypothesis-only naive Bayes on {suite.name}: accuracy {result['accuracy']:.3f} "
          f"(majority label {result['majority_label']}: {result['majority_accuracy']:.3f}); "
          f"{result['n_train']} training, {result['n_test']} test items")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    from engine.probes.fragments import monotonicity_agreement

    settings = get_settings()
    path = args.data or settings.shared_data_dir / "semantic_fragments"
    if not path.exists():
        raise InputError(f"{path}: no such file or folder (give --data)")
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    result = monotonicity_agreement(path, args.limit, settings=settings)
    rows = [["all", *_agreement_cells(result["overall"])]]
    rows += [[name, *_agreement_cells(scores)] for name, scores in result["by_fragment"].items()]
    rows += [[f"{edits} edit(s)", *_agreement_cells(scores)] for edits, scores in result["by_edits"].items()]
    print(format_table(["items of", "released", "labelled by the core", "coverage", "agree", "agreement"], rows))
    print("commonest reasons an item is left unlabelled: "
          + "; ".join(f"{reason} ({count})" for reason, count in result["unlabelled_reasons"].items()))
    return 0


def _agreement_cells(scores: dict) -> list[object]:
    return [scores["items"], scores["labelled"], scores["coverage"], scores["agree"], scores["agreement"]]


def cmd_train(args: argparse.Namespace) -> int:
    settings = get_settings()
    suite = get_suite(args.suite)
    ks = parse_ks(args.k)
    test = load_suite_items(suite, args.data, args.n, args.seed, settings)
    train = load_suite_items(suite, args.train_data, max(ks[-1] * 2, args.n), args.seed + 1, settings)
    original_path = args.original or settings.shared_data_dir / "snli_test.tsv"
    if not original_path.is_file():
        raise InputError(f"original benchmark {original_path}: no such file (give --original)")
    if args.original_limit < 1:
        raise InputError("--original-limit must be at least 1")
    original = read_pairs(original_path, "auto", args.original_split)
    if len(original) > args.original_limit:
        original = random.Random(args.seed).sample(original, args.original_limit)
    victim_name = args.victim or settings.victim
    config = InoculationSettings(epochs=args.epochs, learning_rate=args.learning_rate, max_minutes=args.max_minutes)
    with tqdm(total=len(ks), desc=f"inoculate {suite.name}", unit="k") as bar:
        points = inoculate(victim_name, args.label_map, train, test, original, ks, settings, config,
                           progress=lambda done, _: bar.update(done - bar.n))
    verdict = outcome(points, len(test), len(original))
    print(f"inoculation of {victim_name} on {suite.name} ({len(test)} test items; original: "
          f"{original_path.name} {args.original_split}, {len(original)} pairs): {verdict}")
    print(format_table(["k", "probe accuracy", "original accuracy", "steps", "seconds"],
                       [[p.k, p.probe_accuracy, p.original_accuracy, p.steps, p.seconds] for p in points],
                       ratios=PROBE_RATIOS))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"suite": suite.name, "victim": victim_name, "outcome": verdict,
                                        "test_items": len(test), "original": str(original_path),
                                        "config": asdict(config), "points": [asdict(p) for p in points]},
                                       indent=1), encoding="utf-8")
    if args.plot:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        args.plot.write_text(inoculation_svg({suite.name: points}, f"Inoculation: {suite.name}"),
                             encoding="utf-8")
    return 0


def format_summary(summary: ProbeSummary) -> str:
    """The plain-text report of a probe run: overall, per category, then the suite's own tables."""
    lines = [f"probe run {summary.run}: {summary.victim} on {summary.suite}, {summary.items} items, "
             f"accuracy {summary.accuracy:.3f}, weighted F1 {summary.weighted_f1:.3f}", ""]
    lines.append(format_table(["category", "items", "accuracy", "weighted F1"],
                              [[row["category"], row["items"], row["accuracy"], row["weighted_f1"]]
                               for row in summary.by_category], ratios=PROBE_RATIOS))
    for name, rows in summary.reports.items():
        if rows:
            lines += ["", name.replace("_", " ")]
            columns = list(rows[0])
            # Every score in a suite's report is a share or an F1: three decimals.
            lines.append(format_table(columns, [[row.get(c) for c in columns] for row in rows],
                                      ratios=frozenset(c.lower() for c in columns)))
    return "\n".join(lines)
