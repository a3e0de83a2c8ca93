"""What a phenomenon is: the family of a candidate's edit operator crossed with the polarity of the
context its edit projects through (MacCartney's monotonicity marks: ↑ upward, ↓ downward, =
neither), for the families whose relation depends on it.

A victim that reads "dog → animal" right in "A dog runs" (↑) but not in "No dog runs" (↓) fails
"hypernym ↓", not hypernyms: the card keeps the two apart. Sentence-level edits (negation, double
negation, equivalence laws) have no context to cross with.

In: a candidate and the polarized H it edits. Out: the phenomenon's name.
"""

from __future__ import annotations

from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence

__all__ = ["FAMILIES", "PHENOMENA", "family_of", "phenomenon"]

#: Operator -> family. An operator not named here is its own family.
FAMILIES: dict[str, str] = {
    "PerturbHyper": "hypernym", "PerturbHypo": "hyponym", "PerturbSyno": "synonym",
    "PerturbAnto": "antonym", "PerturbCoHyper": "co-hyponym",
    "Insertion": "insertion", "Deletion": "deletion",
    "SentenceNegation": "negation", "PredicateNegation": "negation", "DoubleNegation": "double negation",
    "NegatedAntonym": "negated antonym",
    "PerturbQuant": "quantifier swap",
    "ConjunctDeletion": "conjunct edit", "ConjunctInsertion": "conjunct edit",
    "DisjunctDeletion": "disjunct edit", "DisjunctInsertion": "disjunct edit",
    "Commutation": "equivalence law", "DeMorgan": "equivalence law", "AltLM": "AltLM",
}
#: Families whose phenomenon is crossed with the polarity of the edit's context.
CONTEXTUAL = frozenset({"hypernym", "hyponym", "synonym", "antonym", "co-hyponym", "insertion", "deletion",
                        "quantifier swap", "conjunct edit", "disjunct edit"})
#: Every phenomenon a profile can report, in the card's order.
PHENOMENA: tuple[str, ...] = tuple(
    f"{family} {mark}" if family in CONTEXTUAL else family
    for family in dict.fromkeys(FAMILIES.values()) for mark in (("↑", "↓", "=") if family in CONTEXTUAL else ("",))
)


def family_of(operator: str) -> str:
    return FAMILIES.get(operator, operator)


def phenomenon(candidate: Candidate, polarized: PolarizedSentence) -> str:
    """The phenomenon ``candidate`` (an edit of ``polarized``) tests, e.g. ``hypernym ↓``."""
    family = family_of(candidate.operator)
    if family not in CONTEXTUAL:
        return family
    site = candidate.site
    if site is None or not 0 <= site < len(polarized.tokens):
        return f"{family} ↑"  # a sentence-level edit projects through the sentence's own (upward) context
    return f"{family} {polarized.tokens[site].polarity.mark}"
