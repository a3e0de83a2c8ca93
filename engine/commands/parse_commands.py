"""``parse``, ``doctor`` and ``provision`` subcommands."""

from __future__ import annotations

import argparse
import json

from engine import resources
from engine.parse import PARSERS, parse
from engine.settings import get_settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse one sentence into UD v2 tokens")
    p.add_argument("text")
    p.add_argument("--json", action="store_true", help="print a JSON list of token objects")
    p.add_argument("--pretokenized", action="store_true", help="split tokens on spaces only")
    p.add_argument("--parser", choices=PARSERS, default=None, help="parser backend (default: settings)")
    p.set_defaults(func=cmd_parse)

    d = sub.add_parser("doctor", help="list each offline resource, where it is, and how to fix it")
    d.set_defaults(func=cmd_doctor)

    v = sub.add_parser("provision", help="install the resources that can be installed from here")
    v.set_defaults(func=cmd_provision)


def cmd_parse(args: argparse.Namespace) -> int:
    sentence = parse(args.text, pretokenized=args.pretokenized, parser=args.parser)
    if args.json:
        print(json.dumps(sentence.to_json(), ensure_ascii=False, indent=1))
    else:
        print(sentence.to_conllu(), end="")
    return 0


def _print_report(report: list[resources.Resource]) -> None:
    width = max(len(r.name) for r in report)
    for r in report:
        state = "found   " if r.found else ("optional" if r.optional else "MISSING ")
        detail = r.location if r.found else r.fix
        print(f"{r.name:<{width}}  {state}  {detail}")


def cmd_doctor(args: argparse.Namespace) -> int:
    report = resources.doctor(get_settings())
    _print_report(report)
    required = [r for r in report if not r.found and not r.optional]
    return 1 if required else 0


def cmd_provision(args: argparse.Namespace) -> int:
    _print_report(resources.provision(get_settings()))
    return 0
