"""Coordinations in a UD parse, their boolean-or-not risk, and the conjunct edits they license.

ConjNLI (Saha et al. 2020) probes inference over conjunctive sentences: removing, adding or
replacing a conjunct. Natural logic labels such edits exactly when the coordination is *boolean*
("John and Mary sing" is "John sings and Mary sings"): in an upward context removing a conjunct of
*and* gives forward entailment, (A ∧ B) ⊏ A, adding a disjunct too, A ⊏ (A ∨ B); removing a
disjunct is reverse entailment; a downward context swaps ⊏ and ⊐. *Non-boolean* uses ("John and
Mary met", "between London and Paris", "Procter and Gamble", "two and a half") license nothing:
they are flagged with the reason, and their edits are never labelled safe.

:func:`find_coordinations` reads the coordinations off the parse (a head with ``conj`` dependents
and their ``cc`` words), :func:`conjunct_edits` makes the edited sentences, detokenised, with
subject-verb agreement kept, and labels them through the coordination's context
(:func:`coordination_projection`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.lexicon.inflection import fix_article, inflect, match_case, uncapitalise
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.projectivity import IDENTITY, Projectivity, compose
from engine.natlog.relations import Relation, nli_label
from engine.natlog.triggers import ScopedTrigger, TriggerArgument
from engine.parse.sentence import ParsedSentence, Token

#: Coordinator spellings read as one of the four connectives.
COORDINATOR_FORMS = {"and": "and", "&": "and", "as well as": "and", "or": "or", "and/or": "or", "but": "but", "nor": "nor"}
#: Connectives with a boolean reading: *and* and *but* conjoin, *or* disjoins, *nor* conjoins negations.
BOOLEAN_CONNECTIVES = frozenset({"and", "or", "but", "nor"})
#: Connectives whose edits :func:`conjunct_edits` makes ("neither A nor B" needs a rewrite, not an edit).
EDITABLE = frozenset({"and", "but", "or"})
PRECONJUNCTIONS = frozenset({"either", "neither", "both"})
PAIRED_CONNECTIVE = {"either": "or", "neither": "nor", "both": "and"}

# Predicates that read a coordinated subject as one group: "John and Mary met" is not "John met".
SUBJECT_COLLECTIVE = frozenset({
    "meet", "gather", "assemble", "collide", "marry", "wed", "divorce", "date", "kiss", "hug", "embrace", "fight",
    "argue", "quarrel", "agree", "disagree", "differ", "cooperate", "collaborate", "compete", "unite", "merge",
    "reunite", "part", "intersect", "overlap", "coincide", "converge", "correspond", "share", "tie", "draw", "mix",
    "combine", "cofound", "co-found", "co-write", "split",
})
# Predicates that read a coordinated object as one group: "mix flour and water".
OBJECT_COLLECTIVE = frozenset({
    "combine", "mix", "blend", "merge", "compare", "contrast", "separate", "connect", "link", "join", "unite",
    "reconcile", "distinguish", "confuse", "match", "pair", "alternate", "divide", "balance", "mediate", "bridge",
})
# Adjectives and nouns that relate the members of a group: "similar", "friends", "the sum of A and B".
COLLECTIVE_WORDS = frozenset({
    "similar", "different", "alike", "identical", "equal", "same", "compatible", "incompatible", "parallel",
    "adjacent", "related", "married", "distinct", "opposite", "equivalent", "interchangeable", "inseparable",
    "friend", "partner", "couple", "sibling", "twin", "neighbour", "neighbor", "rival", "enemy", "ally",
    "colleague", "cousin", "duo", "pair", "relationship", "marriage", "mixture", "combination", "blend", "sum",
    "total", "ratio", "difference", "average", "intersection", "union", "border", "boundary", "distance", "rivalry",
    "alliance", "merger", "treaty", "conflict", "war", "match", "relation", "connection", "link", "contrast",
    "comparison", "similarity", "collaboration", "partnership", "brother", "sister",
})
# Modifiers that make a coordination collective: "together", "each other", "between A and B".
COLLECTIVE_MODIFIERS = frozenset({"together", "jointly", "mutually", "collectively", "apart", "alike"})
RELATING_CASES = frozenset({"between", "among", "amongst"})
RECIPROCALS = (("each", "other"), ("one", "another"))
# Coordinations that name one thing: "rock and roll" is no rock.
FIXED_PHRASES = frozenset({
    "procter and gamble", "johnson and johnson", "marks and spencer", "barnes and noble", "rock and roll",
    "rhythm and blues", "salt and pepper", "bread and butter", "black and white", "fish and chips",
    "bed and breakfast", "trial and error", "pros and cons", "ups and downs", "back and forth", "up and down",
    "law and order", "research and development", "arts and crafts", "odds and ends", "peace and quiet",
    "sweet and sour", "hide and seek", "cat and mouse", "give and take", "wear and tear", "by and large",
    "each and every", "first and foremost", "null and void", "safe and sound", "more and more", "over and over",
    "again and again", "now and then", "here and there", "bosnia and herzegovina", "trinidad and tobago",
    "antigua and barbuda", "mergers and acquisitions", "health and safety", "song and dance", "cut and paste",
    "more or less", "sooner or later", "give or take", "dead or alive", "once and for all",
})
COLOURS = frozenset({"black", "white", "red", "blue", "green", "yellow", "orange", "purple", "pink", "brown", "grey",
                     "gray", "gold", "silver"})
FRACTIONS = frozenset({"half", "quarter", "third", "fourth", "fifth"})
LARGE_NUMBERS = frozenset({"hundred", "thousand", "million", "billion"})
# "and then": the conjuncts are ordered in time, not merely conjoined.
SEQUENCE_ADVERBS = frozenset({"then", "later", "afterwards", "afterward", "subsequently", "thereafter", "eventually",
                              "finally", "next"})
# "try and win", "go and see": one event, not two.
PSEUDO_COORDINATING_VERBS = frozenset({"try", "go", "come"})
# A determiner shared by coordinated nouns that reads "and" as a union: "every dog and cat".
UNION_DETERMINERS = frozenset({"every", "each", "all", "no"})

NOMINAL = frozenset({"NOUN", "PROPN", "PRON", "NUM", "DET", "X", "SYM"})
SUBJECTS = frozenset({"nsubj", "csubj", "expl"})
# Left dependents of a coordination's head that all its conjuncts share unless each has its own:
# "John will sing and dance" (subject and auxiliary shared) vs "John sings and Mary dances".
SHAREABLE = frozenset({"nsubj", "csubj", "expl", "aux", "cop", "mark", "case", "det", "advmod", "nmod"})
SEPARATORS = frozenset({"cc", "punct"})
LIST_PUNCTUATION = frozenset({",", ";"})


@dataclass(frozen=True)
class Conjunct:
    """One conjunct: ``head_id`` its head word's UD id (1-based), ``span`` its words [start, end) (0-based)."""

    head_id: int
    span: tuple[int, int]


