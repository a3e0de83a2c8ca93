"""The semantic-fragments suite (Richardson et al. 2020, "Probing Natural Language Inference
Models through Semantic Fragments"): the released files, new items of every fragment, and how
well the natural-logic core agrees with the released monotonicity labels.

* :func:`read` reads a released ``<fragment>/{train,dev}.tsv`` (``id, premise, hypothesis,
  LABEL``) or the folder of all fragments (each one's ``dev.tsv``).
* :func:`generate` makes new items of each fragment. The six logic fragments (negation, boolean,
  quantifier, counting, conditional, comparative) are built as logical forms realised in the
  released files' style and labelled by :func:`engine.logic.situations.judge`, which reasons over
  every situation consistent with the premise. The two monotonicity fragments substitute one word
  of a quantified sentence (a WordNet hypernym or hyponym, another determiner or numeral) and are
  labelled by the project's natural-logic core: the sentence is polarized
  (:func:`engine.natlog.polarity.polarize`), the word pair's lexical relation comes from
  :func:`engine.verify.verifier.word_relation`, and the relation projected through the word's context
  gives the label. ``form`` keeps the derivation, so :func:`check` can re-derive every label.
* :func:`monotonicity_agreement` relabels the released monotonicity items with the verifier
  (:func:`engine.verify.verifier.verify`: alignment, lexical relations, projection, join) and scores
  its agreement with the released labels.
"""

from __future__ import annotations

import difflib
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.core.vocab import LABELS, NLILabel
from engine.lexicon.inflection import fix_article, inflect
from engine.logic.situations import (
    PERSON,
    PLACE,
    Const,
    Count,
    FormError,
    Formula,
    Implies,
    Judgement,
    Not,
    Quant,
    Rel,
    Var,
    conj,
    disj,
    judge,
    read_pair,
    show_pair,
)
from engine.natlog.polarity import PolarizedSentence, polarize
from engine.natlog.relations import RELATION_ORDER, Relation
from engine.parse import ParsedSentence, parse
from engine.probes.record import ProbeItem
from engine.probes.suites import ProbeCheckError, Suite, register_suite
from engine.verify.verifier import UNKNOWN, verify, word_relation

SUITE_NAME = "fragments"
LOGIC_FRAGMENTS = ("negation", "boolean", "quantifier", "counting", "conditional", "comparative")
MONOTONICITY_FRAGMENTS = ("monotonicity_simple", "monotonicity_hard")
FRAGMENTS = LOGIC_FRAGMENTS + MONOTONICITY_FRAGMENTS
RELEASED_FILE = "dev.tsv"




# Reading the released files ------------------------------------------------------------------

# Determiners the released monotonicity premises open with, longest first (the item's group).
RELEASED_DETERMINERS = ("some but not all", "at least", "at most", "exactly", "every", "each", "all", "some",
                        "most", "many", "several", "no", "the", "a", "an")


def opening_determiner(premise: str) -> str:
    """The determiner a monotonicity premise opens with ("" when none of the known ones)."""
    words = premise.lower().split()
    return next((d for d in RELEASED_DETERMINERS if words[:len(d.split())] == d.split()), "")


def read_released(path: Path) -> list[ProbeItem]:
    """One released fragment file: ``id<TAB>premise<TAB>hypothesis<TAB>LABEL`` a line, no header.
    The fragment is the folder's name; a malformed line is a one-line InputError naming it."""
    fragment = path.parent.name
    try:
        lines = path.read_text(encoding="utf-8").split("\n")  # not splitlines: no split at U+2028 and kin
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    items: list[ProbeItem] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        where = f"{path}:{number}"
        if len(fields) != 4:
            raise InputError(f"{where}: expected 4 tab-separated fields (id, premise, hypothesis, label), "
                             f"got {len(fields)}")
        item_id, premise, hypothesis, label = (f.strip() for f in fields)
        if label.lower() not in LABELS:
            raise InputError(f"{where}: label {label!r} is not one of {', '.join(l.upper() for l in LABELS)}")
        if not item_id or not premise or not hypothesis:
            raise InputError(f"{where}: empty id, premise or hypothesis")
        group = opening_determiner(premise) if fragment.startswith("monotonicity") else ""
        items.append(ProbeItem(premise, hypothesis, label.lower(), SUITE_NAME, fragment, group,
                               f"{fragment}:{item_id}", "", {"source": str(path), "id": item_id}))
    if not items:
        raise InputError(f"{path}: no items")
    return items


def read(path: Path) -> list[ProbeItem]:
    """A released fragment file, or the folder of fragments (every ``<fragment>/dev.tsv`` in it)."""
    path = Path(path)
    if path.is_file():
        return read_released(path)
    if not path.is_dir():
        raise InputError(f"semantic fragments {path}: no such file or folder")
    files = sorted(p for p in path.glob(f"*/{RELEASED_FILE}") if p.is_file())
    if not files:
        raise InputError(f"semantic fragments {path}: no <fragment>/{RELEASED_FILE} in this folder")
    return [item for file in files for item in read_released(file)]


# The lexicon of the logic fragments -----------------------------------------------------------

