"""The small vocabularies shared by every layer, as enums validated once (:meth:`parse`).

They are ``StrEnum`` s: a member equals its value (``NLILabel.ENTAILMENT == "entailment"``) and
serialises as it, so stored rows and JSON stay plain strings.
"""

from __future__ import annotations

import enum
from typing import Self

from engine.core.errors import InputError


class _Vocabulary(enum.StrEnum):
    def __repr__(self) -> str:
        """As the plain string, so that messages read ``'neutral'`` wherever a value is quoted."""
        return repr(self.value)

    @classmethod
    def parse(cls, value: object, what: str | None = None) -> Self:
        """The member spelled ``value`` (any case, surrounding space ignored); InputError if none."""
        if isinstance(value, cls):
            return value
        key = str(value).strip().lower() if isinstance(value, str) else value
        for member in cls:
            if member.value == key:
                return member
        name = what or (cls.__doc__ or cls.__name__).split(":")[0].strip()
        raise InputError(f"unknown {name} {value!r}; use one of: {', '.join(m.value for m in cls)}")


class NLILabel(_Vocabulary):
    """NLI label: what a premise says of a hypothesis."""

    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"


class AttackStatus(_Vocabulary):
    """attack status: how the attack on one pair ended."""

    SUCCESS = "success"  # the victim's prediction on (P, H*) left the target label
    FAILED = "failed"  # budget spent, or no candidate left, or H unparsable
    SKIPPED = "skipped"  # the victim was already wrong on (P, H): not attacked


#: The NLI labels in the order victims output them.
LABELS: tuple[NLILabel, ...] = tuple(NLILabel)


class Fluency(_Vocabulary):
    """fluency: how one judge reads a hypothesis as English."""

    OK = "ok"  # English a native speaker could have written
    ODD = "odd"  # understandable, but unnatural: not what a native speaker would write
    BROKEN = "broken"  # ungrammatical or meaningless


#: The fluency levels, from natural to broken.
FLUENCIES: tuple[Fluency, ...] = tuple(Fluency)
