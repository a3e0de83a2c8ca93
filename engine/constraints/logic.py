"""Constraints of natural logic: the composed relation stays in the setup (``relation-guard``), a
neutral target is not decided by the premise (``premise-check``), and at most ``max_edits`` edits
lead from H to H* (``max-edits``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from engine.constraints.chain import CheckContext, Constraint, register_constraint
from engine.core.caches import register_function
from engine.core.settings import Settings
from engine.core.vocab import NLILabel
from engine.core.wordnet import wordnet as lexicon_wordnet
from engine.edits.records import Candidate
from engine.natlog.relations import join_sets


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


#: Words of spaCy's stop list that say something an NLI label turns on: numbers, quantifiers,
#: verbs, places and frequencies ("two", "every", "move", "behind", "always"). What is left of the
#: list is function words and negation.
SAYING_STOP_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty forty fifty sixty hundred "
    "first third last next former latter every all each most many few several both call give go keep make made "
    "move put say see show take used using get alone together behind front back bottom top side empty full "
    "serious whole part name amount always often sometimes once".split())
#: The negation frames' own words ("It is not true that ..."), which say nothing of the scene.
FRAME_WORDS = frozenset({"true", "false"})
_SAID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def said_words(text: str, settings: Settings) -> set[str]:
    """What a sentence says, as words: its lower-cased words and numbers (hyphenated words whole)
    in their WordNet base form ("sweeps" -> "sweep"), less function words, negation and the
    negation frames' words (spaCy's stop list, but for :data:`SAYING_STOP_WORDS`; :data:`FRAME_WORDS`)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return {_base_form(w, settings) for w in _SAID.findall(text.lower())
            if (w not in STOP_WORDS or w in SAYING_STOP_WORDS) and w not in FRAME_WORDS}


@lru_cache(maxsize=65536)
def _base_form(word: str, settings: Settings) -> str:
    wordnet = lexicon_wordnet(settings)
    return next((base for pos in ("v", "n", "a", "r") if (base := wordnet.morphy(word, pos))), word)


register_function('logic.base_forms', _base_form)


@register_constraint
class PremiseCheck(Constraint):
    """For a neutral target: keep the candidates whose new words bring content P does not already
    have, and that say something P does not talk about.

    - An edit that makes H stronger with words of P ("a man sweeps" -> "a man in a red shirt sweeps"
      when P mentions the red shirt) likely leaves P entailing H*, so it could not be neutral.
    - An H* whose every word P has (:func:`said_words`) is about what P describes, and P decides it
      one way or the other: "There is no lion pacing in a pen" -> "There is no lion" when P shows a
      lion (a contradiction), "No public money was used." when P says so (an entailment).
    """

    name = "premise-check"
    description = "neutral targets: the edit adds content P does not have, and H* says something P does not"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if check.setup.target_label != NLILabel.NEUTRAL or not check.premise:
            return list(candidates)
        settings = check.needed_settings()
        known, said = content_words(check.premise), said_words(check.premise, settings)
        return [c for c in candidates if (not (new := content_words(c.new)) or not new <= known)
                and not said_words(c.text, settings) <= said]


@register_constraint
class MaxEdits(Constraint):
    """At most ``max_edits`` edits from H to H* (0: no cap): long derivations drift from
    anything a person would write ("It is not true that the kids are not at the table bolting down
    high herbal" from "The kids are at the table eating dinner")."""

    name = "max-edits"
    description = "H* is at most max_edits edits from H"
    parameters = ("max_edits",)

    def __init__(self, max_edits: int = 3) -> None:
        self.max_edits = max_edits

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        cap = self.max_edits
        return list(candidates) if cap <= 0 or check.edits < cap else []
