"""``train-victim`` subcommand: fine-tune an NLI classifier (the offline default victim)."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

from engine.core.errors import InputError
from engine.core.settings import get_settings
from engine.core.vocab import LABELS
from engine.data.augmented import read_augmentation
from engine.data.readers import FORMATS, read_pairs
from engine.reports.tables import format_table
from engine.runs.worker import log_path, queue_offline_victim, spawn_worker
from engine.store.store import RunStore
from engine.victim.model import load_victim, offline_victim_dir
from engine.victim.training import (
    OFFLINE_EVAL,
    OFFLINE_TRAIN,
    DataSource,
    TrainConfig,
    evaluate,
    model_card_markdown,
    train_victim,
)


def register(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("train-victim", help="fine-tune an NLI classifier (the offline default victim)")
    t.add_argument("--backbone", default=None, help="encoder: 'offline' (all-MiniLM-L6-v2), a folder or hub id")
    t.add_argument("--data", action="append", metavar="SPEC",
                   help="training file: PATH[,format=F][,split=S][,limit=N] (repeatable; relative paths are "
                        "under settings.shared_data_dir; default: the offline recipe)")
    t.add_argument("--eval", action="append", metavar="SPEC", help="held-out file to report accuracy on (repeatable)")
    t.add_argument("--augment", action="append", type=Path, default=[], metavar="FILE",
                   help="an augmentation file (engine augment) whose pairs join the training set (repeatable); the "
                        "model card records it")
    t.add_argument("--output", type=Path, default=None,
                   help="model folder (default: under settings.models_dir; with --augment, victim-augmented-HASH)")
    t.add_argument("--epochs", type=float, default=TrainConfig.epochs)
    t.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    t.add_argument("--learning-rate", type=float, default=TrainConfig.learning_rate)
    t.add_argument("--max-minutes", type=float, default=TrainConfig.max_minutes,
                   help="wall-clock limit for the training loop")
    t.add_argument("--seed", type=int, default=TrainConfig.seed)
    t.add_argument("--force", action="store_true", help="retrain even if a matching model is cached")
    t.add_argument("--queue", action="store_true",
                   help="queue the offline victim's training for the store's worker (started now) and return at "
                        "once; nothing is queued when it is trained (what `make run` does on a fresh machine)")
    t.add_argument("--db", type=Path, default=None, help="with --queue: SQLite store (default: settings.db_path)")
    t.set_defaults(func=cmd_train_victim)

    e = sub.add_parser("evaluate", help="a victim's accuracy on a data file, overall, per label, and its confusion")
    e.add_argument("--data", type=Path, required=True)
    e.add_argument("--format", choices=FORMATS, default="auto")
    e.add_argument("--split", default=None, help="SICK split, or a hash half (TRAIN/TEST) of other files")
    e.add_argument("--limit", type=int, default=None, help="a seeded sample of N pairs")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--victim", default=None, help="'offline', a model folder, a hub id or an http(s):// endpoint (default: settings.victim)")
    e.add_argument("--label-map", default=None, help="victim output order, e.g. entailment,neutral,contradiction")
    e.set_defaults(func=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    pairs = read_pairs(args.data, args.format, args.split)
    if not pairs:
        raise InputError(f"{args.data}: no labelled pairs")
    if args.limit is not None and args.limit < len(pairs):
        pairs = random.Random(args.seed).sample(pairs, args.limit)
    victim = load_victim(args.victim or settings.victim, args.label_map, settings=settings)
    result = evaluate(victim, pairs)
    print(f"{args.victim or settings.victim} on {args.data.name}: accuracy {result.accuracy:.3f} over {result.pairs} pairs")
    print(format_table(["label", "pairs", "accuracy"],
                       [[label, sum(result.confusion[label].values()), result.per_label.get(label)]
                        for label in LABELS]))
    print("\nconfusion (rows: gold, columns: predicted)")
    print(format_table(["gold", *LABELS], [[gold, *result.confusion[gold].values()] for gold in LABELS]))
    return 0


def cmd_train_victim(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.queue:
        db = Path(args.db or settings.db_path)
        with RunStore.open(db) as store:
            job = queue_offline_victim(store, settings, args.backbone)
        if job is None:
            print(f"the offline victim is trained: {offline_victim_dir(settings)}")
            return 0
        started = spawn_worker(db)
        print(f"queued the offline victim's training (job {job.id}, {job.status}); "
              + ("a worker started" if started else "the running worker picks it up")
              + f"; progress: python -m engine jobs, or the app's pages; log: {log_path(db)}")
        return 0
    base = settings.shared_data_dir
    train = tuple(DataSource.parse(spec, base) for spec in (args.data or OFFLINE_TRAIN))
    evaluation = [DataSource.parse(spec, base) for spec in (args.eval or ([] if args.data else OFFLINE_EVAL))]
    config = TrainConfig(
        backbone=args.backbone or settings.backbone, train=train, epochs=args.epochs,
        batch_size=args.batch_size, learning_rate=args.learning_rate, seed=args.seed,
        max_minutes=args.max_minutes, augment=tuple(args.augment),
    )
    for path in config.augment:
        read_augmentation(path)  # a file that is not an augmentation file is refused before training
    output = args.output
    if output is None and config.augment:  # never over the victim it was augmented from
        key = json.dumps(config.key(), sort_keys=True).encode()
        output = settings.models_dir / f"victim-augmented-{hashlib.sha256(key).hexdigest()[:12]}"
    result = train_victim(config, settings, output, evaluation, force=args.force)
    print(f"{'reused cached' if result.reused else 'saved'} victim: {result.folder}")
    print(model_card_markdown(result.card), end="")
    return 0
