"""Trigger lexicon and scope: find the monotonicity triggers (quantifiers, negators, implicatives,
...) in a UD parse and the tokens each argument covers.

Quantified noun phrases split into a restrictor (the noun with its modifiers
and relative clauses) and a body (the rest of the clause for subjects, the
predicate after the head for other roles). Multiword triggers ("at least n",
"a few", "all but", "more than n", "no one") are matched on the word sequence
first, so a misattached word still joins its unit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.errors import InputError
from engine.core.words import NEGATIVE_ADVERBS
from engine.natlog import projectivity as pj
from engine.natlog.projectivity import Polarity, Projectivity
from engine.parse.sentence import ParsedSentence, Token

Signature = tuple[Projectivity, Projectivity]

# Determiners (and pronouns heading their own phrase) with their (restrictor, body) signatures.
QUANTIFIERS: dict[str, Signature] = {
    "every": pj.EVERY, "all": pj.EVERY, "each": pj.EVERY,
    "everyone": pj.EVERY, "everybody": pj.EVERY, "everything": pj.EVERY,
    "some": pj.SOME, "a": pj.SOME, "an": pj.SOME, "several": pj.SOME,
    "someone": pj.SOME, "somebody": pj.SOME, "something": pj.SOME,
    "no": pj.NO, "none": pj.NO, "nobody": pj.NO, "nothing": pj.NO, "noone": pj.NO,
    "most": pj.MOST, "many": pj.MANY, "few": pj.FEW,
    # "neither A" is "no A" (of two); "both A" is "every A" (of two).
    "neither": pj.NO, "both": pj.EVERY,
    # "enough A B": whether enough is enough depends on the A (non-monotone); upward in B.
    "enough": pj.MANY,
}
# Words that, in a coordinated determiner ("some but not all"), combine with the others.
COORDINATED_DETERMINERS = {"some", "many", "most", "all", "every", "few", "several"}
# How the definite article's restrictor projects: the project's default reads "the N" as
# referring (non-monotone in N); the existential reading ("some N") is MacCartney's choice.
DEFINITE_READINGS = ("nonmonotone", "existential")
# How a bare subject numeral counts: "exactly n" (noun and body non-monotone; the default) or
# "at least n" (number downward, noun and body upward: the reading of image captions).
NUMERAL_READINGS = ("exactly", "at-least")
# How an indefinite subject ("A dog is chasing a ball") reads: "existential" is MacCartney's strict
# reading (some dog: negating the predicate gives ‿, a co-hyponym subject #); "scene" is how SNLI
# and SICK annotators read captions, as the entity the premise describes (the same scene): the
# predicate projects as of a named individual (negating it gives ^), and the noun as a conjunct
# (a hypernym ⊏, a co-hyponym |). "auto" picks per data set (engine.natlog.triggers.INDEFINITE_AUTO).
INDEFINITE_READINGS = ("existential", "scene")
INDEFINITE_SETTINGS = (*INDEFINITE_READINGS, "auto")
#: The indefinite reading ``auto`` resolves to, per data reader (``engine.data.readers.detect_format``:
#: SNLI's TSV and JSONL, SICK); any other data (MNLI, HELP, ConjNLI, typed pairs) keeps the strict reading.
INDEFINITE_AUTO = {"snli": "scene", "tsv": "scene", "jsonl": "scene", "sick": "scene"}
#: An indefinite subject under the scene reading: its noun projects like a conjunct of the clause.
SCENE_RESTRICTOR = pj.signature("a (scene)", "≡⊏⊐||##")
INDEFINITE_ARTICLES = {"a", "an"}


@dataclass(frozen=True)
class Conventions:
    """The marker's choices where monotonicity calculi differ by convention (docs/natural-logic.md,
    "Accuracy, and where other projects mark differently")."""

    definite: str = "nonmonotone"
    numerals: str = "exactly"
    indefinite: str = "existential"

    def __post_init__(self) -> None:
        if self.definite not in DEFINITE_READINGS:
            raise InputError(f"unknown definite reading {self.definite!r}; choose one of: {', '.join(DEFINITE_READINGS)}")
        if self.numerals not in NUMERAL_READINGS:
            raise InputError(f"unknown numeral reading {self.numerals!r}; choose one of: {', '.join(NUMERAL_READINGS)}")
        if self.indefinite not in INDEFINITE_READINGS:
            raise InputError(f"unknown indefinite reading {self.indefinite!r}; choose one of: "
                             f"{', '.join(INDEFINITE_READINGS)} (a setting may also say auto: per data set)")

    @classmethod
    def of(cls, settings: object, data_format: str | None = None) -> "Conventions":
        """The conventions a settings object names (``definite_reading``, ``numeral_reading``,
        ``indefinite_reading``; ``auto`` resolved for ``data_format`` by :func:`indefinite_reading`)."""
        return cls(str(getattr(settings, "definite_reading", cls.definite)),
                   str(getattr(settings, "numeral_reading", cls.numerals)),
                   indefinite_reading(str(getattr(settings, "indefinite_reading", cls.indefinite)), data_format))


def indefinite_reading(setting: str, data_format: str | None = None) -> str:
    """The indefinite reading a setting gives for pairs of ``data_format``: ``auto`` is the scene
    reading for SNLI and SICK (their annotators read captions as one scene) and the strict
    existential one for anything else, typed pairs included."""
    if setting != "auto":
        return setting
    return INDEFINITE_AUTO.get((data_format or "").lower(), "existential")
# "any" is existential in a downward context and universal (free choice) elsewhere.
ANY_WORDS = {"any", "anyone", "anybody", "anything"}
# Definite and demonstrative determiners: the restrictor is non-monotone.
DEFINITES = {"the", "this", "that", "these", "those"}
# Sequences read as one trigger: words -> (name, signature, projectivity of the number or None).
MULTIWORD: dict[tuple[str, ...], tuple[str, Signature, Projectivity | None]] = {
    ("a", "few"): ("a few", pj.SOME, None),
    ("no", "one"): ("no one", pj.NO, None),
    ("all", "but"): ("all but", pj.ALL_BUT_N, None),
    ("at", "least"): ("at least", pj.AT_LEAST_N, pj.DOWNWARD),
    ("at", "most"): ("at most", pj.AT_MOST_N, pj.UPWARD),
    ("more", "than"): ("more than", pj.AT_LEAST_N, pj.DOWNWARD),
    ("less", "than"): ("less than", pj.AT_MOST_N, pj.UPWARD),
    ("fewer", "than"): ("fewer than", pj.AT_MOST_N, pj.UPWARD),
    ("exactly",): ("exactly", pj.EXACTLY_N, pj.EXACT_NUMBER),
}
NEGATORS = NEGATIVE_ADVERBS  # the negators of the marker (engine/core/words.py)
# Nouns whose complement they deny or doubt ("no doubt that S", "the lack of water"): downward.
NEGATIVE_NOUNS: dict[str, Projectivity] = {
    "doubt": pj.DOWNWARD, "denial": pj.DOWNWARD, "refusal": pj.DOWNWARD,
    "lack": pj.DOWNWARD, "absence": pj.DOWNWARD,
}
# Verbs whose complement they negate: two-way implicatives negate it, the others are downward.
NEGATIVE_VERBS: dict[str, Projectivity] = {
    "fail": pj.NEGATION, "forget": pj.NEGATION, "neglect": pj.NEGATION,
    "refuse": pj.DOWNWARD, "decline": pj.DOWNWARD, "deny": pj.DOWNWARD, "doubt": pj.DOWNWARD,
}
NUMBER_VALUES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "hundred": 100, "thousand": 1000, "dozen": 12,
}
NUMBER_WORDS = set(NUMBER_VALUES)

# Bare-numeral readings by predicate (Udep2Mono's lexicon): consumption, acquisition and
# possession verbs, and durations ("for three days"), count from below ("at least n": who smoked
# two smoked one); preference verbs count exhaustively ("likes four cats": exactly those four).
AT_LEAST_PREDICATES = {"smoke", "drink", "buy", "take", "hold", "receive", "get", "catch"}
DURATION_UNITS = {"second", "minute", "hour", "day", "night", "week", "month", "year", "decade", "century"}
# "in/within n units" is a time window: an upper bound, so the number is upward.
WINDOW_MARKERS = {"in", "within"}
EXHAUSTIVE_PREDICATES = {"like", "love", "admire", "marry"}

SUBJECT = {"nsubj", "csubj", "expl"}
CLAUSE_PARTS = {"nsubj", "csubj", "expl", "cop", "aux", "mark", "punct", "advcl", "ccomp", "parataxis"}


@dataclass(frozen=True)
class TriggerArgument:
    """One argument position of an trigger: the tokens it covers and how it projects."""

    role: str
    tokens: frozenset[int]
    projectivity: Projectivity


@dataclass(frozen=True)
class ScopedTrigger:
    """An trigger occurrence: its trigger words and its arguments' scopes."""

    name: str
    triggers: tuple[int, ...]
    arguments: tuple[TriggerArgument, ...]

    @property
    def scope(self) -> frozenset[int]:
        return frozenset().union(*(a.tokens for a in self.arguments))

    @property
    def anchors(self) -> frozenset[int]:
        """The words that place the trigger: its triggers and, for numerals, the number."""
        numbers = (a.tokens for a in self.arguments if a.role == "number")
        return frozenset(self.triggers).union(*numbers)


