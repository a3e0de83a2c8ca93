"""WordNet substitutions (Algorithm 1: PerturbSyno, PerturbHyper, PerturbHypo, PerturbCoHyper,
PerturbAnto): replace a content word by a WordNet relative, re-inflected like the word it replaces."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import ClassVar

from engine import lexicon
from engine.edits import Edit, EditContext
from engine.inflection import inflect
from engine.lexicon import LIGHT_VERBS, NON_INTERSECTIVE
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.operators.base import TokenOperator, register_operator
from engine.parse import ParsedSentence
from engine.settings import Settings


def substitutable(tok: PolarizedToken) -> bool:
    """Whether a word may be replaced as a unit: a WordNet content word, not part of a
    compound/flat name, not a light verb or non-intersective modifier, alphabetic."""
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


def substitutions(tok: PolarizedToken, found: Sequence[lexicon.LexicalRelative]) -> Iterator[Edit]:
    """One edit per relative, inflected like the word it replaces (skipping forms it already has)."""
    t = tok.token
    for rel in found:
        form = inflect(rel.lemma, t.xpos, t.upos)
        if form is None or form.lower() == t.text.lower() or (t.lemma.islower() and not form.islower()):
            continue
        yield Edit(t.id - 1, t.id, tuple(form.split()), rel.relation, (rel.source, rel.target), rel.path)


Finder = Callable[[str, str, Settings], Sequence[lexicon.LexicalRelative]]


class WordNetSubstitution(TokenOperator):
    """Substitute a content word by the relatives :attr:`finder` returns."""

    finder: ClassVar[Finder]
    #: Alternations are not repeated on a word an earlier round alternated.
    alternation: ClassVar[bool] = False

    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterable[Edit]:
        if (not substitutable(tok) or self.alternation and tok.token.text.lower() in ctx.alternated
                or heads_listed_compound(ctx.polarized.sentence, tok, ctx.settings)):
            return ()
        return substitutions(tok, type(self).finder(tok.token.lemma, tok.token.upos, ctx.settings))


@register_operator
class PerturbSyno(WordNetSubstitution):
    name = paper_name = "PerturbSyno"
    relations = frozenset({Relation.EQUIVALENCE})
    description = "a WordNet synonym (≡)"
    finder = lexicon.synonyms


@register_operator
class PerturbHyper(WordNetSubstitution):
    name = paper_name = "PerturbHyper"
    relations = frozenset({Relation.FORWARD})
    description = "a WordNet hypernym (⊏)"
    finder = lexicon.hypernyms


@register_operator
class PerturbHypo(WordNetSubstitution):
    name = paper_name = "PerturbHypo"
    relations = frozenset({Relation.REVERSE})
    description = "a WordNet hyponym (⊐)"
    finder = lexicon.hyponyms


@register_operator
class PerturbCoHyper(WordNetSubstitution):
    name = paper_name = "PerturbCoHyper"
    relations = frozenset({Relation.ALTERNATION})
    description = "a co-hyponym sharing a direct hypernym (|)"
    finder = lexicon.co_hyponyms
    alternation = True


@register_operator
class PerturbAnto(WordNetSubstitution):
    name = paper_name = "PerturbAnto"
    relations = frozenset({Relation.ALTERNATION})
    description = "a WordNet antonym (|)"
    finder = lexicon.antonyms
    alternation = True
