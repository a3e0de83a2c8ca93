"""AltLM back-ends: the words a language model proposes for a slot of H.

- :class:`MaskedLMFillIn` (``settings.alt_lm = "masked"``): one forward pass of a masked LM masks
  every slot of the sentence.
- :class:`FrequencyFillIn` (``"offline"``, the default here): frequent same-POS English words
  (wordfreq + WordNet), ranked in context by the causal LM scorer.

The AltLM operator (:mod:`engine.edits.operators.altlm`) calls :meth:`FillIn.alternatives` once per H.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import cast

import torch

from engine.core.registry import Registry
from engine.core.settings import Settings, SettingsError
from engine.edits.records import FillIn, Slot
from engine.lexicon import relatives as lexicon
from engine.lexicon.inflection import fix_article, inflect
from engine.lexicon.relatives import LIGHT_VERBS, NON_INTERSECTIVE
from engine.models.language import LoadedModel, load_masked_lm
from engine.ranking.scoring import Scorer

__all__ = ["FillIn", "FrequencyFillIn", "MaskedLMFillIn", "Slot", "build_fill_in", "frequent_lemmas"]


class MaskedLMFillIn:
    """AltLM with a masked LM: one forward pass masks every slot of the sentence."""

    def __init__(self, lm: LoadedModel, settings: Settings, pool: int = 50) -> None:
        self.lm, self.settings, self.pool = lm, settings, pool

    @torch.inference_mode()
    def alternatives(self, words: Sequence[str], slots: Sequence[Slot], k: int) -> list[list[str]]:
        tok = self.lm.tokenizer
        texts = [" ".join(tok.mask_token if i == s.index else w for i, w in enumerate(words)) for s in slots]
        batch = tok(texts, return_tensors="pt", padding=True).to(self.lm.device)
        logits = self.lm.model(**batch).logits
        out = []
        for row, slot in enumerate(slots):
            position = (batch["input_ids"][row] == tok.mask_token_id).nonzero()[0, 0]
            top = logits[row, position].float().topk(self.pool).indices.tolist()
            picked = []
            # One id in, one token out (the stub also allows a list for a list of ids).
            for word in (cast(str, tok.convert_ids_to_tokens(i)) for i in top):
                if _fits(word, slot, self.settings) and word not in picked:
                    picked.append(word)
            out.append(picked[:k])
        return out


def _fits(word: str, slot: Slot, settings: Settings) -> bool:
    """A whole alphabetic word of the slot's POS whose lemma is not related to the original."""
    if not word.isalpha() or len(word) < 3:
        return False
    reader = lexicon.wordnet(settings)
    lemma = reader.morphy(word.lower(), lexicon.WORDNET_POS[slot.upos])
    return (lemma is not None and lemma not in slot.exclude and lemma != slot.lemma.lower()
            and lexicon.plain_word(lemma, slot.upos, settings))


@lru_cache(maxsize=8)
def frequent_lemmas(upos: str, size: int, settings: Settings) -> tuple[str, ...]:
    """The ``size`` most frequent English content-word lemmas whose usual WordNet POS is ``upos``
    (and that read as plain English under ``settings``, e.g. its ``min_zipf``)."""
    from spacy.lang.en.stop_words import STOP_WORDS
    from wordfreq import top_n_list

    from engine.core.morphology import lemmas

    pos = lexicon.WORDNET_POS[upos]
    skip = STOP_WORDS | NON_INTERSECTIVE | LIGHT_VERBS
    out = []
    for word in top_n_list("en", 20000):
        if len(word) < 3 or not word.isalpha() or word in skip:
            continue
        if (lexicon.usual_pos(word, settings) == pos and lemmas(word, upos)[:1] == (word,)
                and lexicon.plain_word(word, upos, settings)):
            out.append(word)
            if len(out) == size:
                break
    return tuple(out)


class FrequencyFillIn:
    """Offline AltLM: frequent same-POS words (wordfreq + WordNet), ranked in context by a scorer."""

    def __init__(self, scorer: Scorer, settings: Settings) -> None:
        self.scorer, self.settings = scorer, settings

    def alternatives(self, words: Sequence[str], slots: Sequence[Slot], k: int) -> list[list[str]]:
        options: list[tuple[int, str, str]] = []
        for n, slot in enumerate(slots):
            pool = frequent_lemmas(slot.upos, k, self.settings)  # the k most frequent, k kept by fit
            for lemma in pool:
                form = inflect(lemma, slot.xpos, slot.upos)
                if form and lemma not in slot.exclude and lemma != slot.lemma.lower():
                    sentence = list(words)
                    sentence[slot.index] = form
                    fix_article(sentence, slot.index)
                    options.append((n, form, " ".join(sentence)))
        scores = self.scorer.score([text for _, _, text in options]) if options else []
        ranked: list[list[str]] = [[] for _ in slots]
        for (n, form, _), _score in sorted(zip(options, scores), key=lambda pair: pair[1]):
            if len(ranked[n]) < k:
                ranked[n].append(form)
        return ranked


#: AltLM fill-ins by name: ``none`` (the default: AltLM off), ``offline`` (frequency list + the
#: ranking scorer) or ``masked`` (a masked LM).
FILL_INS: Registry[Callable[[Settings, Scorer], FillIn | None]] = Registry("AltLM fill-in (alt_lm)", SettingsError)
FILL_INS.add("none", lambda settings, scorer: None)
FILL_INS.add("offline", lambda settings, scorer: FrequencyFillIn(scorer, settings))
FILL_INS.add("masked", lambda settings, scorer: MaskedLMFillIn(load_masked_lm(settings=settings), settings))


def build_fill_in(settings: Settings, scorer: Scorer) -> FillIn | None:
    """The AltLM fill-in ``settings.alt_lm`` names (see :data:`FILL_INS`)."""
    return FILL_INS.get(settings.alt_lm)(settings, scorer)
