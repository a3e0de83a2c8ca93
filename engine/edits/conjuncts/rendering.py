"""Conjunct edits made and rendered: the phrases that can be removed, added or replaced, the edited
sentences, detokenised, with subject-verb agreement kept, each labelled through its coordination's
context (:func:`engine.edits.conjuncts.projection.coordination_projection`).

In: a polarized sentence, its coordinations, donor phrases. Out: :class:`ConjunctEdit` records.
"""


from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.edits.conjuncts.detection import (
    EDITABLE,
    Conjunct,
    Coordination,
    deprel_base,
    find_coordinations,
    has_subject,
    own_cc,
)
from engine.edits.conjuncts.projection import coordination_projection
from engine.lexicon.inflection import fix_article, inflect, match_case, uncapitalise
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.projectivity import Projectivity
from engine.natlog.relations import Relation, nli_label
from engine.parse.sentence import ParsedSentence, Token


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
             and (cc := own_cc(sentence, k)) is not None and cc.text.lower() == "and"]
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
    auxiliaries = [c for c in sentence.children(predicate.id) if deprel_base(c.deprel) in ("aux", "cop") and c.id > after]
    verb = auxiliaries[0] if auxiliaries else predicate
    agreeing = verb.xpos in ("VBZ", "VBP") or verb.lemma.lower() == "be" and verb.xpos == "VBD"
    return verb if agreeing and verb.id > after and not verb.text.startswith("'") else None


def _finite_verbs(sentence: ParsedSentence, coordination: Coordination) -> list[Token]:
    """The verbs that agree with a coordinated subject: its predicate's, and those of the predicates
    conjoined to it that share the subject ("A and B appeared, but were not present")."""
    head = sentence.token(coordination.head_id)
    if coordination.category != "NP" or deprel_base(head.deprel) != "nsubj" or not head.head:
        return []
    predicate = sentence.token(head.head)
    shared = [k for k in sentence.children(predicate.id, "conj") if not has_subject(sentence, k)]
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
    if head.xpos != "VBN" or any(deprel_base(c.deprel) in ("aux", "cop") for c in sentence.children(head.id)):
        return head.xpos
    finite = (any(deprel_base(c.deprel) == "nsubj" for c in sentence.children(head.id))
              or deprel_base(head.deprel) == "conj" and head.head > 0 and sentence.token(head.head).xpos == "VBD")
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
