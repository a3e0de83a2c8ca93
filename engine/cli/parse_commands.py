"""``parse`` subcommand."""

from __future__ import annotations

import argparse
import json

from engine.core.settings import get_settings
from engine.parse import PARSERS, parse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse one sentence into UD v2 tokens")
    p.add_argument("text")
    p.add_argument("--json", action="store_true", help="print a JSON list of token objects")
    p.add_argument("--pretokenized", action="store_true", help="split tokens on spaces only")
    p.add_argument("--parser", choices=PARSERS, default=None, help="parser backend (default: settings)")
    p.set_defaults(func=cmd_parse)


def cmd_parse(args: argparse.Namespace) -> int:
    sentence = parse(args.text, pretokenized=args.pretokenized, parser=args.parser, settings=get_settings())
    if args.json:
        print(json.dumps(sentence.to_json(), ensure_ascii=False, indent=1))
    else:
        print(sentence.to_conllu(), end="")
    return 0