def _base(deprel: str) -> str:
    return deprel.split(":")[0]


def _lower(token: Token) -> str:
    return token.text.lower()


def is_number(token: Token) -> bool:
    """A cardinal number word or numeral."""
    text = token.text.lower().replace(",", "")
    return token.upos == "NUM" or text.isdigit() or text in NUMBER_WORDS


def _ids(tokens: list[Token]) -> set[int]:
    return {t.id for t in tokens}


def _is_relative_pronoun(token: Token) -> bool:
    return token.xpos in ("WDT", "WP", "WP$") or token.feats_dict.get("PronType") == "Rel"


def _clean(sentence: ParsedSentence, ids: set[int], *, bound: bool = False) -> frozenset[int]:
    """Drop punctuation; with ``bound`` also relative pronouns (variables bound outside a body)."""
    return frozenset(
        i for i in ids
        if sentence.token(i).upos != "PUNCT" and not (bound and _is_relative_pronoun(sentence.token(i)))
    )


def recovered_predicate(sentence: ParsedSentence, noun: Token) -> Token | None:
    """For a verbless root noun, a following clausal modifier without subject that is the real predicate.

    Small parsers often read "Three students cheated in class" as a noun phrase
    with a reduced relative; the verb is then taken as the predicate.
    """
    if noun.head != 0 or noun.upos == "VERB":
        return None
    for child in sentence.children(noun.id):
        if child.deprel == "acl" and child.upos in ("VERB", "AUX") and child.id > noun.id:
            if not any(_base(c.deprel) in SUBJECT for c in sentence.children(child.id)):
                return child
    return None


