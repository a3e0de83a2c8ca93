"""The attack setups of NatLogAttack (Zheng & Zhu 2023, Table 1) as data.

A setup says which label the original pair (P, H) has, which label the
adversarial pair (P, H*) should get, and which relations H may bear to H*.
Why each relation set is right follows from the join table: with ``P s H``
for every ``s`` in the source label's relations and ``H r H*``, the relation
between P and H* lies in ``join(s, r)`` (proved per row in tests/test_setups.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import InputError
from engine.core.vocab import NLILabel
from engine.natlog.relations import Relation


@dataclass(frozen=True)
class Setup:
    """One generation setup: source label -> target label via relations between H and H*."""

    name: str
    source_label: NLILabel
    target_label: NLILabel
    relations: frozenset[Relation]
    label_preserving: bool
    description: str = ""


_R = Relation
SETUPS: dict[str, Setup] = {
    s.name: s
    for s in (
        Setup("E2E", NLILabel.ENTAILMENT, NLILabel.ENTAILMENT, frozenset({_R.EQUIVALENCE, _R.FORWARD}), True,
              "H* is equivalent to or weaker than H: P still entails H*"),
        Setup("C2C", NLILabel.CONTRADICTION, NLILabel.CONTRADICTION, frozenset({_R.EQUIVALENCE, _R.REVERSE}), True,
              "H* is equivalent to or stronger than H: P still excludes H*"),
        Setup("N2N", NLILabel.NEUTRAL, NLILabel.NEUTRAL, frozenset({_R.EQUIVALENCE, _R.REVERSE}), True,
              "H* is equivalent to or stronger than H: P cannot come to entail H*"),
        Setup("E2C", NLILabel.ENTAILMENT, NLILabel.CONTRADICTION, frozenset({_R.NEGATION, _R.ALTERNATION}), False,
              "H* excludes H: P, which entails H, contradicts H*"),
        Setup("E2N", NLILabel.ENTAILMENT, NLILabel.NEUTRAL, frozenset({_R.REVERSE}), False,
              "H* is strictly stronger than H: P entails H but need not entail H*"),
        Setup("C2E", NLILabel.CONTRADICTION, NLILabel.ENTAILMENT, frozenset({_R.NEGATION, _R.COVER}), False,
              "H* is not-H or weaker than not-H: P, which entails not-H, entails H*"),
    )
}


def get_setup(name: str) -> Setup:
    """The setup called ``name`` (case-insensitive, "E2E" or "E->E" style)."""
    key = name.strip().upper().replace("->", "2").replace("→", "2")
    if key not in SETUPS:
        raise InputError(f"unknown attack setup {name!r}; choose one of: {', '.join(SETUPS)}")
    return SETUPS[key]


def setups_for_label(label: str) -> list[Setup]:
    """The setups that start from pairs with the gold ``label``."""
    key = NLILabel.parse(label)
    return [s for s in SETUPS.values() if s.source_label == key]
