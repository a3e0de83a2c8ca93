"""Where a recipe becomes an attack: :func:`build` is the one place that turns an
:class:`~engine.attack.recipe.AttackRecipe` (a description) into an :class:`Attack` (built parts).

An :class:`Attack` is TextAttack's ``Attack(goal, constraints, transformation, search)`` for natural
logic: the edit operators (in the recipe's order, with their parameters), the constraint chain, the
:class:`Ranker` (the fluency scorer, the perplexity scorer and the validity gate with its order),
the AltLM fill-in, the word-sense chooser, and the recipe itself with its search, lexicon and
conventions sections. Every stage of a round and of the search reads what it needs from it, so a
recipe is resolved once per run, not once per pair or round.

:class:`Resources` is what an attack is built *from* besides its recipe: the edges of the
configuration (paths, models, device, precision, threads). Models load once per process
(their loaders are cached), so building another attack from the same resources (another recipe,
AltLM switched on) is cheap.

In: a recipe and resources. Out: an :class:`Attack`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from engine.attack.recipe import SECTIONS, AttackRecipe
from engine.constraints.chain import ConstraintChain
from engine.core.errors import InputError
from engine.core.settings import ConventionsSection, LexiconSection, RankingSection, SearchSection, Settings
from engine.edits.candidates import generate_candidates
from engine.edits.operators import EditOperator
from engine.edits.records import Candidate, FillIn
from engine.lexicon.senses import SenseChooser, build_sense_chooser
from engine.ranking.fill_in import build_fill_in
from engine.ranking.scoring import CausalLMScorer, Scorer, build_scorer
from engine.validity.estimate import ValidityGate

if TYPE_CHECKING:
    from engine.natlog.polarity import Conventions

#: The candidate generator a round runs (:func:`engine.edits.candidates.generate_candidates`; a test
#: may build an attack with another).
Generator = Callable[..., list[Candidate]]

__all__ = ["Attack", "Generator", "Ranker", "Resources", "build"]


@dataclass(frozen=True)
class Resources:
    """The edges of the configuration an attack is built under: where files and models live, the
    device, precision and threads (``settings``; its recipe sections are not read: the recipe's
    are). Frozen and hashable, so built attacks are cached per (recipe, resources)."""

    settings: Settings

    @classmethod
    def of(cls, settings: Settings) -> Resources:
        return cls(settings)


@dataclass(frozen=True)
class Ranker:
    """How a round orders its candidates: ``scorer`` ranks by fluency (the recipe's scorer and
    precision), ``perplexity`` reports H*'s causal-LM perplexity (float32, whatever the ranking's
    precision), and ``gate`` estimates, gates and orders (None: fluency alone)."""

    scorer: Scorer
    perplexity: Scorer
    gate: ValidityGate | None

    @property
    def natural_floor(self) -> float:
        return self.gate.natural_floor if self.gate is not None else 0.0


@dataclass(frozen=True)
class Attack:
    """A whole attack, built: what :func:`build` makes of a recipe. ``settings`` is the one view the
    stages below read (the resources' edges with the recipe's sections), made by :func:`build` only."""

    recipe: AttackRecipe
    resources: Resources
    settings: Settings
    operators: tuple[EditOperator, ...]
    chain: ConstraintChain
    ranker: Ranker
    fill_in: FillIn | None
    senses: SenseChooser | None
    generate: Generator = generate_candidates

    @property
    def search(self) -> SearchSection:
        return self.recipe.search

    @property
    def ranking(self) -> RankingSection:
        return self.recipe.ranking

    @property
    def lexicon(self) -> LexiconSection:
        return self.recipe.lexicon

    @property
    def conventions(self) -> ConventionsSection:
        return self.recipe.conventions

    @property
    def reading(self) -> Conventions:
        """The natural-logic conventions polarization reads (the recipe's readings)."""
        from engine.natlog.polarity import Conventions

        return Conventions.of(self.settings)

    def with_recipe(self, recipe: AttackRecipe) -> Attack:
        """The attack ``recipe`` describes, built from the same resources (cheap: models are loaded)."""
        return self if recipe == self.recipe else dataclasses.replace(build(recipe, self.resources),
                                                                     generate=self.generate)

    def warm(self, hypotheses: Sequence[str]) -> None:
        """Score the hypotheses of pairs about to be attacked under the float32 LM, in one batch.
        Each attack's validity features read its H's float32 perplexity; scored alone, that is one
        forward pass of one sentence (about 0.1 s on 2 cores, against 0.02 s a sentence batched).
        Without a validity gate nothing reads it, and nothing is scored. Texts the search would
        refuse are left out (the search reports them)."""
        if self.ranker.gate is None:
            return
        from engine.parse import validate_text

        texts = []
        for h in hypotheses:
            try:
                texts.append(validate_text(h, self.search.max_chars))
            except InputError:
                continue
        self.ranker.perplexity.score(texts)

    def for_data(self, data: Path, fmt: str) -> Attack:
        """The attack for pairs of ``data``: the recipe's ``indefinite_reading = auto`` resolved by
        the file's format (:meth:`AttackRecipe.for_data`)."""
        return self.with_recipe(self.recipe.for_data(data, fmt))


def stage_settings(recipe: AttackRecipe, resources: Resources) -> Settings:
    """The settings the stages read under ``recipe``: the resources' edges with the recipe's four
    sections, and the operators it leaves out as ``disabled_operators``."""
    from engine.edits.operators import operator_names

    values: dict[str, object] = {}
    for key in SECTIONS:
        values.update(dataclasses.asdict(getattr(recipe, key)))
    on = {s.name for s in recipe.operators}
    values["disabled_operators"] = ",".join(n for n in operator_names() if n not in on) or "none"
    return resources.settings.with_overrides(**values)


@lru_cache(maxsize=16)
def build(recipe: AttackRecipe, resources: Resources) -> Attack:
    """The attack ``recipe`` describes, built under ``resources``: its operators and constraint
    chain (each with the recipe's parameters), the scorers its ranking section names, the AltLM
    fill-in (None when ``alt_lm = none``), the sense chooser of its lexicon section and the
    validity gate of its search section (over the float32 causal LM and the sentence encoder).

    The parser and WordNet load here too, so that a first attack (or the stepper's first step)
    does not pay for them: every attack parses H and reads WordNet."""
    from engine.core.wordnet import wordnet
    from engine.models.language import load_sentence_encoder
    from engine.parse import configured_parser

    settings = stage_settings(recipe, resources)
    configured_parser(settings)
    wordnet(settings)
    scorer = build_scorer(settings)
    perplexity = build_scorer(settings, "causal", dtype="float32")
    assert isinstance(perplexity, CausalLMScorer)
    gate = ValidityGate.build(settings, perplexity, load_sentence_encoder(settings))
    return Attack(
        recipe=recipe, resources=resources, settings=settings,
        operators=recipe.build_operators(), chain=recipe.build_chain(),
        ranker=Ranker(scorer, perplexity, gate), fill_in=build_fill_in(settings, scorer),
        senses=build_sense_chooser(settings),
    )