@dataclass(frozen=True)
class Risk:
    """Whether a coordination reads as boolean and, if not, why (``reasons``, empty when boolean)."""

    boolean: bool
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Coordination:
    """A coordination: its head (the first conjunct's head), connective and conjuncts in order.

    ``coordinator`` is the connective normalised (``and``, ``or``, ``but``, ``nor``, or the word as
    written when it is none of those), ``words`` the coordinating words as written ("either", "or");
    ``category`` is ``NP``, ``N`` (nouns modifying a noun: "temple and mandible areas"), ``PP``,
    ``VP``, ``ADJ``, ``ADV``, ``clause`` or ``other``; ``parent`` the
    head of the coordination whose conjunct holds this one (nesting), None at top level.
    ``contiguous`` is False when the parse gives a conjunct in pieces (such a coordination is never edited).
    """

    head_id: int
    coordinator: str
    words: tuple[str, ...]
    preconj_id: int | None
    cc_ids: tuple[int, ...]
    conjuncts: tuple[Conjunct, ...]
    category: str
    risk: Risk
    contiguous: bool = True
    parent: int | None = None

    @property
    def region(self) -> tuple[int, int]:
        """Words [start, end) from the preconjunction (or first conjunct) to the last conjunct."""
        start = self.conjuncts[0].span[0]
        if self.preconj_id is not None:
            start = min(start, self.preconj_id - 1)
        return start, self.conjuncts[-1].span[1]

    @property
    def token_ids(self) -> frozenset[int]:
        """UD ids of the words inside the coordination: conjuncts, coordinators and separators."""
        start, end = self.region
        return frozenset(range(start + 1, end + 1))


def _base(deprel: str) -> str:
    return deprel.split(":")[0]


def _ids(tokens: Iterable[Token]) -> set[int]:
    return {t.id for t in tokens}


def _coordinator_text(sentence: ParsedSentence, cc: Token) -> str:
    """A coordinating word with its fixed parts, lower-cased: "as well as"."""
    fixed = [t for t in sentence.children(cc.id) if t.deprel == "fixed"]
    return " ".join(t.text.lower() for t in sorted([cc, *fixed], key=lambda t: t.id))


def _own_cc(sentence: ParsedSentence, conjunct: Token) -> Token | None:
    """The coordinating word before a conjunct (its ``cc`` dependent), if any; a preposition the
    parser made ``cc`` ("instead of") is none."""
    return next((c for c in sentence.children(conjunct.id) if c.deprel == "cc" and c.id < conjunct.id
                 and (c.upos == "CCONJ" or c.text.lower() in COORDINATOR_FORMS)), None)


def _has_subject(sentence: ParsedSentence, token: Token) -> bool:
    return any(_base(c.deprel) in SUBJECTS for c in sentence.children(token.id))


def _category(sentence: ParsedSentence, head: Token, others: Sequence[Token]) -> str:
    """The coordination's category, read off its head: a conjunct with its own subject makes it a clause."""
    if any(_has_subject(sentence, k) for k in others):
        return "clause"
    if _base(head.deprel) == "compound":
        return "N"
    if head.upos in ("VERB", "AUX"):
        return "VP"
    if head.upos in NOMINAL:
        return "PP" if all(sentence.children(k.id, "case") for k in (head, *others)) else "NP"
    return {"ADJ": "ADJ", "ADV": "ADV", "ADP": "PP"}.get(head.upos, "other")


def _head_conjunct(sentence: ParsedSentence, head: Token, others: Sequence[Token], category: str) -> set[int]:
    """Words of the first conjunct: the head and its dependents before the next conjunct, minus the
    left dependents the conjuncts share (a subject, an auxiliary, a preposition none of the others
    repeats) and everything further left than a shared one ("In 2008 she | ran for parliament, but ...")."""
    first_other = min(k.id for k in others)
    other_relations = {_base(c.deprel) for k in others for c in sentence.children(k.id)}
    ids = {head.id}
    kept = [c for c in sentence.children(head.id)
            if c not in others and c.deprel != "cc:preconj" and _base(c.deprel) not in SEPARATORS]
    for child in kept:
        if head.id < child.id < first_other:
            ids |= _ids(sentence.subtree(child.id))
    for child in sorted((c for c in kept if c.id < head.id), key=lambda c: -c.id):
        if category != "clause" and _base(child.deprel) in SHAREABLE and _base(child.deprel) not in other_relations:
            break
        ids |= _ids(sentence.subtree(child.id))
    return ids