NAMES = (
    "Joan", "Bob", "Anna", "Carl", "Dora", "Edwin", "Fay", "Gordon", "Helen", "Ivan", "Jane", "Kevin", "Laura",
    "Marvin", "Nora", "Oscar", "Paula", "Ralph", "Sara", "Tom", "Victor", "Wendy", "Yvonne", "Alice", "Brent",
    "Clara", "Derek", "Emma", "Felix", "Grace", "Harvey", "Irene", "Jesse", "Karen", "Leon", "Maria", "Neil",
    "Olga", "Peter", "Rosa", "Simon", "Tina", "Walter", "Lena", "Hugo", "Mabel", "Ruben", "Vera",
)
COUNTRIES = (
    "France", "Peru", "Japan", "Kenya", "Chile", "Norway", "Egypt", "Nepal", "Ghana", "Italy", "Spain", "Brazil",
    "Canada", "Mexico", "India", "China", "Poland", "Greece", "Cuba", "Iceland", "Laos", "Mali", "Oman", "Qatar",
    "Sweden", "Togo", "Uganda", "Vietnam", "Yemen", "Zambia", "New Zealand", "South Korea", "Sri Lanka",
    "Costa Rica", "Saudi Arabia", "El Salvador", "Sierra Leone", "Burkina Faso",
)
CITIES = (
    "Phoenix", "Boston", "Denver", "Austin", "Portland", "Memphis", "Tulsa", "Fresno", "Omaha", "Reno", "Dayton",
    "Salem", "Toledo", "Tucson", "Savannah", "San Diego", "Las Vegas", "New Orleans", "Kansas City", "Little Rock",
    "Santa Fe", "El Paso", "Fort Worth", "Green Bay", "Ann Arbor", "Palo Alto",
)
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class Sentence:
    """English text and the logical form it realises."""

    text: str
    form: Formula


@dataclass(frozen=True)
class Hypothesis:
    kind: str
    sentence: Sentence


@dataclass(frozen=True)
class Draft:
    """A premise from one template and the hypotheses offered with it (labels still to derive)."""

    template: str
    premise: Sentence
    hypotheses: tuple[Hypothesis, ...]


