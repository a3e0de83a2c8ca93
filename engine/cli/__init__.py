"""``python -m engine``: one subcommand per pipeline stage, one module per command group here.

In: the command line. Out: the command's output, or one error line and exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from engine.cli import (
    attack_commands,
    augment_commands,
    candidate_commands,
    natlog_commands,
    parse_commands,
    probe_commands,
    profile_commands,
    recipe_commands,
    report_commands,
    resource_commands,
    victim_commands,
)
from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.settings import SettingsError

# Each module adds its subcommands with ``register(subparsers)``.
COMMAND_MODULES = (
    resource_commands, parse_commands, natlog_commands, candidate_commands, victim_commands, recipe_commands,
    attack_commands, profile_commands, augment_commands, report_commands, probe_commands,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="NatLog Studio engine")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; user errors print one line to stderr and exit 2, never a traceback."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (InputError, ResourceError, SettingsError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