def _other_conjunct(sentence: ParsedSentence, conjunct: Token, members: Sequence[Token]) -> set[int]:
    """Words of a later conjunct: its subtree without the list members hanging from it, its leading
    coordinator and punctuation."""
    dropped = {i for m in sentence.children(conjunct.id, "conj") if m in members for i in _ids(sentence.subtree(m.id))}
    tokens = [t for t in sentence.subtree(conjunct.id) if t.id not in dropped]
    while tokens and tokens[0].id < conjunct.id and (
            _base(tokens[0].deprel) in SEPARATORS or tokens[0].deprel == "fixed" or tokens[0].upos == "PUNCT"):
        tokens = tokens[1:]
    while tokens and tokens[-1].text in LIST_PUNCTUATION | {"."} and tokens[-1].id != conjunct.id:
        tokens = tokens[:-1]
    return _ids(tokens)


def _chained(sentence: ParsedSentence, token: Token) -> bool:
    """Whether a conjunct continues its head's list: "John, Mary and Sue" is parsed as a chain
    John -> Mary -> Sue, and Mary, with no coordinating word of its own, is one more member."""
    return _base(token.deprel) == "conj" and _own_cc(sentence, token) is None


def _members(sentence: ParsedSentence, head: Token) -> list[Token]:
    """The conjuncts after ``head`` in its list, chains flattened ("A, B and C" -> B, C); a conjunct
    with its own coordinating word that hangs from another one is a nested coordination, not a member."""
    found = []
    for conjunct in sentence.children(head.id, "conj"):
        found.append(conjunct)
        if _chained(sentence, conjunct):
            found += _members(sentence, conjunct)
    return found


def _balanced(words: Sequence[str]) -> bool:
    """Whether brackets and quotes open and close within the words ("icre de fasole (roe of beans" does not)."""
    text = "".join(words)
    return text.count("(") == text.count(")") and text.count("[") == text.count("]") and text.count('"') % 2 == 0


def _span(sentence: ParsedSentence, ids: set[int]) -> tuple[tuple[int, int], bool]:
    """The 0-based word range of ``ids`` and whether they fill it (punctuation may fill gaps) with
    brackets and quotes balanced."""
    low, high = min(ids), max(ids)
    whole = all(i in ids or sentence.token(i).upos == "PUNCT" for i in range(low, high + 1))
    return (low - 1, high), whole and _balanced([t.text for t in sentence.tokens[low - 1:high]])


def _gaps_are_separators(sentence: ParsedSentence, conjuncts: Sequence[Conjunct]) -> bool:
    """Whether only commas and coordinating words stand between consecutive conjuncts (a quote or a
    bracket there belongs to a conjunct the parse cut short)."""
    for left, right in zip(conjuncts, conjuncts[1:]):
        if left.span[1] > right.span[0]:
            return False
        for index in range(left.span[1], right.span[0]):
            token = sentence.tokens[index]
            if token.text not in LIST_PUNCTUATION and _base(token.deprel) != "cc" and token.deprel != "fixed":
                return False
    return True


def _preconjunction(sentence: ParsedSentence, head: Token, start: int, coordinator: str) -> Token | None:
    """The "either" / "both" / "neither" of the coordination: the head's ``cc:preconj``, or the word
    just before the first conjunct when it pairs with the connective (the parser may call it a determiner)."""
    parsed = next((c for c in sentence.children(head.id) if c.deprel == "cc:preconj"
                   and c.text.lower() in PRECONJUNCTIONS), None)
    if parsed is not None:
        return parsed
    before = sentence.tokens[start - 1] if start > 0 else None
    if before is not None and PAIRED_CONNECTIVE.get(before.text.lower()) == coordinator:
        return before
    return None


def _coordination(sentence: ParsedSentence, head: Token) -> Coordination | None:
    """The coordination headed by ``head``, or None when it has no conjunct or no coordinating word."""
    others = _members(sentence, head)
    ccs = [cc for k in others if (cc := _own_cc(sentence, k)) is not None]
    if not others or not ccs:
        return None
    written = [_coordinator_text(sentence, cc) for cc in ccs]
    coordinator = COORDINATOR_FORMS.get(written[-1], written[-1])
    category = _category(sentence, head, others)
    spans = [_span(sentence, _head_conjunct(sentence, head, others, category))]
    spans += [_span(sentence, _other_conjunct(sentence, k, others)) for k in others]
    conjuncts = tuple(sorted((Conjunct(k.id, span) for k, (span, _) in zip((head, *others), spans)),
                             key=lambda c: c.span))
    preconj = _preconjunction(sentence, head, conjuncts[0].span[0], coordinator)
    head_span = spans[0][0]
    # A comma hanging from the head inside its own conjunct: a list the parser cut ("tall, thin and old"
    # read as "[tall, thin] and old").
    cut = any(head_span[0] < c.id <= head_span[1] for c in sentence.children(head.id, "punct"))
    contiguous = all(whole for _, whole in spans) and _gaps_are_separators(sentence, conjuncts) and not cut
    words = ((preconj.text.lower(),) if preconj is not None else ()) + tuple(dict.fromkeys(written))
    draft = Coordination(head.id, coordinator, words, preconj.id if preconj is not None else None,
                         tuple(cc.id for cc in ccs), conjuncts, category, Risk(True), contiguous)
    return dataclasses.replace(draft, risk=assess_risk(sentence, draft, written))


