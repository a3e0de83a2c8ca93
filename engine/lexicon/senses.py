"""Word sense in context: which WordNet senses of a word the sentence means.

WordNet lists senses by frequency, and the first is often not the one a sentence uses ("runner"
is first a smuggler, "portrait" first a verbal portrayal). Substituting relatives of the wrong
sense gives H* that no annotator accepts. A :class:`SenseChooser` ranks a word's synsets for its
context; the lexical finders then follow the chosen senses only.

- ``first`` (:class:`FirstSense`): WordNet's order, the most-frequent-sense baseline.
- ``context`` (:class:`ContextSense`, default): the sentence encoder (all-MiniLM-L6-v2 offline)
  compares the context (the hypothesis, with the premise when there is one) with each synset's
  signature (its lemmas, gloss and examples), plus ``settings.wsd_prior`` times the log of the
  sense's relative frequency in SemCor (WordNet's ``cntlist``), so that a weak contextual
  preference does not overturn a strong prior.

:func:`rival_senses` names the senses scored within ``settings.wsd_margin`` of the best: a
WordNet substitution must hold under those too (:mod:`engine.edits.operators.wordnet`), since the
chooser's pick is a coin toss when a rival is that close.

``bench/wsd.py`` measures both on WordNet's own example sentences (held out from the signatures).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.core.caches import Memo
from engine.core.registry import Registry
from engine.core.settings import Settings, SettingsError
from engine.core.wordnet import ANIMATE_LEXNAMES, semcor_counts
from engine.lexicon import relatives as lexicon

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

    from engine.models.language import SentenceEncoder




@dataclass(frozen=True)
class SenseContext:
    """Where a word is used: its sentence, and the premise when there is one. ``animate``: the
    sentence asks for someone there (the word is the subject of a verb WordNet gives only
    "Somebody ----s" frames, or the antecedent of "who"), so only its person, animal and group
    senses are readings (:func:`readings`): "a bat sniffed" is the animal, never the at-bat.
    ``physical``: a colour word modifies it, so only its physical senses are."""

    sentence: str
    premise: str | None = None
    animate: bool = False
    #: The word is coloured ("a brown bat"): only its senses that are physical things are readings
    #: (a bat or a club, never the at-bat, a turn at batting).
    physical: bool = False

    @property
    def text(self) -> str:
        return self.sentence if not self.premise else f"{self.premise} {self.sentence}"


class SenseChooser(Protocol):
    """Ranks the WordNet senses of a word for a context, best first."""

    name: str

    def rank(self, lemma: str, upos: str, context: SenseContext) -> list[Synset]: ...


def candidate_senses(lemma: str, upos: str, settings: Settings) -> list[Synset]:
    """Every WordNet synset of ``lemma`` for a UD part of speech, in WordNet's frequency order; a
    common noun never takes a sense WordNet spells as a name ("Badger", a native of Wisconsin:
    :func:`engine.lexicon.relatives.word_synsets`)."""
    found: list[Synset] = lexicon.word_synsets(lemma, upos, settings)
    return found


def readings(lemma: str, upos: str, context: SenseContext, settings: Settings) -> list[Synset]:
    """The senses the context allows, in WordNet's order: :func:`candidate_senses`, less the
    inanimate ones where the context asks for someone and the word has an animate sense."""
    found = candidate_senses(lemma, upos, settings)
    if context.animate and upos == "NOUN":
        animate = [s for s in found if s.lexname() in ANIMATE_LEXNAMES]
        found = animate or found
    if context.physical and upos == "NOUN":
        physical = [s for s in found if is_physical(s)]
        found = physical or found
    return found


PHYSICAL_ENTITY = "physical_entity.n.01"


def is_a(synset: Synset, name: str) -> bool:
    """Whether the synset called ``name`` is ``synset`` or one of its hypernyms (instance
    hypernyms too)."""
    return any(name in {s.name() for s in path} for path in synset.hypernym_paths())


def is_physical(synset: Synset) -> bool:
    """Whether a noun sense is a physical thing (WordNet's physical_entity.n.01 is among its
    hypernyms): what a colour can be said of."""
    return is_a(synset, PHYSICAL_ENTITY)


def sense_count(synset: Synset, lemma: str) -> int:
    """How often ``lemma`` was tagged with ``synset`` in SemCor (``cntlist``; 0 when untagged)."""
    return semcor_counts(synset).get(lemma.strip().lower().replace(" ", "_"), 0)


def signature(synset: Synset, leave_out: str | None = None) -> str:
    """What a synset means, as text to embed: its lemmas, gloss and examples (minus ``leave_out``)."""
    lemmas = ", ".join(lexicon.render(l.name()) for l in synset.lemmas()[:4])
    examples = [e for e in synset.examples() if e != leave_out][:3]
    return f"{lemmas}: {synset.definition()}" + "".join(f"; {e}" for e in examples)


class FirstSense:
    """WordNet's own order (by SemCor frequency): the most-frequent-sense baseline."""

    name = "first"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def rank(self, lemma: str, upos: str, context: SenseContext) -> list[Synset]:
        return readings(lemma, upos, context, self.settings)