def listing(words: Sequence[str], conjunction: str = "and") -> str:
    """``A``, ``A and B``, ``A, B and C`` (or another conjunction)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" {conjunction} " + words[-1]


def visited(person: str, place: str) -> Rel:
    return Rel("visited", Const(person), Const(place))


def met(person: str, other: str) -> Rel:
    return Rel("met", Const(person), Const(other))


def taller(person: str, other: str) -> Rel:
    return Rel("taller", Const(person), Const(other))


def only_visited(person: str, places: Sequence[str]) -> Formula:
    """``person`` visited each of ``places`` and no other place."""
    y = Var("y")
    others = Implies(Rel("visited", Const(person), y), disj(*(Rel("eq", y, Const(p)) for p in places)))
    return conj(*(visited(person, p) for p in places), Quant("every", "y", PLACE, others))


def _visit(person: str, target: str, sort: str) -> Rel:
    return visited(person, target) if sort == PLACE else met(person, target)


def did(person: str, target: str, sort: str = PLACE) -> Sentence:
    return Sentence(f"{person} visited {target}", _visit(person, target, sort))


def did_not(person: str, target: str, sort: str = PLACE) -> Sentence:
    return Sentence(f"{person} didn't visit {target}", Not(_visit(person, target, sort)))


def _people_and_places(rng: random.Random, people: int, places: int,
                       pool: Sequence[str] = COUNTRIES) -> tuple[list[str], list[str]]:
    return rng.sample(NAMES, people), rng.sample(list(pool), places)


# Negation: "A has only visited X, B has only visited Y" -> "B didn't visit Z".

def draft_negation(rng: random.Random) -> Draft:
    size = rng.randint(2, 4)
    people, places = _people_and_places(rng, size + 1, size + 1)
    absent, fresh = people.pop(), places.pop()
    premise = Sentence(", ".join(f"{a} has only visited {x}" for a, x in zip(people, places)),
                       conj(*(only_visited(a, [x]) for a, x in zip(people, places))))
    k = rng.randrange(len(people))
    person, own = people[k], places[k]
    other = rng.choice([p for p in places if p != own] + [fresh])
    return Draft("only", premise, (
        Hypothesis("negated-own", did_not(person, own)), Hypothesis("negated-other", did_not(person, other)),
        Hypothesis("negated-unmentioned", did_not(absent, own)), Hypothesis("affirmed-own", did(person, own)),
        Hypothesis("affirmed-other", did(person, other)), Hypothesis("affirmed-unmentioned", did(absent, own)),
    ))


# Boolean: conjoined and disjoined subjects and objects.

def draft_boolean(rng: random.Random) -> Draft:
    template = rng.choice(("and-subjects", "and-objects", "or-subjects", "or-objects", "neither-nor"))
    people, places = _people_and_places(rng, rng.randint(2, 4) + 1, rng.randint(2, 4) + 1)
    absent, fresh = people.pop(), places.pop()
    if template == "and-subjects":
        subjects, objects = people, places[:1]
        premise = Sentence(f"{listing(subjects)} have only visited {objects[0]}",
                           conj(*(only_visited(a, objects) for a in subjects)))
    elif template == "and-objects":
        subjects, objects = people[:1], places
        premise = Sentence(f"{subjects[0]} has only visited {listing(objects)}", only_visited(subjects[0], objects))
    elif template == "or-subjects":
        subjects, objects = people[:2], places[:1]
        premise = Sentence(f"{subjects[0]} or {subjects[1]} has visited {objects[0]}",
                           disj(*(visited(a, objects[0]) for a in subjects)))
    elif template == "or-objects":
        subjects, objects = people[:1], places[:2]
        premise = Sentence(f"{subjects[0]} has visited {objects[0]} or {objects[1]}",
                           disj(*(visited(subjects[0], x) for x in objects)))
    else:
        subjects, objects = people[:1], places[:2]
        premise = Sentence(f"{subjects[0]} has visited neither {objects[0]} nor {objects[1]}",
                           conj(*(Not(visited(subjects[0], x)) for x in objects)))
    targets = [*objects, fresh]
    pairs = [(x, y) for k, x in enumerate(targets) for y in targets[k + 1:]]
    hypotheses = [Hypothesis(kind, make(a, x)) for a in [*subjects, absent] for x in targets
                  for kind, make in (("negated", did_not), ("affirmed", did))]
    hypotheses += [h for a in [*subjects, absent] for x, y in pairs for h in (
        Hypothesis("disjoined", Sentence(f"{a} visited {x} or {y}", disj(visited(a, x), visited(a, y)))),
        Hypothesis("neither-nor", Sentence(f"{a} visited neither {x} nor {y}",
                                           conj(Not(visited(a, x)), Not(visited(a, y))))))]
    return Draft(template, premise, tuple(hypotheses))


# Quantifier: everyone / someone / nobody over people and places.

def _everyone(body: Callable[[Var], Formula]) -> Formula:
    return Quant("every", "x", PERSON, body(Var("x")))


def _someone(body: Callable[[Var], Formula]) -> Formula:
    return Quant("some", "x", PERSON, body(Var("x")))


def draft_quantifier(rng: random.Random) -> Draft:
    template = rng.choice(("everyone-listed", "everyone-every-place", "everyone-every-person",
                           "someone-everything", "nobody-listed", "someone-listed"))
    people, places = _people_and_places(rng, 2, rng.randint(1, 3) + 1)
    fresh = places.pop()
    y, z = Var("y"), Var("z")

    def visits(x: Var, place: str) -> Rel:
        return Rel("visited", x, Const(place))

    if template == "everyone-listed":
        premise = Sentence(f"Everyone has visited {listing(places)}",
                           _everyone(lambda x: conj(*(visits(x, p) for p in places))))
    elif template == "everyone-every-place":
        premise = Sentence("Everyone has visited every place",
                           _everyone(lambda x: Quant("every", "y", PLACE, Rel("visited", x, y))))
    elif template == "everyone-every-person":
        premise = Sentence("Everyone has visited every person",
                           _everyone(lambda x: Quant("every", "y", PERSON, Rel("met", x, y))))
    elif template == "someone-everything":
        premise = Sentence("Someone has visited every person and every place",
                           _someone(lambda x: conj(Quant("every", "y", PERSON, Rel("met", x, y)),
                                                   Quant("every", "z", PLACE, Rel("visited", x, z)))))
    elif template == "nobody-listed":
        premise = Sentence(f"Nobody has visited {listing(places, 'or')}",
                           _everyone(lambda x: Not(disj(*(visits(x, p) for p in places)))))
    else:
        premise = Sentence(f"Someone has visited {listing(places)}",
                           _someone(lambda x: conj(*(visits(x, p) for p in places))))
    person, other = people
    targets = [(p, PLACE) for p in [*places, fresh]] + [(other, PERSON)]
    hypotheses: list[Hypothesis] = []
    for target, sort in targets:
        def atom(x: Var, target: str = target, sort: str = sort) -> Rel:
            return Rel("visited" if sort == PLACE else "met", x, Const(target))
        hypotheses += [
            Hypothesis("named-negated", did_not(person, target, sort)),
            Hypothesis("named-affirmed", did(person, target, sort)),
            Hypothesis("someone", Sentence(f"Someone visited {target}", _someone(atom))),
            Hypothesis("someone-not", Sentence(f"Someone didn't visit {target}", _someone(lambda x: Not(atom(x))))),
            Hypothesis("nobody", Sentence(f"Nobody visited {target}", _everyone(lambda x: Not(atom(x))))),
            Hypothesis("everyone", Sentence(f"Everyone visited {target}", _everyone(atom))),
        ]
    return Draft(template, premise, tuple(hypotheses))


# Counting: how many places (and people) someone visited.

def how_many(person: str, sort: str, op: str, number: int) -> Formula:
    """How many places (or other people) ``person`` visited, compared by ``op`` with ``number``."""
    x = Var("x")
    if sort == PLACE:
        return Count("x", PLACE, Rel("visited", Const(person), x), op, number)
    return Count("x", PERSON, conj(Rel("met", Const(person), x), Not(Rel("eq", x, Const(person)))), op, number)


def _noun(sort: str, number: int) -> str:
    word = "place" if sort == PLACE else "person"
    return word if number == 1 else ("places" if sort == PLACE else "people")


def _count_phrase(number: int, sort: str) -> str:
    return f"{NUMBER_WORDS[number]} {_noun(sort, number)}"


def draft_counting(rng: random.Random) -> Draft:
    template = rng.choice(("listed", "only-listed", "only-n", "only-n-and-m", "only-n-or-m"))
    person = rng.choice(NAMES)
    others = [n for n in NAMES if n != person]
    sort = rng.choice((PLACE, PERSON))
    pool = list(COUNTRIES) if sort == PLACE else others
    sizes = {PLACE: rng.randint(2, 5), PERSON: rng.randint(2, 5)}
    if template in ("listed", "only-listed"):
        named = rng.sample(pool, sizes[sort])
        names = listing(named)
        if sort == PLACE:
            form = conj(*(visited(person, p) for p in named)) if template == "listed" else only_visited(person, named)
        else:
            every = conj(*(met(person, p) for p in named))
            form = every if template == "listed" else conj(every, how_many(person, PERSON, "=", len(named)))
        text = f"{person} has visited {names}" if template == "listed" else f"{person} has visited only {names}"
        premise = Sentence(text, form)
    elif template == "only-n":
        premise = Sentence(f"{person} has visited only {_count_phrase(sizes[sort], sort)}",
                           how_many(person, sort, "=", sizes[sort]))
    else:
        both = [how_many(person, s, "=", sizes[s]) for s in (PLACE, PERSON)]
        word = "and" if template == "only-n-and-m" else "or"
        premise = Sentence(f"{person} has visited only {_count_phrase(sizes[PLACE], PLACE)} {word} only "
                           f"{_count_phrase(sizes[PERSON], PERSON)}", conj(*both) if word == "and" else disj(*both))
    size = sizes[sort]
    hypotheses: list[Hypothesis] = []
    for k in sorted({size - 1, size, size + 1} - {0}):
        hypotheses += [
            Hypothesis("more-than", Sentence(f"{person} has visited more than {_count_phrase(k, sort)}",
                                             how_many(person, sort, ">", k))),
            Hypothesis("less-than", Sentence(f"{person} has visited less than {_count_phrase(k + 1, sort)}",
                                             how_many(person, sort, "<", k + 1))),
        ]
        named = rng.sample(pool, k)
        facts = conj(*(_visit(person, n, sort) for n in named))
        hypotheses.append(Hypothesis("listed", Sentence(f"{person} has visited {listing(named)}", facts)))
    return Draft(template, premise, tuple(hypotheses))


# Conditional: facts and one "if ... then ...".

def draft_conditional(rng: random.Random) -> Draft:
    """Three facts and "if A then C": the antecedent is one of the facts (modus ponens), its
    denial (denied antecedent), or unstated beside the denied consequent (modus tollens) or the
    stated consequent (affirmed consequent)."""
    template = rng.choice(("modus-ponens", "denied-antecedent", "modus-tollens", "affirmed-consequent"))
    people, places = _people_and_places(rng, 6, 6, CITIES)

    def fact(k: int, positive: bool) -> Sentence:
        verb = "has visited" if positive else "has not visited"
        atom = visited(people[k], places[k])
        return Sentence(f"{people[k]} {verb} {places[k]}", atom if positive else Not(atom))

    signs = [rng.random() < 0.5 for _ in range(3)] + [rng.random() < 0.7, rng.random() < 0.7, rng.random() < 0.5]
    facts = [fact(k, signs[k]) for k in range(3)]
    k = rng.randrange(3)
    consequent, denied = fact(3, signs[3]), fact(3, not signs[3])
    antecedent, antecedent_denied = {
        "modus-ponens": (fact(k, signs[k]), fact(k, not signs[k])),
        "denied-antecedent": (fact(k, not signs[k]), fact(k, signs[k])),
    }.get(template, (fact(4, signs[4]), fact(4, not signs[4])))
    if template in ("modus-tollens", "affirmed-consequent"):
        facts[k] = denied if template == "modus-tollens" else consequent
    text = ", ".join(f.text for f in facts) + f" and if {antecedent.text} then {consequent.text}"
    premise = Sentence(text, conj(*(f.form for f in facts), Implies(antecedent.form, consequent.form)))
    return Draft(template, premise, (
        Hypothesis("consequent", consequent), Hypothesis("consequent-denied", denied),
        Hypothesis("antecedent", antecedent), Hypothesis("antecedent-denied", antecedent_denied),
        Hypothesis("fact-denied", fact((k + 1) % 3, not signs[(k + 1) % 3])),
        Hypothesis("unmentioned", fact(5, signs[5])),
    ))


# Comparative: "taller than" and "as tall as".

def draft_comparative(rng: random.Random) -> Draft:
    template = rng.choice(("taller-than-list", "as-tall-chain"))
    people = rng.sample(NAMES, rng.randint(4, 6))
    absent = people.pop()
    if template == "taller-than-list":
        top, same, shorter = people[0], people[1], people[2:]
        equal = f"{top} is as tall as {same}" if rng.random() < 0.5 else f"{same} is as tall as {top}"
        premise = Sentence(f"{top} is taller than {listing(shorter)}, {equal}",
                           conj(*(taller(top, s) for s in shorter), Rel("same_height", Const(top), Const(same))))
    else:
        chain, last = people[:-1], people[-1]
        links = [f"{a} is as tall as {b}" for a, b in zip(chain, chain[1:])]
        end = f"{chain[-1]} is taller than {last}" if rng.random() < 0.5 else f"{last} is shorter than {chain[-1]}"
        premise = Sentence(", ".join([*links, end]),
                           conj(*(Rel("same_height", Const(a), Const(b)) for a, b in zip(chain, chain[1:])),
                                taller(chain[-1], last)))
    hypotheses = tuple(
        h for a in [*people, absent] for b in people if a != b
        for h in (Hypothesis("taller", Sentence(f"{a} is taller than {b}", taller(a, b))),
                  Hypothesis("shorter", Sentence(f"{a} is shorter than {b}", taller(b, a))),
                  Hypothesis("as-tall", Sentence(f"{a} is as tall as {b}", Rel("same_height", Const(a), Const(b))))))
    return Draft(template, premise, hypotheses)


DRAFTS: dict[str, Callable[[random.Random], Draft]] = {
    "negation": draft_negation, "boolean": draft_boolean, "quantifier": draft_quantifier,
    "counting": draft_counting, "conditional": draft_conditional, "comparative": draft_comparative,
}
# Drafts tried for a wanted label before settling for another.
DRAFT_TRIES = 4


def logic_item(fragment: str, rng: random.Random, wanted: str, family: str) -> ProbeItem:
    """One item of a logic fragment, labelled by :func:`judge`; ``wanted`` steers which of a
    template's hypotheses is kept (to balance labels), never what label it gets."""
    judged: list[tuple[Draft, Hypothesis, Judgement]] = []
    for _ in range(DRAFT_TRIES):
        draft = DRAFTS[fragment](rng)
        hypotheses = list(draft.hypotheses)
        rng.shuffle(hypotheses)
        for hypothesis in hypotheses:
            judged.append((draft, hypothesis, judge(draft.premise.form, hypothesis.sentence.form)))
            if judged[-1][2].label == wanted:
                break
        if judged[-1][2].label == wanted:
            break
    draft, hypothesis, judgement = judged[-1] if judged[-1][2].label == wanted else judged[0]
    meta = {
        "template": draft.template, "hypothesis_kind": hypothesis.kind,
        "domain": {"people": list(judgement.domain.people), "places": list(judgement.domain.places)},
        "with_hypothesis": judgement.with_hypothesis.describe() if judgement.with_hypothesis else None,
        "against_hypothesis": judgement.against_hypothesis.describe() if judgement.against_hypothesis else None,
    }
    return ProbeItem(draft.premise.text, hypothesis.sentence.text, judgement.label.value, SUITE_NAME, fragment,
                     f"{draft.template}/{hypothesis.kind}", family,
                     show_pair(draft.premise.form, hypothesis.sentence.form), meta)


