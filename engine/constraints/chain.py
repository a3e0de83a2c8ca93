"""Constraints: checks every candidate H* must pass before it is ranked and put to the victim.

A constraint is an object with a ``name`` and one method, :meth:`Constraint.keep`, that returns
the candidates it lets through; the :class:`ConstraintChain` runs the registered constraints in
order and tallies what each one dropped (``rejected: {name: count}``), which the round trace,
the CLI and the pages print. The attack search, ``engine candidates`` and the Candidates page
run the same chain.

Adding one is one class and one registration::

    @register_constraint
    class NoDigits(Constraint):
        name = "no-digits"
        description = "H* has no digits"

        def keep(self, candidates, check):
            return [c for c in candidates if not any(ch.isdigit() for ch in c.text)]
"""

from __future__ import annotations

import dataclasses
import math
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from engine.core.registry import Configurable, Registry
from engine.core.settings import Settings
from engine.core.vocab import NLILabel
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import Relation, join_sets
from engine.natlog.setups import Setup
from engine.parse import parse_many
from engine.parse.repair import verb_lemma
from engine.parse.sentence import ParsedSentence
from engine.ranking.scoring import Scorer


@dataclass(frozen=True)
class CheckContext:
    """What the constraints know about a round: the premise (None when there is none), the setup
    (its relation set and target label), H's relation to the hypothesis being edited and how many
    edits led to it, the polarized hypothesis being edited, the settings, and the ranking scorer
    with its score of the original H (the fluency reference)."""

    setup: Setup
    premise: str | None = None
    composed: frozenset[Relation] = field(default_factory=lambda: frozenset({Relation.EQUIVALENCE}))
    edits: int = 0
    source: PolarizedSentence | None = None
    settings: Settings | None = None
    scorer: Scorer | None = None
    reference: float | None = None


class Constraint(Configurable, ABC):
    """One check on candidates. Subclasses set ``name`` (and ``description``) and implement :meth:`keep`;
    one with parameters names them in ``parameters`` and takes them in its constructor."""

    name: ClassVar[str]
    description: ClassVar[str] = ""

    @abstractmethod
    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        """The candidates that pass, in their order."""

    def __repr__(self) -> str:
        return f"<constraint {self.name}>"


_REGISTRY: Registry[Constraint] = Registry("constraint")
C = TypeVar("C", bound=type[Constraint])


def register_constraint(cls: C) -> C:
    """Class decorator: add one instance of ``cls`` to the chain (registration order is run order)."""
    _REGISTRY.add(cls.name, cls())
    return cls


def registered_constraints() -> tuple[Constraint, ...]:
    return _REGISTRY.values()


def get_constraint(name: str) -> Constraint:
    return _REGISTRY.get(name)


@dataclass(frozen=True)
class Checked:
    """The candidates a chain kept and, per constraint in chain order, how many it dropped (in all,
    and per edit operator)."""

    kept: list[Candidate]
    rejected: dict[str, int]
    by_operator: dict[str, dict[str, int]] = field(default_factory=dict)


def describe_rejected(rejected: dict[str, int]) -> str:
    """``3 by relation-guard, 1 by premise-check`` (constraints that dropped nothing left out)."""
    return ", ".join(f"{n} by {name}" for name, n in rejected.items() if n) or "none rejected"


def describe_by_operator(by_operator: dict[str, dict[str, int]]) -> str:
    """``reparse-check: PerturbHypo 2, Insertion 1; fluency-floor: ...`` (empty when nothing dropped)."""
    return "; ".join(f"{name}: " + ", ".join(f"{op} {n}" for op, n in ops.items())
                     for name, ops in by_operator.items() if ops)


@dataclass(frozen=True)
class ConstraintChain:
    """Constraints run in order; each sees only what the ones before it kept."""

    constraints: tuple[Constraint, ...]

    @classmethod
    def default(cls, settings: Settings | None = None) -> ConstraintChain:
        """Every registered constraint, in registration order, with its parameters from ``settings``
        (the registered defaults without)."""
        found = registered_constraints()
        return cls(found if settings is None else tuple(c.from_settings(settings) for c in found))

    @classmethod
    def named(cls, names: Iterable[str]) -> ConstraintChain:
        return cls(tuple(get_constraint(n) for n in names))

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints)

    def apply(self, candidates: Sequence[Candidate], check: CheckContext) -> Checked:
        kept = list(candidates)
        rejected: dict[str, int] = {}
        by_operator: dict[str, dict[str, int]] = {}
        for constraint in self.constraints:
            passed = constraint.keep(kept, check)
            rejected[constraint.name] = len(kept) - len(passed)
            if len(passed) < len(kept):
                survivors = Counter(c.text for c in passed)
                dropped: Counter[str] = Counter()
                for c in kept:
                    if survivors[c.text]:
                        survivors[c.text] -= 1
                    else:
                        dropped[c.operator] += 1
                by_operator[constraint.name] = dict(sorted(dropped.items()))
            kept = passed
        return Checked(kept, rejected, by_operator)