def _nest(found: Sequence[Coordination]) -> tuple[Coordination, ...]:
    """Each coordination with ``parent`` set to the innermost coordination one of whose conjuncts holds it."""
    out = []
    for inner in found:
        start, end = inner.region
        holders = [(c.span[1] - c.span[0], outer.head_id) for outer in found if outer is not inner
                   for c in outer.conjuncts if c.span[0] <= start and end <= c.span[1]]
        out.append(dataclasses.replace(inner, parent=min(holders)[1] if holders else None))
    return tuple(out)


def find_coordinations(sentence: ParsedSentence) -> tuple[Coordination, ...]:
    """Every coordination of the sentence (a word with ``conj`` dependents joined by a coordinating
    word), in the order of their heads, with nesting and the boolean risk."""
    found = [c for t in sentence.tokens if not _chained(sentence, t) and (c := _coordination(sentence, t)) is not None]
    return _nest(found)


# The boolean risk ---------------------------------------------------------------------------------

def _text(sentence: ParsedSentence, span: tuple[int, int]) -> str:
    tokens = sentence.tokens[span[0]:span[1]]
    return "".join(t.text + (" " if t.space_after else "") for t in tokens).strip()


def _predicate(sentence: ParsedSentence, head: Token) -> tuple[Token | None, list[Token]]:
    """The predicate that governs a coordination and the words on the way up to it ("the sum of A":
    sum), climbing from the coordination's head; None when the head is the root."""
    path: list[Token] = []
    current = head
    while current.head:
        current = sentence.token(current.head)
        path.append(current)
        if current.upos in ("VERB", "AUX", "ADJ") or sentence.children(current.id, "cop") or not current.head:
            return current, path
    return None, path


def _has_reciprocal(tokens: Sequence[Token]) -> bool:
    words = [t.text.lower() for t in tokens]
    return any(tuple(words[k:k + 2]) in RECIPROCALS for k in range(len(words) - 1))


def _collective(sentence: ParsedSentence, coordination: Coordination) -> list[str]:
    """Why the predicate or a modifier reads the conjuncts as one group (empty when nothing does)."""
    head = sentence.token(coordination.head_id)
    reasons = []
    cases = {c.lemma.lower() for k in coordination.conjuncts for c in sentence.children(k.head_id, "case")}
    if cases & RELATING_CASES:
        reasons.append(f"'{sorted(cases & RELATING_CASES)[0]} X and Y' relates the conjuncts")
    predicate, path = _predicate(sentence, head)
    role = _base(head.deprel)
    if predicate is not None:
        lemma = predicate.lemma.lower()
        if role == "nsubj" and lemma in SUBJECT_COLLECTIVE or role in ("obj", "obl") and lemma in OBJECT_COLLECTIVE:
            reasons.append(f"collective predicate '{lemma}'")
        words = sorted({t.lemma.lower() for t in path} & COLLECTIVE_WORDS)
        if words:
            reasons.append(f"'{words[0]}' relates the conjuncts")
        inside = coordination.token_ids
        around = [t for t in sentence.subtree(predicate.id) if t.id not in inside]
        modifiers = sorted({t.lemma.lower() for t in around} & COLLECTIVE_MODIFIERS)
        if modifiers:
            reasons.append(f"collective modifier '{modifiers[0]}'")
        if _has_reciprocal(around):
            reasons.append("reciprocal 'each other'")
        if (role == "nsubj" and coordination.coordinator == "and" and predicate.xpos in ("NNS", "NNPS")
                and sentence.children(predicate.id, "cop")):
            reasons.append(f"plural predicate noun '{predicate.text}' may describe the group")
    return reasons


def _fixed_or_name(sentence: ParsedSentence, coordination: Coordination, written: Sequence[str]) -> list[str]:
    """Why the coordination names one thing: a fixed phrase, '&', or proper-noun conjuncts inside a name."""
    phrase = _text(sentence, coordination.region).lower()
    if phrase in FIXED_PHRASES:
        return [f"fixed phrase '{phrase}'"]
    if "&" in written:
        return ["'&' joins a name"]
    head = sentence.token(coordination.head_id)
    proper = all(sentence.token(k.head_id).upos == "PROPN" for k in coordination.conjuncts)
    within = _base(head.deprel) in ("compound", "flat") or (
        head.head and sentence.token(head.head).upos == "PROPN" and _base(head.deprel) in ("nmod", "compound", "flat"))
    if proper and within:
        return [f"proper nouns inside a name ('{phrase}')"]
    return []


def _sequence_or_idiom(sentence: ParsedSentence, coordination: Coordination) -> list[str]:
    """Why verbal conjuncts are not two independent claims: "and then", "try and win", "respectively"."""
    reasons = []
    for conjunct in coordination.conjuncts[1:]:
        first = sentence.tokens[conjunct.span[0]]
        if first.lemma.lower() in SEQUENCE_ADVERBS:
            reasons.append(f"temporal sequence ('{coordination.words[-1]} {first.text.lower()}')")
            break
    head = sentence.token(coordination.head_id)
    if coordination.category == "VP" and head.lemma.lower() in PSEUDO_COORDINATING_VERBS and head.xpos in ("VB", "VBP"):
        reasons.append(f"pseudo-coordination ('{head.text.lower()} and ...')")
    return reasons


