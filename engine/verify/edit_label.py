"""What natural logic says about a person's edit of a pair's hypothesis: the label (P, H*) has.

A writer who edits H into H* knows P's label for H (the pair's gold label) and wants (P, H*) to
have some label. :func:`label_after_edit` derives the relation H bears to H* with the verifier
(:func:`engine.verify.verifier.verify`), then reads the label (P, H*) must have off the setup table
(:data:`engine.natlog.setups.SETUPS`, NatLogAttack's Table 1): the setup of the gold label whose
relation set holds every relation the verifier leaves open gives the label, with the setup's own
sentence for why (E2E, C2C, E2C and C2E are guaranteed by the join table; E2N and N2N are the
paper's reading, "P need not entail H*" and "P cannot come to entail H*": tests/natlog/test_setups.py).
Where the verifier commits to nothing, or the relations it leaves open are in no setup of the gold
label (a neutral pair's H made weaker, an entailed H made to exclude less), the answer is "cannot
tell" with the reason, never a guess.

In: P's gold label, H and H*. Out: an :class:`EditLabel`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.core.vocab import NLILabel
from engine.natlog.relations import format_relations
from engine.natlog.setups import Setup, setups_for_label
from engine.verify.verifier import UNKNOWN, Verdict, verify

__all__ = ["CANNOT_TELL", "EditLabel", "label_after_edit"]

CANNOT_TELL = "cannot tell"


@dataclass(frozen=True)
class EditLabel:
    """The label natural logic gives (P, H*) (``label``; :data:`CANNOT_TELL` when it commits to
    none), the setup whose relations license it, the verifier's verdict on H -> H* (its relation
    and derivation) and why, in one sentence."""

    gold_label: NLILabel
    label: str
    verdict: Verdict | None
    setup: Setup | None
    reason: str

    @property
    def committed(self) -> bool:
        return self.label != CANNOT_TELL

    @property
    def relations(self) -> str:
        """H's relation to H*, as symbols (``unknown`` when the verifier has none)."""
        return format_relations(self.verdict.relations) if self.verdict and self.verdict.relations else UNKNOWN

    def to_json(self) -> dict[str, object]:
        return {"gold_label": self.gold_label.value, "label": self.label, "relations": self.relations,
                "setup": self.setup.name if self.setup else None, "reason": self.reason,
                "derivation": [s.to_json() for s in self.verdict.steps] if self.verdict else []}


def label_after_edit(gold_label: str, hypothesis: str, hstar: str, settings: Settings) -> EditLabel:
    """The label natural logic gives (P, ``hstar``) when (P, ``hypothesis``) is ``gold_label``.

    An InputError (one line) for an unknown label or an empty or over-long sentence."""
    gold = NLILabel.parse(gold_label, "the pair's label")
    try:
        verdict = verify(hypothesis, hstar, settings)
    except InputError as exc:
        raise InputError(str(exc).replace("premise:", "H:").replace("hypothesis:", "H*:")) from exc
    if not verdict.relations:
        return EditLabel(gold, CANNOT_TELL, verdict, None,
                         f"natural logic derives no relation from H to H*: {verdict.reason or 'no rule for this edit'}")
    derived = format_relations(verdict.relations)
    for setup in setups_for_label(gold.value):
        if verdict.relations <= setup.relations:
            return EditLabel(gold, setup.target_label.value, verdict, setup,
                             f"H → H* is {derived}, inside {setup.name} ({format_relations(setup.relations)}): "
                             f"{setup.description}")
    why = f" ({verdict.reason})" if verdict.label == UNKNOWN and verdict.reason else ""
    return EditLabel(gold, CANNOT_TELL, verdict, None,
                     f"H → H* is {derived}{why}: no setup of {_article(gold.value)} {gold.value} pair holds it, so "
                     "(P, H*) can have more than one label")


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
