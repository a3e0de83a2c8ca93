"""Does the victim keep its label under rewrites that keep the pair's label? A probe of the failed
pairs of `bench/validity.py generate` runs (C2C by default), before anyone builds a new operator.

    .venv/bin/python bench/victim_holds.py results/validity/v37_snli_pres_seed2.jsonl ... [--setup C2C] [--show]

For each failed pair of the setup, two rewrites of H that natural logic licenses and the attack does
not make:

- **there**: an indefinite subject's clause as an existential, "A girl is sleeping in bed" →
  "There is a girl sleeping in bed", "A bird flies" → "There is a bird who flies" (H* ≡ H);
- **premise predicate**: H conjoined with P's own predicate, "The men are eating lunch" → "The men
  are eating lunch and pouring concrete onto another truck" (H* ⊏ H: what contradicts H
  contradicts H*; the conjunct raises H's overlap with P as far as an edit of H can).

The victim is asked about (P, H*), and the table says how often it leaves the source label (a
success, had an operator made the rewrite). The rewrites are built from the parse by simple
rules and printed with ``--show``; a pair whose H has no such shape is counted as not built.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import validity  # noqa: E402
from engine.api import Settings, get_settings  # noqa: E402
from engine.core.errors import InputError  # noqa: E402
from engine.natlog.setups import get_setup  # noqa: E402
from engine.parse import parse  # noqa: E402
from engine.parse.sentence import ParsedSentence, Token  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402

INDEFINITE = frozenset({"a", "an", "some", "two", "three", "four", "five", "six", "several", "many"})


def span(sentence: ParsedSentence, tokens: list[Token]) -> str:
    return " ".join(t.text for t in sorted(tokens, key=lambda t: t.id))


def existential(hypothesis: str, settings: Settings) -> str | None:
    """"A N (is) V..." → "There is a N V-ing..." / "There is a N who V...", for a clause whose
    subject starts with an indefinite determiner or is a bare plural; None for other shapes."""
    sentence = parse(hypothesis, settings=settings)
    root = sentence.root
    subjects = root and sentence.children(root.id, "nsubj")
    if not root or not subjects:
        return None
    subject = sorted(sentence.subtree(subjects[0].id), key=lambda t: t.id)
    first, head = subject[0], subjects[0]
    if not (first.text.lower() in INDEFINITE or (head.xpos == "NNS" and first.upos != "DET")):
        return None
    rest = [t for t in sentence if t.id > subject[-1].id and t.upos != "PUNCT"]
    if not rest:
        return None
    plural = head.xpos == "NNS" or first.text.lower() not in ("a", "an")
    noun_phrase = span(sentence, subject)
    noun_phrase = noun_phrase[:1].lower() + noun_phrase[1:]
    if rest[0].text.lower() in ("is", "are") and len(rest) > 1 and rest[1].xpos == "VBG":
        tail = span(sentence, rest[1:])
    elif rest[0].xpos in ("VBZ", "VBP", "VBD"):
        tail = "who " + span(sentence, rest)
    else:
        return None
    return f"There {'are' if plural else 'is'} {noun_phrase} {tail}."


def premise_predicate(premise: str, settings: Settings) -> str | None:
    """P's predicate: its root verb with what follows it (no subject, no later conjunct), or the
    participle phrase of a caption fragment ("A man driving a buggy down a street")."""
    sentence = parse(premise, settings=settings)
    root = sentence.root
    if root is None:
        return None
    if root.upos in ("VERB", "AUX"):
        before = [c for c in sentence.children(root.id) if c.deprel in ("aux", "aux:pass", "advmod") and c.id < root.id]
        after = [t for c in sentence.children(root.id) if c.id > root.id and c.deprel not in ("punct", "cc", "conj")
                 for t in sentence.subtree(c.id)]
        return span(sentence, [*before, root, *after])
    participles = [c for c in sentence.children(root.id) if c.xpos == "VBG"]
    return span(sentence, sentence.subtree(participles[0].id)) if participles else None


def conjoined(premise: str, hypothesis: str, settings: Settings) -> str | None:
    predicate = premise_predicate(premise, settings)
    return f"{hypothesis.rstrip(' .')} and {predicate}." if predicate else None


REWRITES = {"there": lambda p, h, settings: existential(h, settings), "premise predicate": conjoined}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="bench/validity.py generate run files")
    parser.add_argument("--setup", default="C2C", help="the setup whose failed pairs are probed (default C2C)")
    parser.add_argument("--show", action="store_true", help="print every rewrite with the victim's P(source label)")
    args = parser.parse_args(argv)
    try:
        setup = get_setup(args.setup)
        rows = [r for path in args.runs for r in validity.with_texts(validity.read_jsonl(path))
                if r["setup"] == setup.name and r["status"] == "failed"]
    except (InputError, KeyError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pairs = list({(r["premise"], r["hypothesis"]): r for r in rows})  # a pair several runs failed counts once
    settings = get_settings()
    victim = validity.load_victim("offline", settings=settings)
    source = setup.source_label.value
    table = []
    for name, rewrite in REWRITES.items():
        built = [(p, h, star) for p, h in pairs if (star := rewrite(p, h, settings))]
        before = victim.predict([(p, h) for p, h, _ in built])
        after = victim.predict([(p, star) for p, _, star in built])
        left = [b.label == source and a.label != source for b, a in zip(before, after)]
        drops = [b.prob(source) - a.prob(source) for b, a in zip(before, after)]
        table.append([name, len(pairs), len(built), sum(left), max(drops, default=None),
                      sum(drops) / len(drops) if drops else None])
        if args.show:
            for (p, _, star), b, a, moved in zip(built, before, after, left):
                print(f"{'LEFT' if moved else '    '} {b.prob(source):.2f} -> {a.prob(source):.2f} | P: {p} | H*: {star}")
    print(format_table(["rewrite", "failed pairs", "built", f"victim leaves {source}", "largest drop",
                        "mean drop"], table, frozenset({"largest drop", "mean drop"})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