@register_constraint
class RelationGuard(Constraint):
    """Keep a candidate only if H's relation to it, composed across rounds with the join table,
    stays inside the setup's relation set (a round asks only for such edits; this guards the
    composition)."""

    name = "relation-guard"
    description = "H's composed relation to H* stays in the setup's relations"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        allowed = check.setup.relations
        return [c for c in candidates if join_sets(check.composed, {c.relation}) <= allowed]


def content_words(text: str) -> set[str]:
    """Lower-cased alphabetic words of ``text`` that are not stop words."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return {w for w in (t.strip(".,;:!?\"'").lower() for t in text.split()) if w.isalpha() and w not in STOP_WORDS}


@register_constraint
class PremiseCheck(Constraint):
    """For a neutral target: keep the candidates whose new words bring content P does not already have.

    An edit that makes H stronger with words of P ("a man sweeps" -> "a man in a red shirt sweeps"
    when P mentions the red shirt) likely leaves P entailing H*, so it could not be neutral.
    """

    name = "premise-check"
    description = "neutral targets: the edit adds content P does not have"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if check.setup.target_label != NLILabel.NEUTRAL or not check.premise:
            return list(candidates)
        known = content_words(check.premise)
        return [c for c in candidates if not (new := content_words(c.new)) or not new <= known]


@register_constraint
class MaxEdits(Constraint):
    """At most ``max_edits`` edits from H to H* (0: no cap): long derivations drift from
    anything a person would write ("It is not true that the kids are not at the table bolting down
    high herbal" from "The kids are at the table eating dinner")."""

    name = "max-edits"
    description = "H* is at most max_edits edits from H"
    parameters = ("max_edits",)

    def __init__(self, max_edits: int = Settings.max_edits) -> None:
        self.max_edits = max_edits

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        cap = self.max_edits
        return list(candidates) if cap <= 0 or check.edits < cap else []


@register_constraint
class NoRepeat(Constraint):
    """No words repeated back to back that H does not repeat: an edit next to words it repeats
    reads as a slip ("to play professional professional basketball" from a second hyponym of
    "basketball", "in a hot air hot-air balloon"). Hyphens count as spaces; runs of up to three
    words are compared."""

    name = "no-repeat"
    description = "H* repeats no word or phrase back to back unless H does"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        before = _doubled(check.source.sentence.text) if check.source is not None else set()
        return [c for c in candidates if not _doubled(c.text) - before]


_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _doubled(text: str, longest: int = 3) -> set[tuple[str, ...]]:
    """The runs of one to ``longest`` words (lower-cased, hyphens as spaces) that follow themselves in ``text``."""
    words = _WORD.findall(text.lower().replace("-", " "))
    return {tuple(words[i:i + n]) for n in range(1, longest + 1) for i in range(len(words) - 2 * n + 1)
            if words[i:i + n] == words[i + n:i + 2 * n]}


# Dependency labels compared by their base (``obl:tmod`` is an ``obl``); word classes by these groups.
_CLASSES = {"NOUN": "nominal", "PROPN": "nominal", "PRON": "nominal", "NUM": "nominal",
            "VERB": "verbal", "AUX": "verbal", "ADJ": "adjectival", "ADV": "adverbial"}


def _role(upos: str, deprel: str) -> tuple[str, str]:
    return _CLASSES.get(upos, upos), deprel.split(":")[0]


@register_constraint
class ReparseCheck(Constraint):
    """Parse every word-level H* again: the edited word must still fill the role its original had
    (same word class and dependency relation, e.g. a substituted verb is still the clause's verb)
    in the form its tag asks for, and the main clause must keep its head word. Catches edits that
    break the grammar ("attempting to stuck to", "is looking for on the bank")."""

    name = "reparse-check"
    description = "re-parsed H*: the edited word keeps its role, the main clause its head"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        source = check.source
        if source is None:
            return list(candidates)
        original = source.sentence
        root = original.root
        kept = []
        # One batch through the parser for the whole round (memoised: later rounds reuse them).
        parsed = dict(zip((c.text for c in candidates if c.site is not None),
                          parse_many([c.text for c in candidates if c.site is not None], settings=check.settings)))
        for c in candidates:
            if c.site is None:
                kept.append(c)
                continue
            again = parsed.get(c.text)
            if again is None:
                continue
            if len(again.tokens) != len(c.words):
                kept.append(c)  # tokenised differently: no word-by-word alignment to check
                continue
            if _keeps_roles(original, again, c, root.id - 1 if root is not None else None):
                kept.append(c)
        return kept


def _aligned(index: int, c: Candidate) -> int | None:
    """Where word ``index`` of H is in H* (None inside the replaced span)."""
    start, end = c.span
    if index < start:
        return index
    if index >= end:
        return index + (c.new_span[1] - c.new_span[0]) - (end - start)
    return None


def _keeps_roles(original: ParsedSentence, again: ParsedSentence, c: Candidate, root: int | None) -> bool:
    new_root = again.root
    if root is not None and new_root is not None:
        where = _aligned(root, c)
        moved = (where is not None and new_root.id - 1 != where
                 or where is None and not c.new_span[0] <= new_root.id - 1 < c.new_span[1])
        if moved:
            return False
    start, end = c.span
    if c.edit_kind == "substitution" and end - start == 1 and c.new_span[1] > c.new_span[0]:
        old = original.tokens[start]
        span = range(c.new_span[0], c.new_span[1])
        heads = [again.tokens[k] for k in span if not (c.new_span[0] <= again.tokens[k].head - 1 < c.new_span[1])]
        if len(heads) != 1 or _role(heads[0].upos, heads[0].deprel) != _role(old.upos, old.deprel):
            return False
        if old.upos == "VERB" and old.xpos.startswith("VB") and verb_lemma(c.words[c.new_span[0]], old.xpos) is None:
            return False  # the verb slot's tag asks for a form this word is not ("to stuck")
    return True


@register_constraint
class FluencyFloor(Constraint):
    """H* may be at most ``fluency_floor`` times as perplexing as H to the ranking LM (0:
    no floor). Scores are kept on the candidates, so ranking does not score them again."""

    name = "fluency-floor"
    description = "H*'s perplexity is at most fluency_floor times H's"
    parameters = ("fluency_floor",)

    def __init__(self, fluency_floor: float = Settings.fluency_floor) -> None:
        self.fluency_floor = fluency_floor

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if self.fluency_floor <= 0 or check.scorer is None or check.reference is None or not candidates:
            return list(candidates)
        scores = check.scorer.score([c.text for c in candidates])
        limit = self.fluency_floor * check.reference
        return [dataclasses.replace(c, score=s) for c, s in zip(candidates, scores) if s <= limit]


@register_constraint
class InsertionFit(Constraint):
    """An inserted modifier must cost the ranking LM at most ``insertion_cost`` nats per
    inserted token (0: off): H*'s total negative log-likelihood minus that of the hypothesis it
    edits, over the tokens added. Mined modifiers fit their noun's class but often not the
    sentence ("The gang is structured in the air", "Oats in the water have long been food for
    horses"); a perplexity ratio does not tell those apart, this cost does in part
    (docs/validity.md). Runs after the fluency floor and reuses its scores."""

    name = "insertion-fit"
    description = "an inserted modifier costs the LM at most insertion_cost nats per token"
    parameters = ("insertion_cost",)

    def __init__(self, insertion_cost: float = Settings.insertion_cost) -> None:
        self.insertion_cost = insertion_cost

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        inserted = [c for c in candidates if c.operator == "Insertion"]
        if self.insertion_cost <= 0 or check.scorer is None or check.source is None or not inserted:
            return list(candidates)
        scorer = check.scorer
        missing = [c for c in inserted if c.score is None]
        if missing:
            fresh = dict(zip((c.text for c in missing), scorer.score([c.text for c in missing])))
            inserted = [c if c.score is not None else dataclasses.replace(c, score=fresh[c.text]) for c in inserted]
        source = check.source.sentence.text
        # In the first round the hypothesis edited is H, whose score the fluency reference holds.
        if check.edits == 0 and check.reference is not None:
            base_score = check.reference
        else:
            (base_score,) = scorer.score([source])
        counts = scorer.token_counts([source, *(c.text for c in inserted)])
        base = counts[0] * math.log(base_score)
        too_costly = {
            c.text for c, n in zip(inserted, counts[1:])
            if (n * math.log(c.score or math.inf) - base) / max(1, n - counts[0]) > self.insertion_cost
        }
        return [c for c in candidates if not (c.operator == "Insertion" and c.text in too_costly)]
