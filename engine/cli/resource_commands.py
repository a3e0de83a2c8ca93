"""``doctor`` and ``provision`` subcommands: the offline resources, where they are, how to fix them."""

from __future__ import annotations

import argparse

from engine.core import resources
from engine.core.settings import get_settings


def register(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("doctor", help="list each offline resource, where it is, and how to fix it")
    d.set_defaults(func=cmd_doctor)

    v = sub.add_parser("provision", help="install the resources that can be installed from here")
    v.set_defaults(func=cmd_provision)


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