def noun_phrase(sentence: ParsedSentence, noun: Token, triggers: set[int]) -> set[int]:
    """The phrase headed by ``noun`` minus the trigger words and what they govern (a restrictor).

    Left out too: the noun's case marker, dependents before the first trigger
    (predeterminers such as "all" in "all the"), and clause parts when the noun
    is a predicate.
    """
    ids = _ids(sentence.subtree(noun.id))
    excluded = {noun.id} & triggers
    first = min(triggers, default=noun.id)
    for trigger in triggers - {noun.id}:
        if trigger in ids:
            excluded |= _ids(sentence.subtree(trigger))
    for child in sentence.children(noun.id):
        if (
            _base(child.deprel) in CLAUSE_PARTS or child.deprel == "case" or child.id < first
            or child == recovered_predicate(sentence, noun)
        ):
            excluded |= _ids(sentence.subtree(child.id))
    return ids - excluded


def phrase_host(sentence: ParsedSentence, noun: Token) -> Token:
    """Climb from a conjunct or a possessor to the phrase that plays the role in the clause."""
    current = noun
    while current.head and (current.deprel == "conj" or current.deprel == "nmod:poss"):
        current = sentence.token(current.head)
    return current


def own_clauses(sentence: ParsedSentence, head: Token) -> set[int]:
    """Tokens of clauses conjoined to ``head`` that have their own subject ("..., and John can't"):
    they are outside the scope of the first clause's triggers."""
    found: set[int] = set()
    for child in sentence.children(head.id):
        if _base(child.deprel) in ("conj", "parataxis") and any(
                _base(c.deprel) in SUBJECT for c in sentence.children(child.id)):
            found |= _ids(sentence.subtree(child.id))
    return found


def clause_body(sentence: ParsedSentence, noun: Token, excluded: set[int]) -> set[int]:
    """The body of a quantified phrase: the clause minus the phrase (subjects), or the predicate after it."""
    host = phrase_host(sentence, noun)
    phrase = _ids(sentence.subtree(host.id))
    if host.head == 0:
        predicate = recovered_predicate(sentence, host)
        return _ids(sentence.subtree(predicate.id)) - excluded if predicate else set()
    head = sentence.token(host.head)
    if _base(host.deprel) in SUBJECT:
        # Material fronted before the subject ("If ..., every dog ...") is outside its scope.
        fronted = {i for c in sentence.children(head.id) if c.id < host.id for i in _ids(sentence.subtree(c.id))}
        return _ids(sentence.subtree(head.id)) - phrase - fronted - excluded - own_clauses(sentence, head)
    if head.upos in ("NOUN", "PROPN", "PRON", "NUM") and _base(host.deprel) == "nmod" or head.upos in ("ADP", "SCONJ"):
        # A noun modifier, or the object of a preposition heading its phrase ("except for two"): no clause.
        return set()
    body = {head.id}
    for child in sentence.children(head.id):
        if child.id > host.id:
            body |= _ids(sentence.subtree(child.id))
    return body - phrase - excluded


def _next(sentence: ParsedSentence, token: Token, offset: int = 1) -> Token | None:
    k = token.id + offset
    return sentence.token(k) if 1 <= k <= len(sentence) else None


def _quantified_noun(sentence: ParsedSentence, word: Token) -> Token:
    """The noun a determiner-like word quantifies (the word itself when it heads its phrase)."""
    if word.head and _base(word.deprel) in ("det", "amod", "nummod", "advmod", "compound", "case") and word.head > word.id:
        head = sentence.token(word.head)
        if head.upos in ("NOUN", "PROPN", "PRON", "NUM", "ADJ", "X"):
            return head
    following = _next(sentence, word)
    if word.upos in ("DET", "ADJ", "ADV") and following is not None and following.upos in ("NOUN", "PROPN", "ADJ"):
        # A determiner misattached by the parser: take the noun it precedes (up to its head noun).
        noun = following
        while noun.head > noun.id and sentence.token(noun.head).upos in ("NOUN", "PROPN") and noun.deprel in ("compound", "amod"):
            noun = sentence.token(noun.head)
        return noun
    return word


def possessed(sentence: ParsedSentence, noun: Token) -> Token:
    """The noun a possessor belongs to ("every student's favorite class" -> "class"), or the noun itself."""
    current = noun
    while current.head and current.deprel == "nmod:poss":
        current = sentence.token(current.head)
    return current