def _appositive_or(sentence: ParsedSentence, coordination: Coordination) -> list[str]:
    """Why "or" may give another name, not an alternative: "Motorpsycho, or Motor Psycho, is a film"."""
    if coordination.coordinator != "or" or len(coordination.conjuncts) != 2 or coordination.category != "NP":
        return []
    cc = coordination.cc_ids[-1]
    end = coordination.region[1]
    after = sentence.tokens[end].text if end < len(sentence.tokens) else ""
    if cc >= 2 and sentence.tokens[cc - 2].text == "," and after in (",", "(", ")"):
        return [f"appositive 'or' gives another name ('{_text(sentence, coordination.region)}')"]
    return []


def _numbers_and_determiners(sentence: ParsedSentence, coordination: Coordination) -> list[str]:
    """Why nominal conjuncts form one quantity or one set: "two and a half", "every dog and cat"."""
    reasons = []
    lemmas = {sentence.token(k.head_id).lemma.lower() for k in coordination.conjuncts}
    head = sentence.token(coordination.head_id)
    if lemmas & FRACTIONS and any(sentence.token(k.head_id).upos == "NUM" for k in coordination.conjuncts) \
            or head.lemma.lower() in LARGE_NUMBERS:
        reasons.append(f"a number ('{_text(sentence, coordination.region)}')")
    if coordination.category == "ADJ" and coordination.coordinator == "and" and lemmas <= COLOURS:
        reasons.append(f"colour terms describe parts ('{_text(sentence, coordination.region)}')")
    start = coordination.conjuncts[0].span[0]
    shared = [c for c in sentence.children(head.id, "det") if c.id - 1 < start]
    if coordination.coordinator == "and" and any(c.lemma.lower() in UNION_DETERMINERS for c in shared):
        reasons.append(f"one '{shared[0].text.lower()}' over the conjuncts reads 'and' as a union")
    return reasons


def assess_risk(sentence: ParsedSentence, coordination: Coordination, written: Sequence[str] = ()) -> Risk:
    """Whether the coordination is boolean, with every reason it may not be.

    The reasons (any one makes it non-boolean): a connective outside and/or/but/nor, mixed
    connectives in one flat list, a conjunct the parse gives in pieces, a collective predicate or
    modifier ("met", "together", "between", "the sum of"), a name or fixed phrase ("Procter and
    Gamble", "rock and roll"), a number ("two and a half"), colour terms, a temporal sequence
    ("and then"), a pseudo-coordination ("try and win"), "respectively", a universal or negative
    determiner shared by coordinated nouns ("every dog and cat": a union), a plural predicate noun
    after a coordinated subject ("are friends"), and an appositive "or" ("X, or Y, is ...").
    """
    written = list(written) or [coordination.coordinator]
    reasons: list[str] = []
    if coordination.coordinator not in BOOLEAN_CONNECTIVES:
        reasons.append(f"'{coordination.coordinator}' is not a boolean connective")
    if len({COORDINATOR_FORMS.get(w, w) for w in written}) > 1:
        reasons.append(f"mixed connectives ({', '.join(dict.fromkeys(written))}) in one flat list")
    if not coordination.contiguous:
        reasons.append("the parse gives a conjunct in pieces or cuts the list")
    if coordination.category not in ("VP", "clause"):
        reasons += _collective(sentence, coordination)
    reasons += _fixed_or_name(sentence, coordination, written)
    reasons += _numbers_and_determiners(sentence, coordination)
    reasons += _appositive_or(sentence, coordination)
    if coordination.category in ("VP", "clause"):
        reasons += _sequence_or_idiom(sentence, coordination)
    if any(t.lemma.lower() == "respectively" for t in sentence.tokens):
        reasons.append("'respectively' pairs the conjuncts with another list")
    return Risk(not reasons, tuple(dict.fromkeys(reasons)))


# The coordination's context -----------------------------------------------------------------------

def coordination_projection(polarized: PolarizedSentence, coordination: Coordination) -> Projectivity:
    """How a relation between two versions of the coordination projects to the sentence.

    The context is the triggers outside the coordination whose argument holds its head and every
    other conjunct ("No dog or cat", "did n't sing or dance"); a trigger inside one conjunct (its
    own determiner) or anchored at the connective (the marker's coordinated-subject trigger) is part
    of what is edited, not of the context. Outermost first, as the polarity marker orders them.
    """
    inside = coordination.token_ids
    others = [frozenset(range(k.span[0] + 1, k.span[1] + 1)) for k in coordination.conjuncts
              if k.head_id != coordination.head_id]
    context: list[tuple[ScopedTrigger, TriggerArgument]] = [
        (op, arg) for op in polarized.triggers if not op.anchors & inside for arg in op.arguments
        if coordination.head_id in arg.tokens and all(arg.tokens & other for other in others)
    ]
    if not context:
        return IDENTITY

    def outscopes(item: tuple[ScopedTrigger, TriggerArgument]) -> int:
        return sum(1 for other, _ in context if other is not item[0] and other.anchors & item[1].tokens)

    ordered = sorted(context, key=lambda item: (-outscopes(item), min(item[0].anchors, default=0)))
    return compose(arg.projectivity for _, arg in reversed(ordered))


# Conjunct edits -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Phrase:
    """A conjunct's words (with whether a space follows each), category, grammatical number
    (``Sing``, ``Plur``, or ``1`` for "I"), head's Penn tag (VP and ADJ donors must match it) and
    whether it is ``bare`` (no determiner of its own: it may follow a shared one, "a man and woman")."""

    words: tuple[str, ...]
    spaces: tuple[bool, ...]
    category: str
    number: str = "Sing"
    tag: str = ""
    bare: bool = False

    @property
    def text(self) -> str:
        return "".join(w + (" " if s else "") for w, s in zip(self.words, self.spaces)).strip()


