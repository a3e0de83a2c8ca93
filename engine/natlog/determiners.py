"""The determiner table: which determiner substitutions natural logic licenses, and with which relation.

MacCartney (2009, §6) relates quantifiers by the sets of situations they describe, assuming
non-empty restrictors: ``every ⊏ most ⊏ some``, ``some ^ no``, ``every | no``, and so on. This
module is the one place those facts live. The verifier reads it to relate two sentences that
differ by a determiner; the attack's determiner operator (:mod:`engine.edits.operators.determiners`)
reads it to make such substitutions. A pair missing from the table has no licensed relation.

Grammar comes with the table: each determiner says which heads it takes (a singular count noun,
a plural noun, a mass noun), so that a substitution never makes "every dogs" or "all dog"
(the verb's agreement then stays as it is).
"""

from __future__ import annotations

import enum

from engine.natlog.relations import RELATION_ORDER, Relation

_E, _F, _R, _N, _A, _C, _I = RELATION_ORDER


class Head(enum.StrEnum):
    """The kind of noun a determiner combines with."""

    SINGULAR = "singular"  # a singular count noun: "every dog"
    PLURAL = "plural"      # a plural noun: "all dogs"
    MASS = "mass"          # a mass noun: "some water"


UNIVERSAL = frozenset({"every", "all", "each"})
EXISTENTIAL = frozenset({"some", "a", "an"})

#: Each determiner word (or phrase) -> its class, the quantifier the table relates.
CLASSES: dict[str, str] = {
    **{w: "every" for w in UNIVERSAL}, **{w: "some" for w in EXISTENTIAL},
    "no": "no", "most": "most", "many": "many", "several": "several",
    "some but not all": "some but not all", "some and not all": "some but not all",
}

#: (class of the old determiner, class of the new one) -> the lexical relation old -> new.
RELATIONS: dict[tuple[str, str], Relation] = {
    ("every", "some"): _F, ("some", "every"): _R,
    ("every", "most"): _F, ("most", "every"): _R,
    ("most", "some"): _F, ("some", "most"): _R,
    ("many", "some"): _F, ("some", "many"): _R,
    ("several", "some"): _F, ("some", "several"): _R,
    ("some", "no"): _N, ("no", "some"): _N,
    ("every", "no"): _A, ("no", "every"): _A,
    ("most", "no"): _A, ("no", "most"): _A,
    ("many", "no"): _A, ("no", "many"): _A,
    ("several", "no"): _A, ("no", "several"): _A,
    ("some but not all", "some"): _F, ("some", "some but not all"): _R,
    ("some but not all", "every"): _A, ("every", "some but not all"): _A,
    ("some but not all", "no"): _A, ("no", "some but not all"): _A,
}

#: The heads each single-word determiner takes ("some dog" is grammatical but reads as odd, so
#: "some" is not offered before a singular count noun; "a"/"an" are chosen by the next word).
HEADS: dict[str, frozenset[Head]] = {
    "a": frozenset({Head.SINGULAR}), "an": frozenset({Head.SINGULAR}),
    "every": frozenset({Head.SINGULAR}), "each": frozenset({Head.SINGULAR}),
    "all": frozenset({Head.PLURAL, Head.MASS}), "some": frozenset({Head.PLURAL, Head.MASS}),
    "most": frozenset({Head.PLURAL, Head.MASS}), "many": frozenset({Head.PLURAL}),
    "several": frozenset({Head.PLURAL}), "no": frozenset({Head.SINGULAR, Head.PLURAL, Head.MASS}),
}


def determiner_class(word: str) -> str | None:
    """The class of a determiner word or phrase (lower-cased), None when the table lacks it."""
    return CLASSES.get(" ".join(word.lower().split()))


def relation(old: str, new: str) -> Relation | None:
    """The lexical relation of substituting determiner ``new`` for ``old``: ≡ within one class,
    the table's relation across classes, None where the table licenses none (or either is no
    determiner it knows)."""
    a, b = determiner_class(old), determiner_class(new)
    if a is None or b is None:
        return None
    if a == b:
        return _E
    return RELATIONS.get((a, b))


def substitutes(old: str, head: Head) -> list[tuple[str, Relation]]:
    """The single-word determiners that may replace ``old`` before a ``head`` noun, each with its
    licensed relation, in table order (``a`` stands for ``a``/``an``; the caller fixes the article)."""
    old = old.lower()
    out = []
    for word, heads in HEADS.items():
        if word == "an" or head not in heads or word == old or {word, old} <= {"a", "an"}:
            continue
        rel = relation(old, word)
        if rel is not None:
            out.append((word, rel))
    return out