def _quantifier(sentence: ParsedSentence, name: str, triggers: list[int], noun: Token,
                signature: Signature, number: tuple[int, Projectivity] | None = None) -> ScopedTrigger:
    trig = set(triggers) | ({number[0]} if number else set())
    # A quantified possessor restricts the possessed phrase too: "every student's class" ranges
    # over the classes of each student, so the possessed noun is in the restrictor.
    restrictor = noun_phrase(sentence, possessed(sentence, noun), trig)
    body = clause_body(sentence, noun, trig)
    arguments = [
        TriggerArgument("restrictor", _clean(sentence, restrictor), signature[0]),
        TriggerArgument("body", _clean(sentence, body, bound=True), signature[1]),
    ]
    if number:
        arguments.append(TriggerArgument("number", frozenset({number[0]}), number[1]))
    return ScopedTrigger(name, tuple(sorted(triggers)), tuple(arguments))


def _match_multiword(
    sentence: ParsedSentence, start: Token,
) -> tuple[tuple[str, ...], tuple[str, Signature, Projectivity | None]] | None:
    for words, entry in MULTIWORD.items():
        seq = [sentence.token(start.id + k) for k in range(len(words)) if start.id + k <= len(sentence)]
        if len(seq) == len(words) and all(_lower(t) == w for t, w in zip(seq, words)):
            return words, entry
    return None


def _number_after(sentence: ParsedSentence, token: Token) -> Token | None:
    following = _next(sentence, token)
    return following if following is not None and is_number(following) else None


DEFAULT_CONVENTIONS = Conventions()


def _coordinated_determiner(sentence: ParsedSentence, tok: Token) -> ScopedTrigger | None:
    """"some but not all N", "some and not all N": one trigger whose arguments combine both determiners.

    Each argument keeps a direction only where both determiners agree on it
    ("some" and "not all" are both upward in N); elsewhere it is non-monotone
    (the body: "some" is upward, "not all" downward).
    """
    words = [sentence.token(i) for i in range(tok.id, min(tok.id + 4, len(sentence)) + 1)]
    if len(words) < 4 or _lower(words[1]) not in ("but", "and") or _lower(words[2]) != "not":
        return None
    first, second = _lower(words[0]), _lower(words[3])
    if first not in COORDINATED_DETERMINERS or second not in COORDINATED_DETERMINERS:
        return None
    negated = tuple(pj.compose([p, pj.NEGATION]) for p in QUANTIFIERS[second])
    signature = tuple(pj.agreement(a, b) for a, b in zip(QUANTIFIERS[first], negated))
    noun = _quantified_noun(sentence, words[3])
    noun = noun if noun.id > words[3].id else _next(sentence, words[3]) or words[3]
    name = " ".join(_lower(w) for w in words)
    return _quantifier(sentence, name, [w.id for w in words], noun, (signature[0], signature[1]))


def _is_bare_nominal(sentence: ParsedSentence, tok: Token) -> bool:
    """A common noun heading its phrase with no determiner, numeral or possessor ("people", "water")."""
    if tok.upos != "NOUN" or _base(tok.deprel) in ("compound", "flat", "fixed", "root", "vocative", "list"):
        return False
    if tok.deprel in ("nmod:poss", "obl:npmod", "obl:tmod", "nmod:npmod", "nmod:tmod"):
        return False
    children = sentence.children(tok.id)
    if any(_base(c.deprel) in ("det", "nummod", "cop") or c.deprel == "nmod:poss" or c.xpos in ("PRP$", "WP$")
           for c in children):
        return False
    previous = _next(sentence, tok, -1)
    return previous is None or (previous.upos not in ("DET", "NUM") and previous.xpos not in ("PRP$", "POS"))


def _existentials(sentence: ParsedSentence, found: list[ScopedTrigger], claimed: set[int],
                  scene: bool = False) -> list[ScopedTrigger]:
    """Implicit existential quantifiers over bare nominals ("There are people outside", "drinks water").

    Nothing marks them, so they change no arrow (their signature is "some":
    upward in both arguments), but they make lexical alternation project to
    independence: "There are people outside" and "There are men outside" are
    compatible, not contradictory. Under the scene reading (``scene``) a plural bare subject of
    the main clause is the group the premise shows, not an existential.
    """
    quantified = {i for op in found for a in op.arguments if a.role in ("restrictor", "number") for i in a.tokens}
    covered = quantified | claimed | {i for op in found for i in op.triggers}
    extra = []
    for tok in sentence.tokens:
        if tok.id in covered or not _is_bare_nominal(sentence, tok):
            continue
        expletive = next((c for c in sentence.children(tok.head) if _lower(c) == "there" and c.deprel == "expl"),
                         None) if tok.head else None
        if expletive is not None:
            # "there" and "be" say the quantifier is there: they carry its context, like "some".
            extra.append(_quantifier(sentence, "there be", [expletive.id, tok.head], tok, pj.SOME))
        elif scene and _plural(tok) and _main_subject(sentence, tok):
            # "People are eating" under the scene reading: the people the premise shows, as an
            # indefinite or a numeral subject reads there (their predicate is not quantified).
            restrictor = noun_phrase(sentence, tok, set())
            extra.append(ScopedTrigger("bare plural (scene)", (), (
                TriggerArgument("restrictor", _clean(sentence, restrictor), SCENE_RESTRICTOR),)))
        else:
            extra.append(_quantifier(sentence, "bare noun", [], tok, pj.SOME))
    return extra