def lexicon_phrase(text: str, category: str, number: str = "Sing", tag: str = "", bare: bool = False) -> Phrase:
    words = tuple(text.split())
    return Phrase(words, (True,) * len(words), category, number, tag, bare)


#: Same-category phrases to add or substitute when no donor sentence offers one; verb phrases are
#: lemmas, inflected to the coordination head's tag.
LEXICON: dict[str, tuple[Phrase, ...]] = {
    "NP": (lexicon_phrase("some books", "NP", "Plur", "NNS"), lexicon_phrase("the children", "NP", "Plur", "NNS"),
           lexicon_phrase("a friend", "NP", tag="NN"), lexicon_phrase("his family", "NP", tag="NN")),
    "PP": (lexicon_phrase("in the city", "PP"), lexicon_phrase("at home", "PP"), lexicon_phrase("with friends", "PP")),
    "ADJ": (lexicon_phrase("popular", "ADJ", tag="JJ"), lexicon_phrase("famous", "ADJ", tag="JJ"),
            lexicon_phrase("expensive", "ADJ", tag="JJ")),
    "ADV": (lexicon_phrase("quickly", "ADV", tag="RB"), lexicon_phrase("often", "ADV", tag="RB")),
}
VERB_LEXICON = ("travel", "sing", "write books", "play music")
MAX_DONOR_WORDS = 5

DETERMINING = frozenset({"DET", "NUM", "PRON"})
_PLURAL_PRONOUNS = frozenset({"we", "they", "you", "us", "them", "these", "those", "both"})


def _number(sentence: ParsedSentence, head: Token, siblings: frozenset[int]) -> str:
    """A conjunct's grammatical number: ``1`` for "I", ``Plur`` for plurals and a nested "A and B"
    (a conjunction of its own, not one of its ``siblings``), else ``Sing``."""
    word = head.text.lower()
    if head.upos == "PRON":
        return "1" if word == "i" else "Plur" if word in _PLURAL_PRONOUNS else "Sing"
    inner = [k for k in sentence.children(head.id, "conj") if k.id not in siblings
             and (cc := _own_cc(sentence, k)) is not None and cc.text.lower() == "and"]
    if inner or head.feats_dict.get("Number") == "Plur" or head.xpos in ("NNS", "NNPS"):
        return "Plur"
    return "Sing"


def conjunct_phrase(sentence: ParsedSentence, coordination: Coordination, conjunct: Conjunct) -> Phrase:
    """A conjunct of the sentence as a :class:`Phrase` (a sentence-initial capital undone)."""
    tokens = sentence.tokens[conjunct.span[0]:conjunct.span[1]]
    words = [t.text for t in tokens]
    if conjunct.span[0] == 0:
        words[0] = uncapitalise(words[0], tokens[0].upos)
    head = sentence.token(conjunct.head_id)
    siblings = frozenset(k.head_id for k in coordination.conjuncts)
    return Phrase(tuple(words), tuple(t.space_after for t in tokens), coordination.category,
                  _number(sentence, head, siblings), head.xpos, tokens[0].upos not in DETERMINING)


def donor_phrases(sentences: Iterable[ParsedSentence]) -> tuple[Phrase, ...]:
    """The short conjuncts (at most :data:`MAX_DONOR_WORDS` words, no punctuation) of the boolean
    coordinations of ``sentences``: phrases to add or substitute elsewhere."""
    phrases = (conjunct_phrase(s, c, k) for s in sentences for c in find_coordinations(s)
               if c.risk.boolean and c.contiguous for k in c.conjuncts)
    return tuple(p for p in phrases if len(p.words) <= MAX_DONOR_WORDS and all(any(ch.isalnum() for ch in w) for w in p.words))


@dataclass(frozen=True)
class ConjunctEdit:
    """One edit of a coordination and the label natural logic gives the pair (original, edited).

    ``kind`` is ``remove``, ``add`` or ``replace``; ``old`` the conjunct removed or replaced, ``new``
    the one added or put in; ``words``/``spaces``/``text`` the edited sentence. ``lexical`` is the
    relation original -> edited at the coordination, ``projected`` the sentence-level one through
    its context (``projection``, of polarity ``polarity``), ``label`` its NLI label. ``unsafe`` says
    why that label is not licensed (a non-boolean coordination, a non-monotone context); empty when it is.
    """

    kind: str
    coordination: Coordination
    old: str
    new: str
    words: tuple[str, ...]
    spaces: tuple[bool, ...]
    text: str
    lexical: Relation
    projection: tuple[Relation, ...]
    projected: Relation
    polarity: str
    label: str
    reasoning: str
    unsafe: tuple[str, ...] = ()

    @property
    def safe(self) -> bool:
        return not self.unsafe


EDIT_KINDS = ("remove", "add", "replace")
# Relation original -> edited at the coordination: (A ∧ B) ⊏ A, (A ∨ B) ⊐ A, A ⊐ (A ∧ B), A ⊏ (A ∨ B).
LEXICAL_RELATIONS: dict[tuple[str, str], Relation] = {
    ("remove", "and"): Relation.FORWARD, ("remove", "but"): Relation.FORWARD, ("remove", "or"): Relation.REVERSE,
    ("add", "and"): Relation.REVERSE, ("add", "or"): Relation.FORWARD,
}
_WHY = {
    ("remove", "and"): "removing a conjunct of 'and': (A ∧ B) ⊏ A",
    ("remove", "but"): "removing a conjunct of 'but' (a conjunction): (A ∧ B) ⊏ A",
    ("remove", "or"): "removing a disjunct of 'or': (A ∨ B) ⊐ A",
    ("add", "and"): "adding a conjunct to 'and': A ⊐ (A ∧ B)",
    ("add", "or"): "adding a disjunct to 'or': A ⊏ (A ∨ B)",
}