# Monotonicity: one substitution labelled by polarity and projection ---------------------------

NOUNS = ("dog", "poodle", "beagle", "bulldog", "terrier", "cat", "horse", "stallion", "mare", "pony", "rabbit",
         "mammal", "animal", "bird", "parrot", "sparrow")
INTRANSITIVE = ("waltz", "dance", "move", "run", "sprint", "jog", "swim", "walk", "stroll", "march", "hop", "jump",
                "sleep", "nap")
TRANSITIVE = ("sniff", "smell", "touch", "hit", "kick", "kiss", "lick")
ADJECTIVES = ("old", "young", "brown", "black", "small", "newborn")
# Determiners with the noun number they take ("both": either).
DETERMINER_NUMBER = {"every": "sg", "each": "sg", "a": "sg", "some": "both", "no": "both", "most": "pl",
                     "all": "pl", "several": "pl", "many": "pl"}
SIMPLE_DETERMINERS = ("every", "a", "some", "no", "most")
HARD_DETERMINERS = ("every", "each", "all", "some", "no", "most", "several", "many", "at least", "at most")
NUMERAL_DETERMINERS = ("at least", "at most")
# The label a projected relation licenses. Independence (#) is left out: the calculus derives it
# where it cannot tell ("exactly three" -> "exactly four" is a contradiction it projects to #),
# so it licenses no label.
MONOTONE_LABELS = {
    Relation.EQUIVALENCE: NLILabel.ENTAILMENT, Relation.FORWARD: NLILabel.ENTAILMENT,
    Relation.NEGATION: NLILabel.CONTRADICTION, Relation.ALTERNATION: NLILabel.CONTRADICTION,
    Relation.REVERSE: NLILabel.NEUTRAL, Relation.COVER: NLILabel.NEUTRAL,
}


