"""``candidates`` (ranked natural-logic candidates for one pair), ``operators`` (the registered edit
operators and constraints) and ``mine-pps`` subcommands."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from tqdm import tqdm

from engine.attack.build import Resources, build
from engine.attack.recipe import recipe_names
from engine.attack.round import no_candidate_reason, propose
from engine.cli.attack_commands import recipe_from_args
from engine.constraints import describe_rejected, registered_constraints
from engine.core.errors import InputError
from engine.core.settings import Settings, get_settings
from engine.data.readers import FORMATS, read_pairs
from engine.edits.operators import registered_operators, select_operators
from engine.lexicon import pp_inventory
from engine.lexicon import relatives as lexicon
from engine.natlog.polarity import polarize
from engine.natlog.relations import format_relations
from engine.natlog.setups import Setup, get_setup, setups_for_label
from engine.parse import ParsedSentence, parse, validate_premise
from engine.ranking.scoring import SCORERS


def register(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("candidates", help="generate and rank natural-logic candidates H* for a pair")
    c.add_argument("--premise", required=True)
    c.add_argument("--hypothesis", required=True)
    c.add_argument("--label", required=True, help="gold label: entailment, neutral or contradiction")
    c.add_argument("--setup", default=None, help="E2E, C2C, N2N, E2C, E2N or C2E (default: all for the label)")
    c.add_argument("--recipe", default=None, metavar="NAME|FILE",
                   help=f"the attack recipe whose first round is listed ({', '.join(recipe_names())}, or a TOML file; "
                        "default: default)")
    c.add_argument("--top", type=int, default=None, help="keep the best N per setup (default: the recipe's top_k)")
    c.add_argument("--scorer", choices=SCORERS, default=None, help="fluency scorer (default: settings.scorer)")
    c.add_argument("--alt-lm", dest="alt_lm", action="store_true", default=None, help="use the AltLM operator")
    c.add_argument("--no-alt-lm", dest="alt_lm", action="store_false", help="skip the AltLM operator")
    c.add_argument("--json", action="store_true", help="print a JSON list of candidate objects")
    c.set_defaults(func=cmd_candidates)

    o = sub.add_parser("operators", help="list the registered edit operators and constraints")
    o.set_defaults(func=cmd_operators)

    m = sub.add_parser("mine-pps", help="mine insertable PPs, adjectives and adverbs from a corpus file")
    m.add_argument("file", type=Path, help="text (one sentence a line), TSV or SNLI-style JSONL")
    m.add_argument("--format", choices=FORMATS, default=None,
                   help="read FILE as an NLI data file (premises and hypotheses) in this format")
    m.add_argument("--split", default=None,
                   help="with --format: only this split (SICK TRAIN/TRIAL/TEST, or a TRAIN/TEST half)")
    m.add_argument("--min-count", type=int, default=5)
    m.add_argument("--limit", type=int, default=None, help="read at most N sentences")
    m.add_argument("--out", type=Path, default=None, help="output JSON (default: settings.pp_inventory)")
    m.set_defaults(func=cmd_mine_pps)


def _setups(label: str, name: str | None) -> list[Setup]:
    candidates = setups_for_label(label)
    if name is None:
        return candidates
    setup = get_setup(name)
    if setup.source_label != label.strip().lower():
        raise InputError(f"setup {setup.name} starts from {setup.source_label} pairs, not {label}")
    return [setup]


def cmd_candidates(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.top is not None and args.top < 1:
        raise InputError("--top must be at least 1")
    recipe = recipe_from_args(args, settings)
    validate_premise(args.premise, recipe.search.max_chars)
    setups = _setups(args.label, args.setup)
    attack = build(recipe, Resources.of(settings))
    polarized = polarize(parse(args.hypothesis, settings=attack.settings), conventions=attack.reading)
    # The search's first round: the same pipeline, the same order, each with its validity estimate.
    proposals = propose(attack, polarized, setups, args.premise)
    if args.json:
        print(json.dumps([c.to_json() for p in proposals for c in p.candidates], ensure_ascii=False, indent=1))
        return 0
    print(f"H: {polarized.marked}")
    for proposal in proposals:
        setup, rows = proposal.setup, proposal.candidates
        dropped = describe_rejected(proposal.rejected)
        print(f"\n{setup.name} ({setup.source_label} -> {setup.target_label}): {proposal.generated} generated, "
              f"{dropped}; {len(rows)} ranked")
        if not rows:
            print(f"   {no_candidate_reason(attack, polarized, proposal, args.premise)}")
        for n, c in enumerate(rows, start=1):
            relation = f"{c.lexical_relation.symbol}->{c.relation.symbol}"
            print(f"{n:>4}  {c.score:9.2f}  {c.operator:<14} {relation}  {c.text}")
    return 0


def cmd_operators(args: argparse.Namespace) -> int:
    settings = get_settings()
    enabled = {op.name for op in select_operators(settings.disabled_operators)}
    print("Edit operators (generation order within a word and relation; 'off': in settings.disabled_operators):")
    for op in registered_operators():
        paper = f" [{op.paper_name}]" if op.paper_name and op.paper_name != op.name else ""
        state = "on" if op.name in enabled else "off"
        if op.name == "AltLM" and settings.alt_lm == "none":
            state = "off"  # AltLM also needs a fill-in back-end (settings.alt_lm)
        print(f"  {op.name:<18} {state:<4} {format_relations(op.relations):<12} {op.level:<8} {op.description}{paper}")
    print("Constraints (run in this order):")
    for constraint in registered_constraints():
        print(f"  {constraint.name:<18} {constraint.description}")
    return 0


def _parsed(texts: list[str], settings: Settings) -> Iterator[ParsedSentence]:
    """Parse corpus sentences, skipping lines the parser rejects (too long, several sentences)."""
    for text in tqdm(texts, desc="parsing", unit="sent"):
        try:
            yield parse(text, settings=settings)
        except InputError:
            continue


def cmd_mine_pps(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.min_count < 1:
        raise InputError("--min-count must be at least 1")
    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    if args.split is not None and args.format is None:
        raise InputError("--split needs --format (the data file's format)")
    if args.format is None:
        texts = list(pp_inventory.read_corpus(args.file))
    else:
        texts = [t for p in read_pairs(args.file, args.format, args.split) for t in (p.premise, p.hypothesis)]
    texts = texts[: args.limit]
    if not texts:
        raise InputError(f"{args.file} holds no sentences")
    inventory = pp_inventory.mine(_parsed(texts, settings), args.min_count, source=str(args.file),
                                  is_animate=lexicon.wordnet_animacy(lexicon.wordnet(settings)))
    out = args.out or settings.pp_inventory
    pp_inventory.save(inventory, out)
    sizes = ", ".join(f"{len(getattr(inventory, c))} {c.replace('_', ' ')}" for c in pp_inventory.CATEGORIES)
    print(f"wrote {out}: {sizes}")
    return 0