def lexical_relation(kind: str, coordinator: str) -> Relation:
    """The relation original -> edited of an edit of a boolean coordination; a replaced conjunct is
    taken as unrelated to its replacement (#)."""
    return LEXICAL_RELATIONS.get((kind, coordinator), Relation.INDEPENDENCE)


def _join(phrases: Sequence[Phrase], coordinator: str, preconj: str | None, comma: bool) -> list[tuple[str, bool]]:
    """Conjuncts joined as a list: "A and B", "A, B and C" (a comma before the connective when the
    original had one), "either A or B"; "both" only before two conjuncts, no preconjunction before one."""
    n = len(phrases)
    out: list[tuple[str, bool]] = []
    if preconj and n >= 2 and (preconj.lower() != "both" or n == 2):
        out.append((preconj, True))
    for k, phrase in enumerate(phrases):
        out += list(zip(phrase.words[:-1], phrase.spaces[:-1])) + [(phrase.words[-1], True)]
        if k < n - 1 and (k < n - 2 or comma):
            out[-1] = (out[-1][0], False)
            out.append((",", True))
        if k == n - 2:
            out.append((coordinator, True))
    return out


def _agreeing_verb(sentence: ParsedSentence, predicate: Token, after: int) -> Token | None:
    """A predicate's finite verb (its first auxiliary or copula after word ``after``, else itself)
    when it shows agreement: present tense, or was/were."""
    auxiliaries = [c for c in sentence.children(predicate.id) if _base(c.deprel) in ("aux", "cop") and c.id > after]
    verb = auxiliaries[0] if auxiliaries else predicate
    agreeing = verb.xpos in ("VBZ", "VBP") or verb.lemma.lower() == "be" and verb.xpos == "VBD"
    return verb if agreeing and verb.id > after and not verb.text.startswith("'") else None


def _finite_verbs(sentence: ParsedSentence, coordination: Coordination) -> list[Token]:
    """The verbs that agree with a coordinated subject: its predicate's, and those of the predicates
    conjoined to it that share the subject ("A and B appeared, but were not present")."""
    head = sentence.token(coordination.head_id)
    if coordination.category != "NP" or _base(head.deprel) != "nsubj" or not head.head:
        return []
    predicate = sentence.token(head.head)
    shared = [k for k in sentence.children(predicate.id, "conj") if not _has_subject(sentence, k)]
    after = coordination.region[1]
    return [v for p in (predicate, *shared) if (v := _agreeing_verb(sentence, p, after)) is not None]


_BE = {("Sing", False): "is", ("Plur", False): "are", ("1", False): "am",
       ("Sing", True): "was", ("Plur", True): "were", ("1", True): "was"}


def _agreeing_form(verb: Token, number: str) -> str | None:
    """``verb`` inflected for a subject of ``number`` (None when no form is known)."""
    if verb.lemma.lower() == "be":
        return match_case(_BE[(number, verb.xpos == "VBD")], verb.text)
    form = inflect(verb.lemma.lower(), "VBZ" if number == "Sing" else "VBP", "VERB")
    return match_case(form, verb.text) if form else None


def _subject_number(phrases: Sequence[Phrase], coordinator: str) -> str:
    """"A and B" is plural; "A or B" agrees with B, the nearer; one conjunct with itself."""
    if len(phrases) >= 2 and coordinator in ("and", "but"):
        return "Plur"
    return phrases[-1].number


def render(sentence: ParsedSentence, coordination: Coordination, phrases: Sequence[Phrase]) -> tuple[list[str], list[bool]]:
    """The sentence with the coordination's conjuncts replaced by ``phrases``: commas, connective,
    preconjunction, a/an, the capital and the agreement of a coordinated subject's verb redone."""
    tokens = sentence.tokens
    pairs = [(t.text, t.space_after) for t in tokens]
    pairs[0] = (uncapitalise(tokens[0].text, tokens[0].upos), tokens[0].space_after)
    start, end = coordination.region
    last_cc = sentence.token(coordination.cc_ids[-1])
    comma = last_cc.id >= 2 and tokens[last_cc.id - 2].text == ","
    preconj = tokens[coordination.preconj_id - 1].text if coordination.preconj_id is not None else None
    region = _join(phrases, last_cc.text, preconj, comma)
    region[-1] = (region[-1][0], tokens[end - 1].space_after)
    number = _subject_number(phrases, coordination.coordinator)
    for verb in _finite_verbs(sentence, coordination):
        form = _agreeing_form(verb, number)
        if form is not None:
            pairs[verb.id - 1] = (form, verb.space_after)
    edited = pairs[:start] + region + pairs[end:]
    words = [w for w, _ in edited]
    fix_article(words, start)
    words[0] = words[0][:1].upper() + words[0][1:]
    return words, [s for _, s in edited]


def _sentence_text(words: Sequence[str], spaces: Sequence[bool]) -> str:
    return "".join(w + (" " if s else "") for w, s in zip(words, spaces)).strip()


def _shared_determiner(sentence: ParsedSentence, coordination: Coordination) -> bool:
    """Whether the head's determiner stands before the first conjunct, over all of them ("a man and woman")."""
    start = coordination.conjuncts[0].span[0]
    return any(c.id - 1 < start for c in sentence.children(coordination.head_id, "det"))