# Lexical relations every context projects alike with or without a restrictive modifier on the way.
MONOTONE_RELATIONS = frozenset({Relation.EQUIVALENCE, Relation.FORWARD, Relation.REVERSE})


@dataclass(frozen=True)
class Slot:
    """A word of a monotonicity premise that may be substituted: its 0-based index, what it is
    (noun, verb, determiner, number), the Penn tag a substitute takes and, for verbs, which list."""

    index: int
    kind: str
    tag: str = ""
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Substitution:
    """One word replaced, with the derivation of its label."""

    hypothesis: str
    site: int
    old: str
    new: str
    lemma: str
    lexical: Relation
    why: str
    polarity: str
    projected: Relation
    label: NLILabel
    form: str


@dataclass(frozen=True)
class Premise:
    """A built monotonicity premise: its words, its slots, and the head each content word must
    have in a parse that reads the sentence as built (word index -> head index, -1 the root)."""

    words: tuple[str, ...]
    slots: tuple[Slot, ...]
    heads: tuple[tuple[int, int], ...]

    def parsed_as_built(self, polarized: PolarizedSentence) -> bool:
        """Whether the parser attached every content word where the template put it (a misparse
        would put the polarity marks, and so the labels, on the wrong structure)."""
        return all(polarized.token(i + 1).token.head == h + 1 for i, h in self.heads)


