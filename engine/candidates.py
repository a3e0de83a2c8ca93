"""Candidate generation (the paper's Algorithm 1): every natural-logic edit H -> H* for a setup.

For each token, the natural-logic core says which lexical relations project to one of
the setup's relations (``local_relations``); only operators producing those relations
run. Each operator is a small function yielding :class:`Edit` s; the sentence-level
relation of a candidate is the token's projection of the edit's lexical relation, so
it is exact and composes across rounds with ``join``. Sentence-level negation
("It is not true that ...") projects as itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

import torch

from engine import lexicon
from engine.inflection import (
    NEGATION_WORDS, fix_article, inflect, match_case, negate_predicate, uncapitalise,
)
from engine.models import LoadedModel, load_masked_lm
from engine.natlog.polarity import PolarizedSentence, PolarizedToken
from engine.natlog.relations import RELATION_ORDER, Relation, join
from engine.natlog.setups import Setup
from engine.parse import ParsedSentence
from engine.parse.repair import wordnet_animacy
from engine.pp_inventory import NON_INTERSECTIVE, ModifierInventory, inventory as default_inventory
from engine.scoring import Scorer, rank
from engine.settings import Settings, SettingsError, get_settings

NEGATION_PREFIXES = ("It is not true that", "It is false that")
LIGHT_VERBS = frozenset({"be", "have", "do", "get"})
_DELETABLE = ("amod", "advmod", "nmod", "obl", "acl", "compound")


@dataclass(frozen=True)
class Candidate:
    """One edited hypothesis H* with the derivation that justifies its relation to H.

    ``span`` is the [start, end) word range replaced in H (0-based), ``new_span`` the
    range of the new words in H*; ``relation`` is the sentence-level relation H -> H*,
    ``lexical_relation`` projected through the context of H's word ``site`` (None for
    sentence-level negations, which project as themselves).
    """

    text: str
    words: tuple[str, ...]
    operator: str
    span: tuple[int, int]
    new_span: tuple[int, int]
    old: str
    new: str
    lexical_relation: Relation
    relation: Relation
    setup: str
    synsets: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    site: int | None = None
    also: tuple[str, ...] = ()
    score: float | None = None

    @property
    def edit_kind(self) -> str:
        """``insertion``, ``deletion`` or ``substitution``."""
        if not self.old:
            return "insertion"
        return "deletion" if not self.new else "substitution"

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text, "words": list(self.words), "operator": self.operator,
            "also": list(self.also), "edit": self.edit_kind, "span": list(self.span),
            "new_span": list(self.new_span), "old": self.old, "new": self.new,
            "lexical_relation": self.lexical_relation.symbol, "relation": self.relation.symbol,
            "setup": self.setup, "site": self.site, "synsets": list(self.synsets), "path": list(self.path),
            "score": self.score,
        }


@dataclass(frozen=True)
class Edit:
    """Replace words [start, end) of H by ``words``; ``relation`` holds between old and new.

    ``spaces`` says whether a space follows each new word; by default every new word but the
    last is followed by one, and the last keeps the spacing of the span it replaces.
    """

    start: int
    end: int
    words: tuple[str, ...]
    relation: Relation
    synsets: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    spaces: tuple[bool, ...] | None = None


@dataclass(frozen=True)
class Slot:
    """A word AltLM may replace, with the lemmas its replacement must avoid."""

    index: int
    upos: str
    xpos: str
    lemma: str
    exclude: frozenset[str]


class FillIn(Protocol):
    """Proposes same-POS replacement words for slots of a sentence (AltLM)."""

    def alternatives(self, words: Sequence[str], slots: Sequence[Slot], k: int) -> list[list[str]]: ...


@dataclass(frozen=True)
class Context:
    """What the operators see: the polarized H, its words and the generation resources."""

    polarized: PolarizedSentence
    settings: Settings
    inventory: ModifierInventory
    alternated: frozenset[str] = frozenset()
    fill_ins: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(t.text for t in self.polarized.sentence.tokens)


Operator = Callable[[Context, PolarizedToken], Iterator[Edit]]


def _substitutable(tok: PolarizedToken) -> bool:
    t = tok.token
    return (
        t.upos in lexicon.WORDNET_POS
        and t.deprel not in ("compound", "flat", "fixed", "goeswith")
        and t.lemma.lower() not in NON_INTERSECTIVE | LIGHT_VERBS
        and t.text.replace("-", "").isalpha()
    )


def compound_status(sentence: ParsedSentence, head_id: int, first_id: int, settings: Settings) -> bool | None:
    """For the noun compound spanning words ``first_id``..``head_id`` ("Christmas tree"): None when
    WordNet does not list it, else whether WordNet makes it a kind of its head (see
    :func:`lexicon.compound_kind_of`)."""
    head = sentence.token(head_id)
    phrase = " ".join([*(sentence.token(j).text for j in range(first_id, head_id)), head.lemma])
    return lexicon.compound_kind_of(phrase, head.lemma, settings)


def heads_listed_compound(sentence: ParsedSentence, tok: PolarizedToken, settings: Settings) -> bool:
    """Whether the token is the head of a noun compound WordNet lists as one word ("Christmas tree",
    "ice cream"): such a unit is not substituted word by word."""
    t = tok.token
    modifiers = [c.id for c in sentence.children(t.id, "compound") if c.id < t.id]
    if t.upos != "NOUN" or not modifiers or max(modifiers) != t.id - 1:
        return False
    return compound_status(sentence, t.id, min(modifiers), settings) is not None


def _substitutions(ctx: Context, tok: PolarizedToken, found: Sequence[lexicon.LexicalRelative]) -> Iterator[Edit]:
    t = tok.token
    for rel in found:
        form = inflect(rel.lemma, t.xpos, t.upos)
        if form is None or form.lower() == t.text.lower() or (t.lemma.islower() and not form.islower()):
            continue
        yield Edit(t.id - 1, t.id, tuple(form.split()), rel.relation, (rel.source, rel.target), rel.path)


def _lexical(finder: Callable[..., Sequence[lexicon.LexicalRelative]], alternation: bool = False) -> Operator:
    def operator(ctx: Context, tok: PolarizedToken) -> Iterator[Edit]:
        if (not _substitutable(tok) or alternation and tok.token.text.lower() in ctx.alternated
                or heads_listed_compound(ctx.polarized.sentence, tok, ctx.settings)):
            return iter(())
        return _substitutions(ctx, tok, finder(tok.token.lemma, tok.token.upos, ctx.settings))

    operator.__doc__ = f"Substitute the token by its WordNet {finder.__name__}."
    return operator


perturb_syno = _lexical(lexicon.synonyms)
perturb_hyper = _lexical(lexicon.hypernyms)
perturb_hypo = _lexical(lexicon.hyponyms)
perturb_cohyper = _lexical(lexicon.co_hyponyms, alternation=True)
perturb_anto = _lexical(lexicon.antonyms, alternation=True)


def alt_lm(ctx: Context, tok: PolarizedToken) -> Iterator[Edit]:
    """Substitute a content word by a same-POS language-model fill-in (alternation)."""
    i = tok.token.id - 1
    for word in ctx.fill_ins.get(tok.token.id, ()):
        yield Edit(i, i + 1, (match_case(word, tok.token.text),), Relation.ALTERNATION)


def _deletable(ctx: Context, child_id: int) -> list[int] | None:
    """Word indexes of the modifier constituent headed by ``child_id``, if it may be deleted."""
    sentence = ctx.polarized.sentence
    child = sentence.token(child_id)
    base = child.deprel.split(":")[0]
    if base not in _DELETABLE or child.lemma.lower() in NON_INTERSECTIVE:
        return None
    if base == "amod" and child.upos != "ADJ" or base == "advmod" and child.upos != "ADV":
        return None
    if base == "compound" and (
        child.upos != "NOUN" or sentence.token(child.head).upos != "NOUN"
        # "ice cream" is no cream: drop a listed compound's modifier only if WordNet says it is a kind of its head.
        or child.id < child.head and compound_status(sentence, child.head, child.id, ctx.settings) is False
    ):
        return None
    if base in ("nmod", "obl") and not sentence.children(child_id, "case"):
        return None
    ids = [t.id for t in sentence.subtree(child_id)]
    if ids[-1] - ids[0] != len(ids) - 1:
        return None
    if any(sentence.token(j).lemma.lower() in NEGATION_WORDS for j in ids):
        return None
    return [j - 1 for j in ids]


def deletion(ctx: Context, tok: PolarizedToken) -> Iterator[Edit]:
    """Delete an adjective, adverb, PP, relative clause or noun compound modifying the token (forward)."""
    for child in ctx.polarized.sentence.children(tok.token.id):
        span = _deletable(ctx, child.id)
        if span:
            yield Edit(span[0], span[-1] + 1, (), Relation.FORWARD)


def _after(ctx: Context, head_id: int) -> int:
    """Word index right after a verb, or after its object when it has one."""
    sentence = ctx.polarized.sentence
    objects = sentence.children(head_id, "obj") + sentence.children(head_id, "iobj")
    if not objects:
        return head_id
    return max(t.id for t in sentence.subtree(objects[-1].id))


def _has_modifier(sentence: ParsedSentence, head_id: int, kind: str) -> bool:
    """Whether the head already has an adjective (``amod``), a non-negating adverb (``advmod``),
    or a PP (``nmod`` / ``obl`` with a preposition)."""
    for child in sentence.children(head_id):
        base = child.deprel.split(":")[0]
        if kind == "amod" and base == "amod":
            return True
        if kind == "advmod" and base == "advmod" and child.upos == "ADV" and child.lemma.lower() not in NEGATION_WORDS:
            return True
        if kind in ("nmod", "obl") and base == kind and sentence.children(child.id, "case"):
            return True
    return False


def insertion(ctx: Context, tok: PolarizedToken) -> Iterator[Edit]:
    """Insert an adjective before a noun, an adverb or PP after a verb, a PP after a noun (reverse).

    A head takes at most one modifier of each kind: nothing is inserted where one is present, so
    rounds cannot stack them ("young black happy white pants", "slowly rapidly"). Noun modifiers
    must fit the noun's animacy ("in a red shirt" goes on people and animals only).
    """
    t, n = tok.token, ctx.settings.insertions_per_slot
    text = " ".join(ctx.words).lower()
    sentence = ctx.polarized.sentence
    inserts: list[tuple[int, str]] = []
    if t.upos == "NOUN" and t.deprel not in ("compound", "flat"):
        host = "animate" if wordnet_animacy(lexicon.wordnet(ctx.settings))(t) else "inanimate"
        if not _has_modifier(sentence, t.id, "amod"):
            left = [c.id for c in sentence.children(t.id, "compound") if c.id < t.id]
            before = min(left, default=t.id) - 1
            inserts += [(before, adjective) for adjective in ctx.inventory.top("adjectives", n, host)]
        if not _has_modifier(sentence, t.id, "nmod"):
            inserts += [(t.id, pp) for pp in ctx.inventory.top("noun_pps", n, host)]
    elif t.upos == "VERB" and t.lemma.lower() not in LIGHT_VERBS:
        where = _after(ctx, t.id)
        if not _has_modifier(sentence, t.id, "advmod"):
            inserts += [(where, adverb) for adverb in ctx.inventory.top("adverbs", n)]
        if not _has_modifier(sentence, t.id, "obl"):
            inserts += [(where, pp) for pp in ctx.inventory.top("verb_pps", n)]
    for where, phrase in inserts:
        if f" {phrase} " not in f" {text} ":
            yield Edit(where, where, tuple(phrase.split()), Relation.REVERSE)


def add_neg(ctx: Context, tok: PolarizedToken) -> Iterator[Edit]:
    """Negate the main predicate ("runs" -> "does not run"), projected through its context."""
    if tok.token.head != 0:
        return
    negated = negate_predicate(ctx.polarized.sentence, tok.token.id)
    if negated is not None:
        index, words = negated
        yield Edit(index, index + 1, words, Relation.NEGATION)


# Algorithm 1: the operators that realise each lexical relation, in the paper's order.
OPERATORS: dict[Relation, tuple[tuple[str, Operator], ...]] = {
    Relation.EQUIVALENCE: (("PerturbSyno", perturb_syno),),
    Relation.FORWARD: (("PerturbHyper", perturb_hyper), ("Deletion", deletion)),
    Relation.REVERSE: (("PerturbHypo", perturb_hypo), ("Insertion", insertion)),
    Relation.ALTERNATION: (("PerturbCoHyper", perturb_cohyper), ("PerturbAnto", perturb_anto), ("AltLM", alt_lm)),
    Relation.NEGATION: (("AddNeg", add_neg),),
}


def _prefixed(ctx: Context, prefix: str, upto: int, replacement: tuple[str, ...], relation: Relation) -> Edit:
    """Put a negation prefix before H and replace word ``upto - 1`` by ``replacement``; the words
    before it are carried over with their own spacing ("foster-child" stays one word)."""
    tokens = ctx.polarized.sentence.tokens
    head = prefix.split()
    tail = [t.text for t in tokens[: upto - 1]] + list(replacement)
    tail[0] = uncapitalise(tail[0], tokens[0].upos)
    spaces = ([True] * len(head) + [t.space_after for t in tokens[: upto - 1]]
              + [True] * (len(replacement) - 1) + [tokens[upto - 1].space_after])
    return Edit(0, upto, (*head, *tail), relation, spaces=tuple(spaces))


def sentence_negations(ctx: Context) -> Iterator[tuple[str, Edit, Relation]]:
    """AddNeg with a sentence prefix (^) and DoubleNegation (prefix + predicate negation).

    The double negation's relation is join(projected predicate negation, ^), kept only
    when that join is a single relation.
    """
    for prefix in NEGATION_PREFIXES:
        yield "AddNeg", Edit(0, 0, tuple(prefix.split()), Relation.NEGATION), Relation.NEGATION
    root = ctx.polarized.sentence.root
    negated = negate_predicate(ctx.polarized.sentence, root.id) if root is not None else None
    if negated is None:
        return
    index, replacement = negated
    inner = ctx.polarized.token(root.id).projection[RELATION_ORDER.index(Relation.NEGATION)]
    joined = join(inner, Relation.NEGATION)
    if len(joined) == 1:
        (relation,) = joined
        for prefix in NEGATION_PREFIXES:
            edit = _prefixed(ctx, prefix, index + 1, replacement, relation)
            yield "DoubleNegation", edit, relation


def apply_edit(ctx: Context, edit: Edit) -> tuple[tuple[str, ...], str, tuple[int, int]]:
    """H* words, text and the new words' span after an edit (spacing, capitals, a/an fixed)."""
    tokens = ctx.polarized.sentence.tokens
    words = [t.text for t in tokens]
    flags = [t.space_after for t in tokens]
    words[0] = uncapitalise(words[0], tokens[0].upos)
    new_flags = [True] * len(edit.words)
    if edit.end > edit.start:
        if edit.words:
            new_flags[-1] = flags[edit.end - 1]
        elif edit.start > 0:
            flags[edit.start - 1] = flags[edit.end - 1]
    elif edit.start > 0:
        new_flags[-1], flags[edit.start - 1] = flags[edit.start - 1], True
    if edit.spaces is not None:
        new_flags = list(edit.spaces)
    words = words[: edit.start] + list(edit.words) + words[edit.end:]
    flags = flags[: edit.start] + new_flags + flags[edit.end:]
    new_span = (edit.start, edit.start + len(edit.words))
    fix_article(words, edit.start)
    if words:
        words[0] = words[0][:1].upper() + words[0][1:]
    text = "".join(w + (" " if f else "") for w, f in zip(words, flags)).strip()
    return tuple(words), text, new_span