def _fits(donor: Phrase, coordination: Coordination, head: Token, present: set[str], shared: bool) -> bool:
    """Whether a donor may join this coordination: same category, same head tag for verbs and
    adjectives, bare after a shared determiner, not a pronoun (its case would have to change), not
    already one of the conjuncts."""
    if donor.category != coordination.category or donor.text.lower() in present or shared and not donor.bare:
        return False
    if donor.category in ("VP", "clause", "ADJ", "ADV") and donor.tag != head.xpos:
        return False
    if donor.category in ("NP", "N") and donor.tag.startswith("NNP") != head.xpos.startswith("NNP"):
        return False  # names join names, common nouns common nouns
    return donor.words[0].lower() not in ("i", "me", "he", "him", "she", "her", "we", "us", "they", "them")


def verb_tag(sentence: ParsedSentence, head: Token) -> str:
    """The tag to inflect a conjoined verb to: the head's, except that a "participle" with no
    auxiliary of its own and with a subject, or conjoined to a past tense, is a past tense (VBD):
    a tagger cannot tell past "aired" from participle "aired", and "traveled and sung" would follow."""
    if head.xpos != "VBN" or any(_base(c.deprel) in ("aux", "cop") for c in sentence.children(head.id)):
        return head.xpos
    finite = (any(_base(c.deprel) == "nsubj" for c in sentence.children(head.id))
              or _base(head.deprel) == "conj" and head.head > 0 and sentence.token(head.head).xpos == "VBD")
    return "VBD" if finite else head.xpos


def _candidates(sentence: ParsedSentence, coordination: Coordination, donors: Sequence[Phrase], present: set[str],
                per_slot: int) -> list[Phrase]:
    """Up to ``per_slot`` phrases to add or substitute: fitting donors first, then the lexicon."""
    head = sentence.token(coordination.head_id)
    shared = _shared_determiner(sentence, coordination)
    found = [d for d in donors if _fits(d, coordination, head, present, shared)]
    if coordination.category == "VP" and head.xpos.startswith("VB"):
        tag = verb_tag(sentence, head)
        for lemma in VERB_LEXICON:
            verb, *rest = lemma.split()
            form = inflect(verb, tag, "VERB")
            if form:
                found.append(lexicon_phrase(" ".join([form, *rest]), "VP", tag=head.xpos))
    found += [p for p in LEXICON.get(coordination.category, ()) if _fits(p, coordination, head, present, shared)]
    unique = {p.text.lower(): p for p in reversed(found) if p.text.lower() not in present}
    return [unique[k] for k in dict.fromkeys(p.text.lower() for p in found) if k in unique][:per_slot]


def _edit(sentence: ParsedSentence, coordination: Coordination, projection: Projectivity, kind: str,
          phrases: Sequence[Phrase], old: str, new: str) -> ConjunctEdit:
    """Render one edit and label it through the coordination's context."""
    words, spaces = render(sentence, coordination, phrases)
    lexical = lexical_relation(kind, coordination.coordinator)
    projected = projection(lexical)
    polarity = projection.polarity.mark
    label = nli_label(projected).value
    why = _WHY.get((kind, coordination.coordinator), "replacing a conjunct by an unrelated phrase: #")
    reasoning = f"{why}; the coordination's context ({polarity}) projects {lexical.symbol} to {projected.symbol}: {label}"
    unsafe = list(coordination.risk.reasons)
    if lexical is not Relation.INDEPENDENCE and projected is Relation.INDEPENDENCE:
        unsafe.append("non-monotone context: the relation does not project")
    return ConjunctEdit(kind, coordination, old, new, tuple(words), tuple(spaces), _sentence_text(words, spaces),
                        lexical, projection.mapping, projected, polarity, label, reasoning, tuple(unsafe))


def coordination_edits(polarized: PolarizedSentence, coordination: Coordination, donors: Sequence[Phrase] = (),
                       kinds: Iterable[str] = EDIT_KINDS, per_slot: int = 2) -> list[ConjunctEdit]:
    """The edits of one coordination: remove each conjunct, add a phrase (to *and* / *or*), replace each
    conjunct by a phrase of its category (donors first, then :data:`LEXICON`)."""
    sentence = polarized.sentence
    if coordination.coordinator not in EDITABLE or not coordination.contiguous:
        return []
    wanted = set(kinds)
    projection = coordination_projection(polarized, coordination)
    phrases = [conjunct_phrase(sentence, coordination, k) for k in coordination.conjuncts]
    present = {p.text.lower() for p in phrases}
    out = []
    if "remove" in wanted:
        out += [_edit(sentence, coordination, projection, "remove", phrases[:k] + phrases[k + 1:], removed.text, "")
                for k, removed in enumerate(phrases)]
    fresh = _candidates(sentence, coordination, donors, present, per_slot) if wanted - {"remove"} else []
    if "add" in wanted and coordination.coordinator in ("and", "or"):
        out += [_edit(sentence, coordination, projection, "add", [*phrases, p], "", p.text) for p in fresh]
    if "replace" in wanted:
        out += [_edit(sentence, coordination, projection, "replace", phrases[:k] + [p] + phrases[k + 1:], old.text, p.text)
                for k, old in enumerate(phrases) for p in fresh]
    return out


def conjunct_edits(polarized: PolarizedSentence, donors: Sequence[Phrase] = (), kinds: Iterable[str] = EDIT_KINDS,
                   per_slot: int = 2) -> list[ConjunctEdit]:
    """Every conjunct edit of the sentence's coordinations (see :func:`coordination_edits`),
    non-boolean ones included and marked unsafe."""
    kinds = tuple(kinds)
    return [edit for c in find_coordinations(polarized.sentence)
            for edit in coordination_edits(polarized, c, donors, kinds, per_slot)]