class _Builder:
    """A premise under construction: its words, slots and expected heads."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.slots: list[Slot] = []
        self.heads: dict[int, int] = {}

    def add(self, word: str, slot: Slot | None = None) -> int:
        if slot is not None:
            self.slots.append(replace(slot, index=len(self.words)))
        self.words.append(word)
        return len(self.words) - 1

    def noun_phrase(self, rng: random.Random, determiners: Sequence[str]) -> int:
        """A determiner (or numeral), maybe an adjective, and an animal noun agreeing in number;
        returns the noun's index."""
        determiner = rng.choice(determiners)
        if determiner in NUMERAL_DETERMINERS:
            for word in determiner.split():
                self.add(word)
            dependents = [self.add(str(rng.randint(2, 5)), Slot(0, "number"))]
            plural = True
        else:
            number = DETERMINER_NUMBER[determiner]
            plural = number == "pl" or number == "both" and rng.random() < 0.5
            choices = tuple(d for d in determiners if d not in NUMERAL_DETERMINERS)
            dependents = [self.add(determiner, Slot(0, "determiner", "pl" if plural else "sg", choices))]
        if rng.random() < 0.4:
            dependents.append(self.add(rng.choice(ADJECTIVES)))
        tag = "NNS" if plural else "NN"
        noun = self.add(_inflected(rng.choice(NOUNS), tag, "NOUN"), Slot(0, "noun", tag, NOUNS))
        self.heads.update({d: noun for d in dependents})
        return noun

    def verb(self, rng: random.Random, choices: tuple[str, ...], head: int, tag: str = "VBD") -> int:
        verb = self.add(_inflected(rng.choice(choices), tag, "VERB"), Slot(0, "verb", tag, choices))
        self.heads[verb] = head
        return verb

    def predicate(self, rng: random.Random, determiners: Sequence[str], subject: int, head: int) -> None:
        """The verb of ``subject`` (attached to ``head``): intransitive, negated ("did not run")
        or transitive with an object."""
        if rng.random() < 0.25:
            self.add("did")
            self.add("not")
            verb = self.verb(rng, INTRANSITIVE, head, "VB")
        elif rng.random() < 0.5:
            verb = self.verb(rng, INTRANSITIVE, head)
        else:
            verb = self.verb(rng, TRANSITIVE, head)
            self.heads[self.noun_phrase(rng, determiners)] = verb
        self.heads[subject] = verb


def _inflected(lemma: str, tag: str, upos: str) -> str:
    form = inflect(lemma, tag, upos)
    if form is None:
        raise ValueError(f"no {tag} form of {lemma!r}")
    return form


def monotonicity_premise(rng: random.Random, hard: bool) -> Premise:
    """A premise in the released files' style: "every old dog sniffed some cats" (simple), with a
    subject relative clause and numerals ("at least 3 dogs who kissed no cat ran") when ``hard``."""
    determiners = HARD_DETERMINERS if hard else SIMPLE_DETERMINERS
    built = _Builder()
    subject = built.noun_phrase(rng, determiners)
    if hard:
        built.add("who")
        if rng.random() < 0.5:
            built.verb(rng, INTRANSITIVE, subject)
        else:
            relative = built.verb(rng, TRANSITIVE, subject)
            built.heads[built.noun_phrase(rng, determiners)] = relative
    built.predicate(rng, determiners, subject, -1)
    return Premise(tuple(fix_articles(built.words)), tuple(built.slots), tuple(sorted(built.heads.items())))


def fix_articles(words: list[str]) -> list[str]:
    """``a``/``an`` agreeing with the word after each (a copy)."""
    fixed = list(words)
    for index in range(1, len(fixed)):
        fix_article(fixed, index)
    return fixed