class ContextSense:
    """Cosine of the context with each sense's signature, plus a weighted log prior from cntlist."""

    name = "context"

    def __init__(self, encoder: SentenceEncoder, settings: Settings, prior: float | None = None) -> None:
        self.encoder, self.settings = encoder, settings
        self.prior = settings.wsd_prior if prior is None else prior
        # Every WordNet operator asks about the same word of the same sentence: rank it once.
        self._ranked: Memo[tuple[str, str, SenseContext], list[tuple[Synset, float]]] = Memo("senses.ranked", 50_000)

    def scores(self, senses: Sequence[Synset], lemma: str, context: SenseContext,
               leave_out: str | None = None) -> list[float]:
        """One score per sense (higher is better)."""
        vectors = self.encoder.encode([context.text, *(signature(s, leave_out) for s in senses)])
        similarity = (vectors[1:] @ vectors[0]).tolist()
        counts = [sense_count(s, lemma) for s in senses]
        total = sum(counts) + len(counts)
        return [sim + self.prior * math.log((n + 1) / total) for sim, n in zip(similarity, counts)]

    def scored(self, lemma: str, upos: str, context: SenseContext) -> list[tuple[Synset, float]]:
        """The word's senses with their scores, best first (a single sense scores 0)."""
        def rank() -> list[tuple[Synset, float]]:
            senses = readings(lemma, upos, context, self.settings)
            scores = self.scores(senses, lemma, context) if len(senses) >= 2 else [0.0] * len(senses)
            order = sorted(range(len(senses)), key=lambda k: (-scores[k], k))
            return [(senses[k], scores[k]) for k in order]

        return list(self._ranked.get_or((lemma, upos, context), rank))

    def rank(self, lemma: str, upos: str, context: SenseContext) -> list[Synset]:
        return [synset for synset, _ in self.scored(lemma, upos, context)]


def choose_senses(chooser: SenseChooser | None, lemma: str, upos: str, context: SenseContext,
                  settings: Settings) -> tuple[str, ...]:
    """The names of the ``settings.wordnet_senses`` best senses of the word in its context
    (WordNet's first ones without a chooser)."""
    ranked = chooser.rank(lemma, upos, context) if chooser is not None else readings(lemma, upos, context, settings)
    return tuple(s.name() for s in ranked[: settings.wordnet_senses])


def rival_senses(chooser: SenseChooser | None, lemma: str, upos: str, context: SenseContext,
                 settings: Settings) -> tuple[str, ...]:
    """The senses, beyond the ``settings.wordnet_senses`` chosen, that the chooser scores within
    ``settings.wsd_margin`` of the best: readings of the word it cannot rule out. A chooser without
    scores (``first``) and a margin of 0 give none."""
    if chooser is None or settings.wsd_margin <= 0 or not isinstance(chooser, ContextSense):
        return ()
    scored = chooser.scored(lemma, upos, context)
    if len(scored) <= settings.wordnet_senses:
        return ()
    best = scored[0][1]
    return tuple(synset.name() for synset, score in scored[settings.wordnet_senses:]
                 if score >= best - settings.wsd_margin)


def _context_sense(settings: Settings) -> SenseChooser:
    from engine.models.language import load_sentence_encoder

    return ContextSense(load_sentence_encoder(settings), settings)


#: Word-sense strategies by name (``context`` loads the sentence encoder once).
WSD_STRATEGIES: Registry[Callable[[Settings], SenseChooser]] = Registry("word-sense strategy (wsd)", SettingsError)
WSD_STRATEGIES.add("first", FirstSense)
WSD_STRATEGIES.add("context", _context_sense)


def build_sense_chooser(settings: Settings) -> SenseChooser:
    """The chooser ``settings.wsd`` names (see :data:`WSD_STRATEGIES`)."""
    return WSD_STRATEGIES.get(settings.wsd)(settings)


STRATEGIES = WSD_STRATEGIES.names()
