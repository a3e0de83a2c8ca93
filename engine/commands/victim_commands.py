"""``train-victim`` subcommand: fine-tune an NLI classifier (the offline default victim)."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.settings import get_settings
from engine.training import OFFLINE_EVAL, OFFLINE_TRAIN, DataSource, TrainConfig, model_card_markdown, train_victim


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