def substitutes(slot: Slot, word: str) -> list[tuple[str, str]]:
    """(form, lemma) of each word that may replace ``word`` in ``slot``: nouns and verbs of the
    slot's list inflected alike, determiners of the same noun number, numerals one or two away (2 and up: the noun stays plural)."""
    if slot.kind == "number":
        value = int(word)
        return [(str(m), str(m)) for m in (value - 2, value - 1, value + 1, value + 2) if m >= 2]
    if slot.kind == "determiner":
        old = "a" if word.lower() == "an" else word.lower()
        return [(d, d) for d in slot.choices if d != old and DETERMINER_NUMBER[d] in (slot.tag, "both")]
    upos = "NOUN" if slot.kind == "noun" else "VERB"
    return [(form, lemma) for lemma in slot.choices if (form := _inflected(lemma, slot.tag, upos)) != word]


def in_relative_clause(sentence: ParsedSentence, token_id: int) -> bool:
    """Whether the word lies in a relative clause (its path to the root passes an ``acl`` dependent)."""
    while token_id:
        token = sentence.token(token_id)
        if token.deprel.startswith("acl"):
            return True
        token_id = token.head
    return False


def substitution(polarized: PolarizedSentence, site: int, new: str, lemma: str,
                 settings: Settings) -> Substitution | None:
    """Replace word ``site`` (1-based) of the polarized premise by ``new`` (lemma ``lemma``): the
    lexical relation (:func:`word_relation`) projected through the word's context gives the label.

    None when WordNet and the determiner table relate the words by nothing, when the projection
    is #, and for an exclusion (^, ‿, |) inside a relative clause: a restrictive modifier projects
    ^ to | and ‿ to # ("dog who saw some cat" | "dog who saw no cat": neither covers the non-dogs),
    a step the polarity marker's trigger chain does not take; ≡, ⊏ and ⊐ pass through it unchanged.
    """
    token = polarized.token(site)
    lexical = word_relation(token.token, replace(token.token, text=new, lemma=lemma), settings)
    if lexical.relation is None or (lexical.relation not in MONOTONE_RELATIONS
                                    and in_relative_clause(polarized.sentence, site)):
        return None
    projected = token.projection[RELATION_ORDER.index(lexical.relation)]
    label = MONOTONE_LABELS.get(projected)
    if label is None:
        return None
    words = [t.token.text for t in polarized.tokens]
    words[site - 1] = new
    hypothesis = " ".join(fix_articles(words))
    form = (f"{polarized.marked} ⊢ {token.token.text}→{new} ({lexical.relation.symbol}) at "
            f"{token.polarity.mark} ⇒ {projected.symbol}")
    return Substitution(hypothesis, site, token.token.text, new, lemma, lexical.relation, lexical.why,
                        token.polarity.mark, projected, label, form)


def polarized_premise(premise: str, settings: Settings) -> PolarizedSentence:
    """The premise parsed one token per word and polarized."""
    return polarize(parse(premise, pretokenized=True, settings=settings))


def monotonicity_item(fragment: str, rng: random.Random, wanted: str, family: str,
                      settings: Settings) -> ProbeItem:
    """One monotonicity item: a fresh premise the parser reads as built, and one of its labelled
    substitutions, of the ``wanted`` label where the premise offers one."""
    tries = 0
    while True:
        premise = monotonicity_premise(rng, hard=fragment == "monotonicity_hard")
        polarized = polarized_premise(" ".join(premise.words), settings)
        if not premise.parsed_as_built(polarized):
            continue
        found = [(slot, s) for slot in premise.slots for new, lemma in substitutes(slot, premise.words[slot.index])
                 if (s := substitution(polarized, slot.index + 1, new, lemma, settings)) is not None]
        matching = [pair for pair in found if pair[1].label == wanted]
        tries += 1
        if matching or found and tries >= DRAFT_TRIES:
            break
    slot, chosen = rng.choice(matching or found)
    meta = {"site": chosen.site, "old": chosen.old, "new": chosen.new, "new_lemma": chosen.lemma,
            "lexical": chosen.lexical.symbol, "why": chosen.why, "polarity": chosen.polarity,
            "projected": chosen.projected.symbol}
    return ProbeItem(" ".join(premise.words), chosen.hypothesis, chosen.label.value, SUITE_NAME, fragment,
                     f"{slot.kind}{chosen.polarity}", family, chosen.form, meta)


# The suite: generate and check ----------------------------------------------------------------