def _plural(tok: Token) -> bool:
    """A plural noun, by its features or its tag."""
    return tok.feats_dict.get("Number") == "Plur" or tok.xpos in ("NNS", "NNPS")


def find_triggers(sentence: ParsedSentence, context: Callable[[int], Polarity] | None = None,
                  conventions: Conventions | None = None) -> list[ScopedTrigger]:
    """All triggers of the sentence with their argument scopes.

    ``context(token_id)`` gives the polarity of a word from the other triggers;
    it decides "any" (existential when downward); without it "any" is left out.
    ``conventions`` fixes the readings of "the" and of bare subject numerals.
    """
    conventions = conventions or DEFAULT_CONVENTIONS
    found: list[ScopedTrigger] = []
    claimed: set[int] = set()
    for tok in sentence.tokens:
        if tok.id in claimed:
            continue
        coordinated = _coordinated_determiner(sentence, tok)
        if coordinated is not None:
            claimed |= set(coordinated.triggers)
            found.append(coordinated)
            continue
        match = _match_multiword(sentence, tok)
        if match:
            words, (name, signature, number_proj) = match
            triggers = list(range(tok.id, tok.id + len(words)))
            last = sentence.token(triggers[-1])
            if number_proj is not None:
                number = _number_after(sentence, last)
                if number is None:
                    continue
                claimed |= set(triggers) | {number.id}
                noun = _quantified_noun(sentence, number)
                found.append(_quantifier(sentence, name, triggers, noun, signature, (number.id, number_proj)))
                continue
            claimed |= set(triggers)
            if name == "all but":
                anchor = _next(sentence, last)
                if anchor is None:
                    continue
                found.append(_all_but(sentence, tok, triggers, anchor, signature))
            else:
                noun = _quantified_noun(sentence, last)
                noun = noun if noun.id not in triggers else last
                found.append(_quantifier(sentence, name, triggers, noun, signature))
            continue
        word = _lower(tok)
        if word in ("more", "fewer", "less") and (comparative := _comparative(sentence, tok)):
            claimed |= set(comparative.triggers)
            found.append(comparative)
        elif (word in INDEFINITE_ARTICLES and conventions.indefinite == "scene"
              and (subject := _scene_subject(sentence, tok)) is not None):
            restrictor = noun_phrase(sentence, subject, {tok.id})
            found.append(ScopedTrigger(f"{word} (scene)", (tok.id,), (
                TriggerArgument("restrictor", _clean(sentence, restrictor), SCENE_RESTRICTOR),)))
        elif word in QUANTIFIERS and (tok.upos in ("DET", "PRON", "ADJ", "NOUN", "ADV", "NUM")
                                      or word == "neither" and tok.upos == "CCONJ"):
            noun = _quantified_noun(sentence, tok)
            if word == "both" and sentence.children(noun.id, "conj"):
                continue  # "both A and B": a conjunction, upward in each conjunct
            found.append(_quantifier(sentence, word, [tok.id], noun, QUANTIFIERS[word]))
        elif word in ANY_WORDS and context is not None:
            downward = context(tok.id) is Polarity.DOWN
            noun = _quantified_noun(sentence, tok)
            found.append(_quantifier(sentence, "any (some)" if downward else "any (every)", [tok.id], noun,
                                         pj.SOME if downward else pj.EVERY))
        elif (word in DEFINITES and _base(tok.deprel) == "det" and tok.head > tok.id
              and not _is_relative_pronoun(tok) and not _partitive_definite(sentence, tok)):
            noun = sentence.token(tok.head)
            if conventions.definite == "existential":
                found.append(_quantifier(sentence, word, [tok.id], noun, pj.SOME))
            else:
                restrictor = noun_phrase(sentence, noun, {tok.id})
                found.append(ScopedTrigger(word, (tok.id,), (
                    TriggerArgument("restrictor", _clean(sentence, restrictor), pj.NON_MONOTONE),)))
        elif is_number(tok) and tok.upos == "NUM" and _base(tok.deprel) in ("nummod", "nsubj", "obj", "obl", "iobj", "conj"):
            noun = _quantified_noun(sentence, tok)
            if conventions.indefinite == "scene" and _scene_numeral(sentence, tok, noun):
                # "Two men are sleeping" under the scene reading: the two men the premise shows. The
                # noun projects like an indefinite scene subject's, the predicate as of a named
                # group; the number still counts exactly ("Three men ..." | "Two men ...").
                restrictor = noun_phrase(sentence, noun, {tok.id})
                found.append(ScopedTrigger(f"{_lower(tok)} (scene)", (), (
                    TriggerArgument("restrictor", _clean(sentence, restrictor), SCENE_RESTRICTOR),
                    TriggerArgument("number", frozenset({tok.id}), pj.EXACT_NUMBER))))
                continue
            signature, number_proj = numeral_reading(sentence, noun, conventions.numerals)
            found.append(_quantifier(sentence, _lower(tok), [], noun, signature, (tok.id, number_proj)))
    found.extend(_existentials(sentence, found, claimed, conventions.indefinite == "scene"))
    found.extend(_coordinated_subjects(sentence))
    found.extend(_clausal_triggers(sentence, found))
    return found


