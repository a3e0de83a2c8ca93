"""AltLM (Algorithm 1): replace a content word by a same-POS word a language model proposes in
context, unrelated to it in WordNet, as an alternation (|). The back-ends (masked LM, or the
offline frequency list ranked by the causal LM) live in :mod:`engine.ranking.fill_in`; the operator asks
the back-end about every eligible word of H in one batch."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engine.core.morphology import lemmas
from engine.edits.operators.base import EditOperator, Level, register_operator
from engine.edits.operators.wordnet import heads_listed_compound, predicative, substitutable, word_senses
from engine.edits.records import Edit, EditContext, Slot
from engine.lexicon import relatives as lexicon
from engine.lexicon.inflection import match_case
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation


def alt_lm_slots(ctx: EditContext, sites: Sequence[PolarizedToken]) -> list[tuple[PolarizedToken, Slot]]:
    """The sites where AltLM may run: substitutable predicate nouns, not alternated before, not a listed compound."""
    slots = []
    for tok in sites:
        t = tok.token
        if (substitutable(tok) and t.upos == "NOUN" and predicative(ctx.polarized.sentence, tok)
                and t.text.lower() not in ctx.alternated
                and not heads_listed_compound(ctx.polarized.sentence, tok, ctx.settings)):
            exclude = frozenset(lexicon.related_lemmas(t.lemma, t.upos, ctx.settings))
            slots.append((tok, Slot(t.id - 1, t.upos, t.xpos, t.lemma, exclude)))
    return slots


@register_operator
class AltLM(EditOperator):
    """Substitute a noun by a language-model fill-in (alternation), only where WordNet shows the two
    classes disjoint (:func:`lexicon.disjoint_words`: a dog is no car); an unrelated word alone is
    no evidence of exclusion (someone eating may be talking)."""

    name = paper_name = "AltLM"
    relations = frozenset({Relation.ALTERNATION})
    level = Level.TOKEN
    description = "a same-POS LM fill-in unrelated in WordNet (|)"
    parameters = ("alt_lm_pool", "alt_lm_top")

    def __init__(self, alt_lm_pool: int = 60, alt_lm_top: int = 5) -> None:
        #: How many fill-ins are asked per slot, and how many disjoint ones are kept.
        self.alt_lm_pool, self.alt_lm_top = alt_lm_pool, alt_lm_top

    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        if ctx.fill_in is None:
            return
        slots = alt_lm_slots(ctx, sites)
        if not slots:
            return
        # Ask for the whole pool: the disjointness evidence below keeps few, then the best alt_lm_top.
        found = ctx.fill_in.alternatives(ctx.words, [s for _, s in slots], self.alt_lm_pool)
        reader = lexicon.wordnet(ctx.settings)
        for (tok, slot), words in zip(slots, found):
            chosen = word_senses(ctx, slot.lemma, slot.upos)
            if not chosen:
                continue
            sense = reader.synset(chosen[0])
            kept = 0
            for word in words:
                lemma = lemmas(word.lower(), "NOUN")[0]  # "ways" is the plural of "way", not WordNet's slipway
                if kept < self.alt_lm_top and lexicon.disjoint_words(sense, lemma, ctx.settings):
                    kept += 1
                    yield slot.index, Edit(slot.index, slot.index + 1, (match_case(word, tok.token.text),),
                                           Relation.ALTERNATION, (sense.name(),), (sense.name(), f"≠ {lemma}"))
