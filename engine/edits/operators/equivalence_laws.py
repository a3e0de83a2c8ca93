"""Equivalence laws as label-preserving attack operators (the logic-equivalence probe's laws on H).

A coordination the parser finds in H (:mod:`engine.edits.conjuncts`) is read as a formula over its
conjuncts: "A and B" is P ∧ Q, "A or B" is P ∨ Q, "not A or B" (a negator right before the
coordination) is ¬(P ∨ Q) and "neither A nor B" is ¬P ∧ ¬Q. A law of
:mod:`engine.probes.equivalence` rewrites the formula, the truth table confirms the two are
equivalent, and the rewritten formula is realised back with the same conjuncts:

- **Commutation**: P ∧ Q ≡ Q ∧ P and P ∨ Q ≡ Q ∨ P ("a dog and a cat" -> "a cat and a dog");
- **DeMorgan**: ¬(P ∨ Q) ≡ ¬P ∧ ¬Q ("is not tall or thin" <-> "is neither tall nor thin").

Each edit is ≡ (equivalence), so it keeps H's relation to P: a label-preserving edit, and in every
setup a step the search can compose with others. Only boolean coordinations of two conjuncts are
rewritten (a collective predicate, a name, "between", "and then" are never touched: the risk
flags of :func:`engine.edits.conjuncts.assess_risk`), and only when the conjuncts agree on a shared
determiner (never "a man and woman" -> "woman and a man"). The law, the formulas and the truth-table
verdict are the edit's ``path``, so the trace shows the derivation like any other edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import ClassVar

from engine.core.words import NOT_PARTICLES
from engine.edits.conjuncts import Coordination, Phrase, conjunct_phrase, find_coordinations, render
from engine.edits.operators.base import SentenceOperator, register_operator
from engine.edits.operators.conjuncts import edit_window
from engine.edits.records import Edit, EditContext
from engine.lexicon.inflection import match_case
from engine.logic.formulas import And, Atom, Formula, Not, Or, equivalent, show
from engine.logic.laws import LAWS_BY_NAME
from engine.natlog.relations import Relation
from engine.parse import ParsedSentence

#: Connectives whose coordination is a boolean formula we can read and write back.
READABLE = frozenset({"and", "or"})
NEGATORS = NOT_PARTICLES  # "not" / "n't" before a coordination (engine/core/words.py)
CLITIC_NOT = frozenset({"n't"})
#: Hosts of "n't" that are no word alone ("ca n't", "wo n't", "sha n't"): their lemma is the word.
CLIPPED_HOSTS = frozenset({"ca", "wo", "sha"})
P, Q = Atom("p"), Atom("q")


def read_formula(sentence: ParsedSentence, coordination: Coordination) -> Formula | None:
    """The coordination as a formula over p, q (its two conjuncts), or None when it is not one we read."""
    if len(coordination.conjuncts) != 2 or not coordination.risk.boolean or not coordination.contiguous:
        return None
    words = tuple(w.lower() for w in coordination.words)
    if words == ("neither", "nor"):
        return And(Not(P), Not(Q))
    if coordination.coordinator not in READABLE or coordination.preconj_id is not None:
        return None
    joined = And(P, Q) if coordination.coordinator == "and" else Or(P, Q)
    start = coordination.region[0]
    if isinstance(joined, Or) and start > 0 and sentence.tokens[start - 1].text.lower() in NEGATORS:
        return Not(joined)
    return joined


#: Dependents of the last conjunct's head that may modify the whole coordination instead
#: ("singing and dancing in the street"): moving them with one conjunct could change the reading.
AMBIGUOUS_ATTACHMENT = frozenset({"obl", "advmod", "advcl", "nmod", "acl", "npadvmod"})


NOMINAL = {"NOUN": "N", "PROPN": "N", "PRON": "N"}


def _phrases(sentence: ParsedSentence, coordination: Coordination) -> dict[str, Phrase] | None:
    """The two conjuncts as phrases, or None when moving them could change what they say."""
    phrases = [conjunct_phrase(sentence, coordination, k) for k in coordination.conjuncts]
    if len({p.bare for p in phrases}) > 1:  # "a man and woman": the determiner is shared
        return None
    start = coordination.region[0]
    first = sentence.token(coordination.head_id)
    if first.deprel.split(":")[0] == "appos" or start > 0 and sentence.tokens[start - 1].text == ",":
        return None  # the last two items of a longer list the parser split ("A, B and C")
    heads = [sentence.token(k.head_id) for k in coordination.conjuncts]
    if len({NOMINAL.get(h.upos, h.upos) for h in heads}) > 1:  # a misparse joins unlike words
        return None
    last = coordination.conjuncts[-1]
    if any(child.deprel.split(":")[0] in AMBIGUOUS_ATTACHMENT for child in sentence.children(last.head_id)):
        return None
    return {"p": phrases[0], "q": phrases[1]}


def _realise(sentence: ParsedSentence, coordination: Coordination, formula: Formula,
             phrases: dict[str, Phrase]) -> tuple[list[str], list[bool]] | None:
    """H with the coordination (and a negator right before it) replaced by ``formula`` in words."""
    match formula:
        case And(Atom(a), Atom(b)) | Or(Atom(a), Atom(b)):
            connective, preconj, drop_negator = ("and" if isinstance(formula, And) else "or"), None, False
        case And(Not(Atom(a)), Not(Atom(b))):
            connective, preconj, drop_negator = "nor", "neither", True
        case Not(Or(Atom(a), Atom(b))):
            connective, preconj, drop_negator = "or", "not", False
        case _:
            return None
    ordered = [phrases[a], phrases[b]]
    words, spaces = render(sentence, coordination, ordered)
    start = coordination.region[0]
    offset = len(words) - len(sentence.tokens)
    cc_index = next(k for k in range(start, coordination.region[1] + offset)
                    if words[k].lower() in ("and", "or", "nor") and k >= start + len(ordered[0].words))
    words[cc_index] = connective
    negator_before = start > 0 and sentence.tokens[start - 1].text.lower() in NEGATORS
    preconj_at = coordination.preconj_id - 1 if coordination.preconj_id is not None else None
    if preconj_at is not None:  # "neither A nor B": the preconjunction goes or becomes "not"
        if preconj != "not":
            return None
        before = sentence.tokens[preconj_at - 1] if preconj_at > 0 else None
        if before is None or before.upos != "AUX":
            # "not" needs an auxiliary or a copula to follow: "could neither read nor write" ->
            # "could not read or write", but not "Cyrus not confirmed or denied", "presented not
            # a military or a mercantile threat", "Not the compiler or the language is required".
            return None
        words[preconj_at] = "not"
    elif preconj == "neither":
        if not (drop_negator and negator_before):
            return None
        if start > 1 and sentence.tokens[start - 2].lemma.lower() == "do":
            return None  # "does not eat or drink" -> "does neither eat nor drink" is not English
        words[start - 1] = "neither"  # "not A or B" -> "neither A nor B"
        host = sentence.tokens[start - 2] if start > 1 else None
        if host is not None and sentence.tokens[start - 1].text.lower() in CLITIC_NOT:
            # "ca n't laugh or cry" -> "can neither laugh nor cry" (not "ca neither")
            if host.text.lower() in CLIPPED_HOSTS:
                words[start - 2] = match_case(host.lemma.lower(), host.text)
            spaces[start - 2] = True
    elif preconj == "not":
        words.insert(start, "not")
        spaces.insert(start, True)
    words[0] = words[0][:1].upper() + words[0][1:]
    return words, spaces


class LawOperator(SentenceOperator):
    """Rewrite a coordination of H by the equivalence laws named in :attr:`laws`."""

    relations = frozenset({Relation.EQUIVALENCE})
    #: (law name in :data:`engine.probes.equivalence.LAWS_BY_NAME`, the rewrite applied)
    rewrites: ClassVar[tuple[tuple[str, Callable[[Formula], Formula | None]], ...]] = ()

    def sentence_edits(self, ctx: EditContext) -> Iterator[Edit]:
        sentence = ctx.polarized.sentence
        for coordination in find_coordinations(sentence):
            formula = read_formula(sentence, coordination)
            phrases = _phrases(sentence, coordination) if formula is not None else None
            if formula is None or phrases is None:
                continue
            for name, apply in self.rewrites:
                edit = law_edit(sentence, coordination, formula, phrases, name, apply)
                if edit is not None:
                    yield edit


def law_edit(sentence: ParsedSentence, coordination: Coordination, formula: Formula, phrases: dict[str, Phrase],
             law: str, apply: Callable[[Formula], Formula | None]) -> Edit | None:
    """The edit that rewrites ``formula`` by ``law``, when the law applies, the truth table proves the
    rewrite equivalent, and the result can be said with the same conjuncts; else None."""
    rewritten = apply(formula)
    if rewritten is None or rewritten == formula:
        return None
    if not equivalent(formula, rewritten):
        raise AssertionError(f"law {law} rewrote {show(formula)} to a non-equivalent {show(rewritten)}")
    realised = _realise(sentence, coordination, rewritten, phrases)
    if realised is None:
        return None
    words, spaces = realised
    start, end, new_start, new_end = edit_window(sentence, words, spaces)
    path = (f"{law}: {LAWS_BY_NAME[law].statement}",
            f"{show(formula)} ≡ {show(rewritten)} (truth table), p = '{phrases['p'].text}', q = '{phrases['q'].text}'",
            f"'{coordination.coordinator}' coordination ({coordination.category}), boolean")
    return Edit(start, end, tuple(words[new_start:new_end]), Relation.EQUIVALENCE, path=path,
                spaces=tuple(spaces[new_start:new_end]))


@register_operator
class Commutation(LawOperator):
    """Swap the two conjuncts of a boolean "and"/"or": P ∧ Q ≡ Q ∧ P, P ∨ Q ≡ Q ∨ P."""

    name = "Commutation"
    description = "swap the conjuncts of a boolean 'and'/'or' (commutative law, ≡)"
    rewrites = (("commutative_and", LAWS_BY_NAME["commutative_and"].apply),
                ("commutative_or", LAWS_BY_NAME["commutative_or"].apply))


def _de_morgan_or_reverse(f: Formula) -> Formula | None:
    """¬P ∧ ¬Q ≡ ¬(P ∨ Q): De Morgan read right to left."""
    match f:
        case And(Not(left), Not(right)):
            return Not(Or(left, right))
    return None


@register_operator
class DeMorgan(LawOperator):
    """"not A or B" <-> "neither A nor B": ¬(P ∨ Q) ≡ ¬P ∧ ¬Q (De Morgan's law, both directions)."""

    name = "DeMorgan"
    description = "'not A or B' <-> 'neither A nor B' (De Morgan's law, ≡)"
    rewrites = (("de_morgan_or", LAWS_BY_NAME["de_morgan_or"].apply), ("de_morgan_or", _de_morgan_or_reverse))