def _scene_subject(sentence: ParsedSentence, det: Token) -> Token | None:
    """The noun an indefinite article determines when that noun is the subject of the main clause
    (or of a clause coordinated with it): the one the scene reading fixes; None elsewhere."""
    if _base(det.deprel) != "det" or det.head <= det.id:
        return None
    noun = sentence.token(det.head)
    return noun if _main_subject(sentence, noun) else None


def _scene_numeral(sentence: ParsedSentence, number: Token, noun: Token) -> bool:
    """A bare numeral ("Two men ...", no determiner or possessor before it) counting the subject of
    the main clause: the group the scene reading fixes."""
    if number.id >= noun.id or _base(number.deprel) != "nummod" or number.head != noun.id:
        return False
    if any(_base(c.deprel) == "det" or c.deprel == "nmod:poss" for c in sentence.children(noun.id)):
        return False
    return _main_subject(sentence, noun)


def _main_subject(sentence: ParsedSentence, noun: Token) -> bool:
    """Whether ``noun`` is the subject of the main clause (or of a clause coordinated with it, or of
    the clause a truth frame holds: "It is not true that a man sleeps" is still about the man the
    premise shows, as the sentence negation that wrote it meant). The head noun of a caption
    fragment ("Two kids playing on the playground", "A man in a red hat") counts too: the caption
    shows it as a clause shows its subject, and a participle after it is its predicate
    (:func:`recovered_predicate`)."""
    if noun.head == 0 and noun.upos in ("NOUN", "PROPN"):
        return True
    if _base(noun.deprel) not in ("nsubj", "nsubj:pass") and noun.deprel not in ("nsubj", "nsubj:pass"):
        return False
    clause = sentence.token(noun.head) if noun.head else None
    while clause is not None and clause.head:
        if _base(clause.deprel) == "conj" or _truth_frame(sentence, clause):
            clause = sentence.token(clause.head)
        else:
            break
    return clause is not None and clause.head == 0


def _truth_frame(sentence: ParsedSentence, clause: Token) -> bool:
    """``clause`` is the "that" clause of "it is (not) true / false that ...": the frame sentence
    negation prefixes (engine.edits.operators.negation)."""
    if _base(clause.deprel) != "ccomp" or not clause.head:
        return False
    frame = sentence.token(clause.head)
    return frame.lemma.lower() in ("true", "false") and any(
        _lower(c) == "it" and _base(c.deprel) in ("nsubj", "expl") for c in sentence.children(frame.id))


def _coordinated_subjects(sentence: ParsedSentence) -> list[ScopedTrigger]:
    """A coordinated subject distributes its predicate: "A and B sleep" is "each of A, B sleeps"
    (a universal over the conjuncts), "A or B sleeps" an existential. The arrows do not change
    (both are upward in the predicate), but a negation of the predicate is then no negation of
    the sentence: "A and B did not drink" denies it of each (|), not of the pair (^)."""
    found = []
    for tok in sentence.tokens:
        if _base(tok.deprel) not in SUBJECT or not tok.head:
            continue
        conjuncts = sentence.children(tok.id, "conj")
        cc = next((c for k in conjuncts for c in sentence.children(k.id, "cc")), None)
        if cc is None or _lower(cc) not in ("and", "or"):
            continue
        body = clause_body(sentence, tok, set())
        signature = pj.EVERY[1] if _lower(cc) == "and" else pj.SOME[1]
        found.append(ScopedTrigger(f"{_lower(cc)} (subject)", (cc.id,), (
            TriggerArgument("body", _clean(sentence, body, bound=True), signature),)))
    return found


def numeral_reading(sentence: ParsedSentence, noun: Token, subject: str = "exactly") -> tuple[Signature, Projectivity]:
    """The (restrictor, body) signature and the number's projectivity of a bare numeral phrase.

    A subject numeral counts a group of exactly n ("Three= dogs= like= ..."; another number gives
    an alternation, :data:`~engine.natlog.projectivity.EXACT_NUMBER`), or with ``subject``
    "at-least" at least n ("Three↓ dogs↑ like↑ ..."). Elsewhere the
    number is non-monotone and the noun upward ("could have three= candies↑"), except under
    an at-least predicate or a duration ("smoke two↓", "for three↓ days↓": the unit of a
    measure phrase moves with its number), a time window ("in one↑ hour↑": within an upper
    bound) and an exhaustive predicate ("like four= cats=").
    """
    host = phrase_host(sentence, noun)
    if _base(host.deprel) in SUBJECT or host.head == 0:
        return (pj.AT_LEAST_N, pj.DOWNWARD) if subject == "at-least" else (pj.BARE_NUMERAL, pj.EXACT_NUMBER)
    head = sentence.token(host.head)
    markers = {_lower(c) for c in sentence.children(host.id, "case")}
    if noun.lemma.lower() in DURATION_UNITS:
        if "for" in markers:
            return (pj.DOWNWARD, pj.UPWARD), pj.DOWNWARD
        if markers & WINDOW_MARKERS:
            return (pj.UPWARD, pj.UPWARD), pj.UPWARD
    if head.lemma.lower() in AT_LEAST_PREDICATES:
        return pj.AT_LEAST_N, pj.DOWNWARD
    if head.lemma.lower() in EXHAUSTIVE_PREDICATES:
        return pj.EXHAUSTIVE_NUMERAL, pj.NON_MONOTONE
    return pj.OBJECT_NUMERAL, pj.NON_MONOTONE


