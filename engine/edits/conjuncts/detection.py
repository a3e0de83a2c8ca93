"""Coordinations in a UD parse and their boolean-or-not risk.

:func:`find_coordinations` reads the coordinations off the parse (a head with ``conj`` dependents
and their ``cc`` words); :func:`assess_risk` says whether one may be read as boolean, with the
reasons it may not ("John and Mary met", "between London and Paris", "Procter and Gamble").

In: a parsed sentence. Out: :class:`Coordination` records and their :class:`Risk`.
"""


from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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


def deprel_base(deprel: str) -> str:
    return deprel.split(":")[0]


def _ids(tokens: Iterable[Token]) -> set[int]:
    return {t.id for t in tokens}


def _coordinator_text(sentence: ParsedSentence, cc: Token) -> str:
    """A coordinating word with its fixed parts, lower-cased: "as well as"."""
    fixed = [t for t in sentence.children(cc.id) if t.deprel == "fixed"]
    return " ".join(t.text.lower() for t in sorted([cc, *fixed], key=lambda t: t.id))


def own_cc(sentence: ParsedSentence, conjunct: Token) -> Token | None:
    """The coordinating word before a conjunct (its ``cc`` dependent), if any; a preposition the
    parser made ``cc`` ("instead of") is none."""
    return next((c for c in sentence.children(conjunct.id) if c.deprel == "cc" and c.id < conjunct.id
                 and (c.upos == "CCONJ" or c.text.lower() in COORDINATOR_FORMS)), None)


def has_subject(sentence: ParsedSentence, token: Token) -> bool:
    return any(deprel_base(c.deprel) in SUBJECTS for c in sentence.children(token.id))


def _category(sentence: ParsedSentence, head: Token, others: Sequence[Token]) -> str:
    """The coordination's category, read off its head: a conjunct with its own subject makes it a clause."""
    if any(has_subject(sentence, k) for k in others):
        return "clause"
    if deprel_base(head.deprel) == "compound":
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
    other_relations = {deprel_base(c.deprel) for k in others for c in sentence.children(k.id)}
    ids = {head.id}
    kept = [c for c in sentence.children(head.id)
            if c not in others and c.deprel != "cc:preconj" and deprel_base(c.deprel) not in SEPARATORS]
    for child in kept:
        if head.id < child.id < first_other:
            ids |= _ids(sentence.subtree(child.id))
    for child in sorted((c for c in kept if c.id < head.id), key=lambda c: -c.id):
        if category != "clause" and deprel_base(child.deprel) in SHAREABLE and deprel_base(child.deprel) not in other_relations:
            break
        ids |= _ids(sentence.subtree(child.id))
    return ids


def _other_conjunct(sentence: ParsedSentence, conjunct: Token, members: Sequence[Token]) -> set[int]:
    """Words of a later conjunct: its subtree without the list members hanging from it, its leading
    coordinator and punctuation."""
    dropped = {i for m in sentence.children(conjunct.id, "conj") if m in members for i in _ids(sentence.subtree(m.id))}
    tokens = [t for t in sentence.subtree(conjunct.id) if t.id not in dropped]
    while tokens and tokens[0].id < conjunct.id and (
            deprel_base(tokens[0].deprel) in SEPARATORS or tokens[0].deprel == "fixed" or tokens[0].upos == "PUNCT"):
        tokens = tokens[1:]
    while tokens and tokens[-1].text in LIST_PUNCTUATION | {"."} and tokens[-1].id != conjunct.id:
        tokens = tokens[:-1]
    return _ids(tokens)


def _chained(sentence: ParsedSentence, token: Token) -> bool:
    """Whether a conjunct continues its head's list: "John, Mary and Sue" is parsed as a chain
    John -> Mary -> Sue, and Mary, with no coordinating word of its own, is one more member."""
    return deprel_base(token.deprel) == "conj" and own_cc(sentence, token) is None


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
            if token.text not in LIST_PUNCTUATION and deprel_base(token.deprel) != "cc" and token.deprel != "fixed":
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
    ccs = [cc for k in others if (cc := own_cc(sentence, k)) is not None]
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
    role = deprel_base(head.deprel)
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
    within = deprel_base(head.deprel) in ("compound", "flat") or (
        head.head and sentence.token(head.head).upos == "PROPN" and deprel_base(head.deprel) in ("nmod", "compound", "flat"))
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