def generate(n: int, seed: int, settings: Settings) -> list[ProbeItem]:
    """About ``n`` items, the fragments taking turns (:data:`FRAGMENTS` order) and each fragment's
    wanted labels cycling, so fragments and labels stay balanced; every label is derived."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"the fragments suite needs a positive number of items, got {n!r}")
    rng = random.Random(seed)
    items = []
    for k in range(n):
        fragment = FRAGMENTS[k % len(FRAGMENTS)]
        wanted = LABELS[(k // len(FRAGMENTS)) % len(LABELS)].value
        family = f"fragments-{seed}-{k:04d}"
        if fragment in MONOTONICITY_FRAGMENTS:
            items.append(monotonicity_item(fragment, rng, wanted, family, settings))
        else:
            items.append(logic_item(fragment, rng, wanted, family))
    return items


def check(item: ProbeItem, settings: Settings) -> None:
    """Re-derive the label of a generated item from its form: logic fragments by :func:`judge`
    over the logical forms, monotonicity by polarizing the premise again and projecting the
    substitution again. ProbeCheckError when the label (or the derivation) differs."""
    if item.category in LOGIC_FRAGMENTS:
        try:
            derived = judge(*read_pair(item.form)).label.value
        except FormError as exc:
            raise ProbeCheckError(f"item form {item.form!r}: {exc}") from None
        if derived != item.label:
            raise ProbeCheckError(f"item form {item.form!r} is labelled {item.label}, but its situations say {derived}")
        return
    if item.category not in MONOTONICITY_FRAGMENTS:
        raise ProbeCheckError(f"no check for fragment {item.category!r}")
    meta = item.meta
    if not isinstance(meta.get("site"), int) or not all(isinstance(meta.get(k), str) for k in ("new", "new_lemma")):
        raise ProbeCheckError(f"monotonicity item {item.premise!r}: meta needs site, new and new_lemma")
    polarized = polarized_premise(item.premise, settings)
    if not 1 <= meta["site"] <= len(polarized.tokens):
        raise ProbeCheckError(f"monotonicity item {item.premise!r}: no word {meta['site']}")
    again = substitution(polarized, meta["site"], meta["new"], meta["new_lemma"], settings)
    if again is None:
        raise ProbeCheckError(f"monotonicity item {item.premise!r}: the substitution no longer licenses a label")
    if (again.hypothesis, again.label.value, again.form) != (item.hypothesis, item.label, item.form):
        raise ProbeCheckError(f"monotonicity item {item.premise!r} -> {item.hypothesis!r} is labelled "
                                 f"{item.label} ({item.form}), but re-deriving gives {again.label.value} "
                                 f"({again.form})")


# Agreement with the released monotonicity labels ----------------------------------------------

def edit_count(premise: str, hypothesis: str) -> int:
    """How many places two sentences differ in (word-level diff blocks, case ignored)."""
    matcher = difflib.SequenceMatcher(None, premise.lower().split(), hypothesis.lower().split(), autojunk=False)
    return sum(tag != "equal" for tag, *_ in matcher.get_opcodes())


def _scores(rows: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Items, how many the core labelled (coverage), and agreement with the released labels on those."""
    labelled = [(derived, released) for derived, released in rows if derived != UNKNOWN]
    agree = sum(derived == released for derived, released in labelled)
    return {"items": len(rows), "labelled": len(labelled),
            "coverage": round(len(labelled) / len(rows), 3) if rows else None,
            "agree": agree, "agreement": round(agree / len(labelled), 3) if labelled else None,
            "confusion": {f"{r}->{d}": c for (d, r), c in sorted(Counter(labelled).items())}}


def monotonicity_agreement(path: Path | str, limit: int | None = None, *,
                           settings: Settings) -> dict[str, Any]:
    """Relabel the released monotonicity items under ``path`` (a monotonicity file, or the
    fragments folder) with :func:`engine.verify.verifier.verify` and compare with the released labels:
    overall, per fragment, and by how many places premise and hypothesis differ (1, 2, 3+),
    with the verifier's commonest reasons for leaving an item unlabelled. ``limit``: the first
    that many items of each fragment."""
    items = [i for i in read(Path(path)) if i.category in MONOTONICITY_FRAGMENTS]
    if not items:
        raise InputError(f"{path}: no monotonicity items")
    if limit is not None:
        items = [i for f in MONOTONICITY_FRAGMENTS for i in [j for j in items if j.category == f][:limit]]
    rows: list[tuple[ProbeItem, str, str]] = []
    for item in items:
        try:
            verdict = verify(item.premise, item.hypothesis, settings)
            rows.append((item, verdict.label, verdict.reason))
        except InputError as exc:
            rows.append((item, UNKNOWN, str(exc)))
    edits = {i.premise + "\t" + i.hypothesis: edit_count(i.premise, i.hypothesis) for i in items}

    def bucket(item: ProbeItem) -> str:
        count = edits[item.premise + "\t" + item.hypothesis]
        return str(count) if count < 3 else "3+"

    reasons = Counter(reason.split(":")[0] for _, label, reason in rows if label == UNKNOWN)
    return {
        "overall": _scores([(label, i.label) for i, label, _ in rows]),
        "by_fragment": {f: _scores([(label, i.label) for i, label, _ in rows if i.category == f])
                        for f in MONOTONICITY_FRAGMENTS if any(i.category == f for i, _, _ in rows)},
        "by_edits": {b: _scores([(label, i.label) for i, label, _ in rows if bucket(i) == b])
                     for b in ("1", "2", "3+") if any(bucket(i) == b for i, _, _ in rows)},
        "unlabelled_reasons": dict(reasons.most_common(6)),
    }


SUITE = register_suite(Suite(
    name=SUITE_NAME,
    description="semantic fragments (Richardson et al. 2020): negation, boolean, quantifier, counting, "
                "conditional, comparative (labels from a model-theoretic evaluator) and monotonicity "
                "(labels from the polarity marker and WordNet)",
    generate=generate, read=read, check=check, report=None,
))