def _partitive_definite(sentence: ParsedSentence, det: Token) -> bool:
    """A plural definite under a quantifier ("all the kids", "none of the dogs") only fixes the domain: transparent."""
    noun = sentence.token(det.head)
    before = sentence.token(det.id - 1) if det.id > 1 else None
    return _plural(noun) and before is not None and (_lower(before) in QUANTIFIERS or _lower(before) == "of" or is_number(before))


def _comparative(sentence: ParsedSentence, word: Token) -> ScopedTrigger | None:
    """"more A than B" / "fewer A than B": two restrictors and a non-monotone body."""
    than = next((t for t in sentence.tokens[word.id:] if _lower(t) == "than"), None)
    if than is None or than.id == word.id + 1:
        return None
    first = _quantified_noun(sentence, word)
    second = sentence.token(than.head) if than.deprel == "case" else _next(sentence, than)
    if second is None or first.id == word.id:
        return None
    signature = pj.MORE_THAN if _lower(word) == "more" else pj.FEWER_THAN
    triggers = {word.id, than.id}
    second_ids = _ids(sentence.subtree(second.id)) - triggers
    first_ids = noun_phrase(sentence, first, triggers) - second_ids
    body = clause_body(sentence, first, triggers)
    name = f"{_lower(word)} than"
    return ScopedTrigger(name, tuple(sorted(triggers)), (
        TriggerArgument("restrictor", _clean(sentence, first_ids), signature[0]),
        TriggerArgument("comparison", _clean(sentence, second_ids), signature[1]),
        TriggerArgument("body", _clean(sentence, body, bound=True), signature[2]),
    ))


def _all_but(sentence: ParsedSentence, word: Token, triggers: list[int], anchor: Token,
             signature: Signature) -> ScopedTrigger:
    """"all but N A": the exception phrase and the body are both non-monotone."""
    noun = _quantified_noun(sentence, anchor) if anchor.upos != "NOUN" else anchor
    restrictor = noun_phrase(sentence, noun, set(triggers))
    host = sentence.token(word.head) if word.head and _base(word.deprel) == "det" else word
    body = clause_body(sentence, host, set(triggers) | restrictor)
    return ScopedTrigger("all but", tuple(triggers), (
        TriggerArgument("restrictor", _clean(sentence, restrictor), signature[0]),
        TriggerArgument("body", _clean(sentence, body, bound=True), signature[1]),
    ))


def _clausal_triggers(sentence: ParsedSentence, quantifiers: list[ScopedTrigger]) -> list[ScopedTrigger]:
    """Negation, conditionals, negative verbs, "without", "only", exceptives and "it is false that"."""
    found: list[ScopedTrigger] = []
    by_trigger = {t: q for q in quantifiers for t in q.triggers}
    for tok in sentence.tokens:
        word, lemma = _lower(tok), tok.lemma.lower()
        if tok.id in by_trigger:
            continue  # part of a quantifier ("not" in "some but not all")
        if word in NEGATORS or (lemma == "not" and tok.upos == "PART"):
            found.append(_negation(sentence, tok, by_trigger))
        elif word == "if" and tok.deprel == "mark" and tok.head:
            clause = sentence.token(tok.head)
            if clause.deprel == "advcl" or clause.head == 0:
                ids = _ids(sentence.subtree(clause.id))
                if clause.head == 0:
                    for child in sentence.children(clause.id):
                        if child.id > clause.id and _base(child.deprel) in ("parataxis", "conj", "ccomp", "advcl"):
                            ids -= _ids(sentence.subtree(child.id))
                even = {c.id for c in sentence.children(clause.id) if _lower(c) == "even" and c.id == tok.id - 1}
                triggers = tuple(sorted(even | {tok.id}))
                found.append(ScopedTrigger("even if" if even else "if", triggers, (
                    TriggerArgument("antecedent", _clean(sentence, ids - set(triggers)), pj.DOWNWARD),)))
        elif lemma in NEGATIVE_VERBS and tok.upos == "VERB":
            for comp in sentence.children(tok.id):
                if comp.deprel in ("xcomp", "ccomp"):
                    markers = {c.id for c in sentence.children(comp.id) if c.deprel == "mark" or (c.deprel == "aux" and _lower(c) == "to")}
                    ids = _ids(sentence.subtree(comp.id)) - markers
                    found.append(ScopedTrigger(lemma, (tok.id,), (
                        TriggerArgument("complement", _clean(sentence, ids), NEGATIVE_VERBS[lemma]),)))
        elif lemma in NEGATIVE_NOUNS and tok.upos == "NOUN":
            for comp in sentence.children(tok.id):
                if _base(comp.deprel) in ("acl", "ccomp", "nmod") and comp.id > tok.id:
                    markers = {c.id for c in sentence.children(comp.id)
                               if c.deprel in ("mark", "case") or (c.deprel == "aux" and _lower(c) == "to")}
                    ids = _ids(sentence.subtree(comp.id)) - markers
                    found.append(ScopedTrigger(lemma, (tok.id,), (
                        TriggerArgument("complement", _clean(sentence, ids), NEGATIVE_NOUNS[lemma]),)))
        elif word == "without" and tok.head:
            ids = _ids(sentence.subtree(tok.head)) - {tok.id}
            found.append(ScopedTrigger("without", (tok.id,), (
                TriggerArgument("scope", _clean(sentence, ids), pj.ANTI_ADDITIVE),)))
        elif word == "only" and tok.head:
            focus = sentence.token(tok.head)
            ids = noun_phrase(sentence, focus, {tok.id})
            body = clause_body(sentence, focus, {tok.id})
            found.append(ScopedTrigger("only", (tok.id,), (
                TriggerArgument("focus", _clean(sentence, ids), pj.EVERY[1]),
                TriggerArgument("body", _clean(sentence, body, bound=True), pj.EVERY[0]),
            )))
        elif word == "except":
            found.append(_exceptive(sentence, tok, quantifiers))
        elif lemma == "false" and tok.upos == "ADJ":
            for comp in sentence.children(tok.id):
                if _base(comp.deprel) in ("ccomp", "csubj"):
                    markers = {c.id for c in sentence.children(comp.id) if c.deprel == "mark"}
                    ids = _ids(sentence.subtree(comp.id)) - markers
                    found.append(ScopedTrigger("false", (tok.id,), (
                        TriggerArgument("scope", _clean(sentence, ids), pj.NEGATION),)))
    return found


