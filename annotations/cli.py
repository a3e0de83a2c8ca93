"""``python -m annotations``: manage annotators, read agreement and HVASR, export, import votes.

The command line is trusted: whoever can open the store file can read it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from annotations import auth, schema
from annotations.aggregation import (
    HVASR_GROUPS,
    agreement,
    agreement_reading,
    hvasr,
    item_results,
    resolution_warning,
    state_counts,
)
from annotations.crowd_import import import_votes
from annotations.export import EXPORT_FORMATS, export_rows, write_export
from annotations.records import ROLES
from annotations.report import load_report
from annotations.store import Store
from engine.api import get_settings
from engine.core.errors import InputError
from engine.core.settings import SettingsError
from engine.reports.metrics import print_report
from engine.reports.paper_tables import format_paper, paper_pivot, to_latex
from engine.reports.tables import format_cell, format_table
from engine.store import schema as run_schema

#: The three readings of HVASR, as the command line explains them.
HVASR_READINGS = ("HVASR: valid / attacked (unjudged attacks count as not validated; label only, the paper's "
                  "reading); HVASR+E: valid and not read as broken English by half the judges or more (label and "
                  "not broken; valid fluent), over attacked; HVASR+N: valid and read as natural English (ok) by a "
                  "strict majority of the judges (label and natural; valid natural), over attacked;")


def _open(args: argparse.Namespace) -> Store:
    return Store.open(args.db)


def cmd_init(args: argparse.Namespace) -> int:
    with _open(args) as store:
        print(f"store {store.path} at schema version runs {run_schema.schema_version(store.db)}, "
              f"annotations {schema.schema_version(store.db)}")
    return 0


def cmd_add_annotator(args: argparse.Namespace) -> int:
    with _open(args) as store:
        token = auth.add_annotator(store, args.name, args.role)
    print(f"added {args.role} {args.name.strip()}; their access token (shown only once):")
    print(token)
    return 0


def cmd_bootstrap_code(args: argparse.Namespace) -> int:
    with _open(args) as store:
        code = auth.issue_bootstrap_code(store)
    print("one-time code for creating the first admin on the Admin page (it replaces any earlier code):")
    print(code)
    return 0


def cmd_reissue_token(args: argparse.Namespace) -> int:
    with _open(args) as store:
        token = auth.reissue_token(store, args.name)
    print(f"new access token for {args.name.strip()} (shown only once; the old one no longer signs in):")
    print(token)
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    with _open(args) as store:
        auth.revoke(store, args.name)
    print(f"revoked {args.name}")
    return 0


def cmd_annotators(args: argparse.Namespace) -> int:
    with _open(args) as store:
        people = auth.annotators(store)
    print(format_table(("name", "role", "source", "created", "revoked"),
                 [(p.name, p.role, p.source, p.created_at, p.revoked_at) for p in people]))
    return 0


def cmd_progress(args: argparse.Namespace) -> int:
    with _open(args) as store:
        counts = state_counts(item_results(store))
        warning = resolution_warning(store)
    total = sum(counts.values())
    print(format_table(("items", *counts), [(total, *counts.values())]))
    if warning:
        print(f"warning: {warning}")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    with _open(args) as store:
        report = agreement(store)
    print(f"Fleiss' kappa: {format_cell(report.fleiss_kappa)} "
          f"over {report.fleiss_items} items with k votes")
    print(f"Krippendorff's alpha: {format_cell(report.krippendorff_alpha)} "
          f"over {report.alpha_votes} votes")
    if (reading := agreement_reading(report)) is not None:
        print(reading)
    print(format_table(
        ("annotator", "votes", "agree w/ majority", "gold votes", "gold accuracy",
         "odd share", "broken share", "mean s"),
        [(a.name, a.votes, a.agreement, a.gold_votes, a.gold_accuracy, a.odd_share, a.broken_share,
          a.mean_seconds) for a in report.annotators],
    ))
    return 0


def cmd_hvasr(args: argparse.Namespace) -> int:
    with _open(args) as store:
        rows = hvasr(store, args.by)
    print(format_table((args.by, "attacked", "successful", "judged", "valid", "valid fluent", "valid natural",
                        "ASR", "coverage", "HVASR", "HVASR+E", "HVASR+N", "HVASR judged", "HVASR estimated",
                        "estimate on judged"),
                       [(r.value, r.attacked, r.successful, r.judged, r.valid, r.valid_fluent, r.valid_natural,
                         r.asr, r.coverage, r.hvasr, r.hvasr_fluent, r.hvasr_natural, r.hvasr_judged,
                         r.hvasr_estimated, r.estimate_on_judged) for r in rows]))
    print(f"{HVASR_READINGS} HVASR judged: valid / judged; "
          "coverage: judged / successful; '-' where nothing is judged. HVASR estimated: the validity "
          "estimates of the successful H* over attacked pairs; estimate on judged: their mean over the judged "
          "attacks (beside HVASR judged: the estimate's calibration); '-' for runs without a validity gate.")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    with _open(args) as store:
        tables = load_report(store, args.run)
    print_report(tables, args.csv)
    print(HVASR_READINGS.rstrip(";") + ".")
    pivot = paper_pivot(tables.runs)
    if not pivot.empty:
        print("\nPaper table (Tables 4-5): setups x attack system, victim and data set; HVASR = label only, "
              "HVASR+E = label and not broken, HVASR+N = label and natural\n" + format_paper(pivot))
    if args.latex is not None:
        _write(args.latex, to_latex(pivot))
        print(f"wrote the paper table to {args.latex}")
    if args.paper_csv is not None:
        _write(args.paper_csv, pivot.to_csv())
        print(f"wrote the paper table to {args.paper_csv}")
    return 0


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})") from exc


def cmd_export(args: argparse.Namespace) -> int:
    with _open(args) as store:
        rows = export_rows(store, args.run)
    if args.output is None:
        write_export(rows, args.format, sys.stdout)
        return 0
    try:
        with Path(args.output).open("w", newline="", encoding="utf-8") as out:
            write_export(rows, args.format, out)
    except OSError as exc:
        raise InputError(f"{args.output}: cannot write ({exc.strerror})") from exc
    print(f"wrote {len(rows)} attacks to {args.output}", file=sys.stderr)
    return 0


def cmd_import_votes(args: argparse.Namespace) -> int:
    with _open(args) as store:
        report = import_votes(store, args.file, args.source)
    for line, message in report.rejected:
        print(f"{args.file}:{line}: rejected: {message}", file=sys.stderr)
    print(f"imported {report.imported} votes, skipped {report.duplicates} duplicates, "
          f"rejected {len(report.rejected)} rows")
    return 1 if report.rejected else 0


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", type=Path, default=None,
                        help=f"store file (default: {get_settings().db_path})")
    parser = argparse.ArgumentParser(prog="python -m annotations",
                                     description="NatLog Studio annotation store")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, func, help: str) -> argparse.ArgumentParser:  # noqa: A002
        p = sub.add_parser(name, parents=[common], help=help, description=help)
        p.set_defaults(func=func)
        return p

    add("init", cmd_init, "create or migrate the store")
    p = add("add-annotator", cmd_add_annotator, "add a person; prints their token once")
    p.add_argument("name")
    p.add_argument("--role", choices=ROLES, default="annotator")
    add("bootstrap-code", cmd_bootstrap_code,
        "print a one-time code for creating the first admin in the app (refused once an admin exists)")
    add("revoke", cmd_revoke, "revoke a person's token (their votes stay)").add_argument("name")
    add("reissue-token", cmd_reissue_token,
        "give a person a new token (prints it once; re-activates a revoked person)").add_argument("name")
    add("annotators", cmd_annotators, "list annotators")
    add("progress", cmd_progress, "count attack items pending, tied and resolved")
    add("agreement", cmd_agreement, "Fleiss' kappa, Krippendorff's alpha, per-annotator agreement")
    p = add("hvasr", cmd_hvasr, "human-validated attack success rate")
    p.add_argument("--by", choices=HVASR_GROUPS, default="run")
    p = add("report", cmd_report, "ASR, HVASR, QN and PPL per run (paper Tables 4-5), with breakdowns")
    p.add_argument("--run", default=None, help="only this run")
    p.add_argument("--csv", type=Path, default=None,
                   help="write the run table here, and the breakdowns beside it (-operator.csv, -polarity.csv)")
    p.add_argument("--latex", type=Path, default=None,
                   help="write the paper table (setups x attack system, victim and data set) as a LaTeX tabular here")
    p.add_argument("--paper-csv", type=Path, default=None,
                   help="write the same paper table as CSV here")
    p = add("export", cmd_export, "attacks with victim outputs, votes and majority")
    p.add_argument("--format", choices=EXPORT_FORMATS, default="csv")
    p.add_argument("--run", default=None, help="only this run")
    p.add_argument("--output", "-o", default=None, help="file to write (default: stdout)")
    p = add("import-votes", cmd_import_votes,
            "merge votes from a CSV (item_id, worker_id, label; MTurk names accepted)")
    p.add_argument("file", type=Path)
    p.add_argument("--source", default="crowd", help="prefix for the workers' names")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; user errors print one line to stderr and exit 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (InputError, SettingsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