def _candidate(
    ctx: Context, setup: Setup, name: str, edit: Edit, relation: Relation, site: int | None = None
) -> Candidate:
    words, text, new_span = apply_edit(ctx, edit)
    return Candidate(
        text=text, words=words, operator=name, span=(edit.start, edit.end), new_span=new_span,
        old=" ".join(ctx.words[edit.start:edit.end]), new=" ".join(words[new_span[0]:new_span[1]]),
        lexical_relation=edit.relation, relation=relation, setup=setup.name,
        synsets=edit.synsets, path=edit.path, site=site,
    )


def merge_duplicates(candidates: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per text: the first derivation, naming the other operators in ``also``."""
    merged: dict[str, Candidate] = {}
    for c in candidates:
        first = merged.get(c.text)
        if first is None:
            merged[c.text] = c
        elif c.operator != first.operator and c.operator not in first.also:
            merged[c.text] = dataclasses.replace(first, also=(*first.also, c.operator))
    return list(merged.values())


def alt_lm_slots(
    polarized: PolarizedSentence, setup: Setup, settings: Settings, alternated: Collection[str]
) -> list[Slot]:
    """The tokens where AltLM may run: substitutable, alternation allowed, not alternated before."""
    slots = []
    for tok in polarized.tokens:
        t = tok.token
        if (_substitutable(tok) and t.text.lower() not in alternated
                and not heads_listed_compound(polarized.sentence, tok, settings)
                and Relation.ALTERNATION in polarized.local_relations(t.id, setup.relations)):
            exclude = frozenset(lexicon.related_lemmas(t.lemma, t.upos, settings))
            slots.append(Slot(t.id - 1, t.upos, t.xpos, t.lemma, exclude))
    return slots


def generate_candidates(
    polarized: PolarizedSentence,
    setup: Setup,
    *,
    settings: Settings | None = None,
    inventory: ModifierInventory | None = None,
    fill_in: FillIn | None = None,
    alternated: Collection[str] = (),
) -> list[Candidate]:
    """Every candidate H* whose relation to H is one of ``setup.relations``, duplicates merged.

    ``fill_in`` enables AltLM; ``alternated`` lists the words (or ``Candidate.new`` phrases)
    that alternations introduced in earlier rounds, which are not alternated again.
    """
    settings = settings or get_settings()
    done = frozenset(w.lower() for phrase in alternated for w in phrase.split())
    ctx = Context(polarized, settings, inventory or default_inventory(settings), done)
    if fill_in is not None:
        slots = alt_lm_slots(polarized, setup, settings, done)
        found = fill_in.alternatives(ctx.words, slots, settings.alt_lm_top) if slots else []
        fill_ins = {s.index + 1: tuple(f) for s, f in zip(slots, found)}
        ctx = Context(ctx.polarized, settings, ctx.inventory, done, fill_ins)
    out: list[Candidate] = []
    for tok in polarized.tokens:
        if tok.token.upos == "PUNCT":
            continue
        allowed = polarized.local_relations(tok.token.id, setup.relations)
        for lexical in RELATION_ORDER:
            if lexical not in allowed:
                continue
            projected = tok.projection[RELATION_ORDER.index(lexical)]
            for name, operator in OPERATORS.get(lexical, ()):
                edits = (e for e in operator(ctx, tok) if e.relation == lexical)
                out.extend(_candidate(ctx, setup, name, e, projected, tok.token.id - 1) for e in edits)
    out.extend(
        _candidate(ctx, setup, name, edit, relation)
        for name, edit, relation in sentence_negations(ctx)
        if relation in setup.relations
    )
    return merge_duplicates(out)



def ranked_candidates(
    polarized: PolarizedSentence,
    setups: Sequence[Setup],
    scorer: Scorer,
    *,
    settings: Settings | None = None,
    fill_in: FillIn | None = None,
    top_k: int | None = None,
) -> list[Candidate]:
    """Generate and rank each setup's candidates, keeping the best ``top_k`` (default ``settings.top_k``) per setup."""
    settings = settings or get_settings()
    ranked: list[Candidate] = []
    for setup in setups:
        found = generate_candidates(polarized, setup, settings=settings, fill_in=fill_in)
        ranked.extend(rank(found, scorer, top_k or settings.top_k))
    return ranked

class MaskedLMFillIn:
    """AltLM with a masked LM: one forward pass masks every slot of the sentence."""

    def __init__(self, lm: LoadedModel, settings: Settings | None = None, pool: int = 50) -> None:
        self.lm, self.settings, self.pool = lm, settings or get_settings(), pool

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
            for word in (tok.convert_ids_to_tokens(i) for i in top):
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
def frequent_lemmas(upos: str, size: int, nltk_data: str) -> tuple[str, ...]:
    """The ``size`` most frequent English content-word lemmas whose usual WordNet POS is ``upos``."""
    from lemminflect import getLemma
    from spacy.lang.en.stop_words import STOP_WORDS
    from wordfreq import top_n_list

    settings = get_settings().with_overrides(nltk_data=nltk_data)
    pos = lexicon.WORDNET_POS[upos]
    skip = STOP_WORDS | NON_INTERSECTIVE | LIGHT_VERBS
    out = []
    for word in top_n_list("en", 20000):
        if len(word) < 3 or not word.isalpha() or word in skip:
            continue
        if (lexicon.usual_pos(word, settings) == pos and getLemma(word, upos=upos)[:1] == (word,)
                and lexicon.plain_word(word, upos, settings)):
            out.append(word)
            if len(out) == size:
                break
    return tuple(out)


class FrequencyFillIn:
    """Offline AltLM: frequent same-POS words (wordfreq + WordNet), ranked in context by a scorer."""

    def __init__(self, scorer: Scorer, settings: Settings | None = None) -> None:
        self.scorer, self.settings = scorer, settings or get_settings()

    def alternatives(self, words: Sequence[str], slots: Sequence[Slot], k: int) -> list[list[str]]:
        options: list[tuple[int, str, str]] = []
        for n, slot in enumerate(slots):
            pool = frequent_lemmas(slot.upos, self.settings.alt_lm_pool, str(self.settings.nltk_data))
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


def build_fill_in(settings: Settings, scorer: Scorer) -> FillIn:
    """The AltLM fill-in ``settings.alt_lm`` names: ``offline`` (frequency list + scorer) or ``masked``."""
    if settings.alt_lm == "offline":
        return FrequencyFillIn(scorer, settings)
    if settings.alt_lm == "masked":
        return MaskedLMFillIn(load_masked_lm(settings=settings), settings)
    raise SettingsError(f"alt_lm {settings.alt_lm!r} is not one of offline, masked")