def _negation(sentence: ParsedSentence, tok: Token, quantifiers: dict[int, ScopedTrigger]) -> ScopedTrigger:
    """"not"/"n't"/"never": over a following quantifier and its arguments, or over its predicate minus the subject."""
    following = _next(sentence, tok)
    if following is not None and following.id in quantifiers:
        quantifier = quantifiers[following.id]
        ids = set(quantifier.triggers) | set(quantifier.scope)
        return ScopedTrigger(_lower(tok), (tok.id,), (
            TriggerArgument("scope", _clean(sentence, ids - {tok.id}), pj.NEGATION),))
    if not tok.head:
        return ScopedTrigger(_lower(tok), (tok.id,), (TriggerArgument("scope", frozenset(), pj.NEGATION),))
    head = sentence.token(tok.head)
    ids = _ids(sentence.subtree(head.id)) - {tok.id}
    for child in sentence.children(head.id):
        if _base(child.deprel) in SUBJECT or (child.id < tok.id and child.id != head.id):
            ids -= _ids(sentence.subtree(child.id))
    ids -= own_clauses(sentence, head)
    if head.upos == "INTJ":
        # "No, not Tuesday": an interjection is no proposition; "not" scopes over what follows it.
        ids = {i for i in ids if i > tok.id}
    return ScopedTrigger(_lower(tok), (tok.id,), (
        TriggerArgument("scope", _clean(sentence, ids), pj.NEGATION),))


def _exceptive(sentence: ParsedSentence, tok: Token, quantifiers: list[ScopedTrigger]) -> ScopedTrigger:
    """"except (for) X".

    A plain exception ("except Fido") is exact: the exceptions are those and no
    others, so it is non-monotone. A counted one ("except three", "except for
    at most two") reads the host universal as "all but n": its domain noun and
    body become non-monotone. A bare count stays exact; a bounded one is
    subtracted from the domain, downward (inside the universal's downward
    restrictor: more exceptions, weaker claim), its bound projecting inside.
    """
    triggers = {tok.id}
    following = _next(sentence, tok)
    if following is not None and _lower(following) == "for":
        triggers.add(following.id)
    root = tok.head if tok.deprel in ("case", "mark") and tok.head else tok.id
    exception = _ids(sentence.subtree(root)) - triggers
    counted = any(is_number(sentence.token(i)) for i in exception)
    host = next((q for q in quantifiers if q.arguments[0].role == "restrictor" and tok.id in q.arguments[0].tokens), None)
    if not (counted and host is not None):
        return ScopedTrigger("except", tuple(sorted(triggers)), (
            TriggerArgument("exception", _clean(sentence, exception), pj.NON_MONOTONE),))
    inner = {t for q in quantifiers for t in q.triggers if t in exception}
    domain = {i for i in host.arguments[0].tokens - exception - triggers if sentence.token(i).upos != "DET"}
    body = next(a for a in host.arguments if a.role == "body")
    # A bare count is exact ("except three" = all but three); a bounded one ("except at most two") is subtracted.
    subtraction = pj.DOWNWARD if inner else pj.NON_MONOTONE
    return ScopedTrigger("except", tuple(sorted(triggers)), (
        TriggerArgument("exception", _clean(sentence, exception - inner), subtraction),
        TriggerArgument("domain", _clean(sentence, domain), pj.NON_MONOTONE),
        TriggerArgument("body", body.tokens - exception, pj.NON_MONOTONE),
    ))
