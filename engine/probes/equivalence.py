"""The logical-equivalence-laws suite (after Wang et al., "Evaluation of logical equivalence
using auto-generated corpus on BERT"), with every label derived from a truth table.

For a law R (De Morgan, absorption, distributivity, contraposition, ...) and a formula A that
instantiates R's left-hand schema with literals over the atoms p, q, r, the suite builds
``B = R(A)``, ``C`` = the negation of A (a double negation removed) and ``D`` = R applied inside
C (the negation of B where R does not apply in C). A ⇔ B and C ⇔ D give entailment items in both
directions, A/C and B/D contradiction items, and near misses (one atom swapped for a new
predicate or another person, or its polarity flipped) neutral ones. The label of every pair is
what :func:`engine.logic.formulas.nli_relation` says; the generator also asserts it is the label
the pair's role promises (A-B must be an entailment), which is how an unsound law is caught, and
re-runs :func:`check` on every item it emits. Copying labels would not do: the paper's own
contradiction example for P ⇒ Q, ``P → Q`` against ``P → ¬Q``, is neutral (both hold when P is
false).

Atoms are realised as "Name verb-phrase" sentences about one person per family; each connective
has several English forms drawn at random (seeded), so the surface form of a hypothesis does not
give its label away.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.errors import InputError
from engine.core.vocab import NLILabel
from engine.logic.formulas import (
    And,
    Atom,
    Formula,
    FormulaSyntaxError,
    Implies,
    Not,
    Or,
    atoms,
    negate,
    nli_relation,
    parse,
    show,
    substitute,
)
from engine.logic.laws import LAWS, Law, rewrite_first
from engine.probes.record import ProbeItem
from engine.probes.suites import ProbeCheckError, Suite, register_suite

SUITE_NAME = "equivalence"
TURNSTILE = " ⊢ "




def _under_negation(template: Formula) -> set[str]:
    """Metavariables that stand directly under a ``¬`` in ``template`` (given a positive atom, so
    that instantiating never writes a double negation the law did not ask for)."""
    match template:
        case Atom():
            return set()
        case Not(Atom(name)):
            return {name}
        case Not(operand):
            return _under_negation(operand)
        case And(left, right) | Or(left, right) | Implies(left, right):
            return _under_negation(left) | _under_negation(right)


def draw_formula(law: Law, rng: random.Random, negation_rate: float = 0.35) -> Formula:
    """A formula A for ``law``: one of its schemas with P, Q, R as literals over p, q, r (each
    negated with probability ``negation_rate``)."""
    template = rng.choice(law.templates)
    positive = _under_negation(template)
    literals: dict[str, Formula] = {}
    for meta, atom in zip(("P", "Q", "R"), ("p", "q", "r")):
        negated = meta not in positive and rng.random() < negation_rate
        literals[meta] = Not(Atom(atom)) if negated else Atom(atom)
    return substitute(template, literals)


# ---------------------------------------------------------------------------------------------
# English: atoms are "Name verb-phrase"; connectives have several surface forms.


@dataclass(frozen=True)
class Verb:
    """A verb phrase in the third person singular and in the base form taken after "does not"."""

    third: str
    base: str


@dataclass(frozen=True)
class Predication:
    """What an atom says: ``subject`` + ``verb`` ("Anna plays the guitar")."""

    subject: str
    verb: Verb

    def sentence(self) -> str:
        return f"{self.subject} {self.verb.third}"


# (third person, base form) pairs, written out rather than inflected, grouped by semantic field.
VERB_FIELDS: dict[str, tuple[Verb, ...]] = {
    field: tuple(Verb(third, base) for third, base in pairs)
    for field, pairs in {
        "music": (("plays the guitar", "play the guitar"), ("sings in a choir", "sing in a choir"),
                  ("listens to jazz", "listen to jazz"), ("plays the piano", "play the piano"),
                  ("writes songs", "write songs")),
        "sport": (("runs marathons", "run marathons"), ("swims every morning", "swim every morning"),
                  ("plays tennis", "play tennis"), ("rides a bike", "ride a bike"), ("goes skiing", "go skiing")),
        "food": (("eats apples", "eat apples"), ("drinks coffee", "drink coffee"), ("bakes bread", "bake bread"),
                 ("cooks pasta", "cook pasta"), ("likes spicy food", "like spicy food")),
        "travel": (("visits Paris", "visit Paris"), ("flies to Berlin", "fly to Berlin"),
                   ("takes the train", "take the train"), ("rents a car", "rent a car"),
                   ("stays in hotels", "stay in hotels")),
        "work": (("works in a bank", "work in a bank"), ("teaches maths", "teach maths"),
                 ("writes reports", "write reports"), ("answers emails", "answer emails"),
                 ("fixes computers", "fix computers")),
        "study": (("studies physics", "study physics"), ("reads novels", "read novels"),
                  ("learns French", "learn French"), ("watches documentaries", "watch documentaries"),
                  ("has a library card", "have a library card")),
    }.items()
}
VERBS: tuple[Verb, ...] = tuple(verb for verbs in VERB_FIELDS.values() for verb in verbs)
NAMES: tuple[str, ...] = (
    "Anna", "Ben", "Carla", "David", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kemal", "Lena",
    "Marco", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Samir", "Tara", "Umar", "Vera", "Wei", "Xenia",
    "Yusuf", "Zoe", "Aiko", "Bruno", "Chloe", "Diego", "Emma", "Felix",
)


#: Words that open a rendering which marks where a sub-formula starts.
MARKERS = frozenset({"both", "either", "neither", "if", "it"})


@dataclass(frozen=True)
class _Phrase:
    """A rendered sub-formula: a verb phrase of ``subject``, or a full clause (``subject`` None)."""

    text: str
    subject: str | None

    def clause(self) -> str:
        return self.text if self.subject is None else f"{self.subject} {self.text}"


def realise(f: Formula, lexicon: Mapping[str, Predication], rng: random.Random) -> str:
    """An English sentence for ``f``, each connective in a surface form drawn from ``rng``.

    Structure stays unambiguous: a sub-formula inside another connective takes a form that marks
    where it starts ("both", "either", "neither", "if", "it is not the case that"), and a compound
    left conjunct or disjunct is closed by a comma ("either A or B, and C"). Literals sharing a
    subject coordinate as verb phrases ("Anna plays the guitar and does not eat apples"). "Q unless
    P" is used for ¬P → Q only, the reading the conditional laws need.
    """
    text = _render(f, lexicon, rng, nested=False).clause()
    return text[0].upper() + text[1:] + "."


def _render(f: Formula, lexicon: Mapping[str, Predication], rng: random.Random, nested: bool,
            subject_first: bool = False) -> _Phrase:
    """``f`` as a phrase; ``nested`` asks for a form that marks its start, ``subject_first`` for a
    verb phrase where one is possible (so that its clause does not open with a marker)."""
    match f:
        case Atom(name):
            return _Phrase(lexicon[name].verb.third, lexicon[name].subject)
        case Not(Atom(name)):
            return _Phrase(f"does not {lexicon[name].verb.base}", lexicon[name].subject)
        case Not(Or(Atom(first), Atom(second))) if lexicon[first].subject == lexicon[second].subject and rng.random() < 0.5:
            return _Phrase(f"neither {lexicon[first].verb.third} nor {lexicon[second].verb.third}", lexicon[first].subject)
        case Not(operand):
            return _Phrase("it is not the case that " + _render(operand, lexicon, rng, nested=True).clause(), None)
        case And(left, right) | Or(left, right):
            opening = _render(left, lexicon, rng, True, subject_first=nested)
            return _coordinate(f, opening, _render(right, lexicon, rng, True), rng, nested, subject_first)
        case Implies(left, right):
            return _conditional(left, right, lexicon, rng, nested)


def _is_compound(f: Formula) -> bool:
    """Whether ``f`` is more than a literal (its rendering then needs closing before more text)."""
    return not isinstance(f, Atom) and not (isinstance(f, Not) and isinstance(f.operand, Atom))


def _opens_with_marker(text: str) -> bool:
    return text.split(" ", 1)[0] in MARKERS


def _coordinate(f: And | Or, left: _Phrase, right: _Phrase, rng: random.Random, nested: bool,
                subject_first: bool) -> _Phrase:
    """``left`` and/or ``right``, as verb phrases when they share a subject (mostly, always when
    ``subject_first``) or as clauses. A nested one is marked ("both", "either"); a marker never
    stands straight before another ("either either"): the subject goes between them, or at the
    top the marker is left out."""
    word, marker = ("and", "both") if isinstance(f, And) else ("or", "either")
    shared = left.subject is not None and left.subject == right.subject
    verb_level = shared and (subject_first or rng.random() < 0.75)
    if nested and verb_level and _opens_with_marker(left.text):
        verb_level = False
    first, second = (left.text, right.text) if verb_level else (left.clause(), right.clause())
    marked = nested or (not _opens_with_marker(first) and rng.random() < 0.5)
    form = f"{marker} {{}} {word} {{}}" if marked else f"{{}} {word} {{}}"
    if _is_compound(f.left):
        form = form.replace(f" {word} ", f", {word} ")
    return _Phrase(form.format(first, second), left.subject if verb_level else None)


def _conditional(left: Formula, right: Formula, lexicon: Mapping[str, Predication], rng: random.Random, nested: bool) -> _Phrase:
    """"if A, then B"; at the top with a literal consequent also "B if A", and "B unless X" for A = ¬X."""
    antecedent = _render(left, lexicon, rng, True).clause()
    consequent = _render(right, lexicon, rng, True).clause()
    forms = [f"if {antecedent}, then {consequent}"]
    if not nested and not _is_compound(right):
        forms.append(f"{consequent} if {antecedent}")
        if isinstance(left, Not) and isinstance(left.operand, Atom):
            forms.append(f"{consequent} unless {_render(left.operand, lexicon, rng, True).clause()}")
    return _Phrase(rng.choice(forms), None)


# ---------------------------------------------------------------------------------------------
# Items: a family per (law, A); labels from the truth table, checked against the pair's role.

#: The label each pair role promises; a truth table that disagrees means the law is unsound.
ROLE_LABELS: dict[str, NLILabel] = {
    "A-B": NLILabel.ENTAILMENT,
    "C-D": NLILabel.ENTAILMENT,
    "A-C": NLILabel.CONTRADICTION,
    "B-D": NLILabel.CONTRADICTION,
    "neutral": NLILabel.NEUTRAL,
}
NEUTRALS_PER_FAMILY = 4
FRESH_PREDICATE, OTHER_PERSON = "s", "t"  # atoms of the neutral near misses


@dataclass(frozen=True)
class Pair:
    """A directed pair of formulas and its role in the family ("A-B", ..., "neutral")."""

    role: str
    direction: str
    premise: Formula
    hypothesis: Formula


@dataclass(frozen=True)
class FamilyLexicon:
    """The people and verb phrases of one family: atoms p, q, r and the fresh predicate s are
    about ``name``; the other-person near miss says an atom's verb phrase of ``other``."""

    name: str
    other: str
    verbs: Mapping[str, Verb]

    def predication(self, atom: str) -> Predication:
        return Predication(self.name, self.verbs[atom])


def equivalence_pairs(law: Law, a: Formula) -> list[Pair]:
    """The directed pairs of one family: A-B and C-D both ways (C-D left out when C and D are the
    same formula, as for ¬¬p), A-C and B-D both ways."""
    b = law.apply(a)
    if b is None:
        raise ValueError(f"law {law.name} does not apply to {show(a)}")
    c = negate(a)
    d = rewrite_first(law.apply, c)
    if d is None:
        d = negate(b)
    roles = [("A-B", a, b), ("C-D", c, d), ("A-C", a, c), ("B-D", b, d)]
    return [pair for role, x, y in roles if x != y
            for pair in (Pair(role, "forward", x, y), Pair(role, "backward", y, x))]


def _flip(f: Formula, name: str) -> Formula:
    """``f`` with the polarity of atom ``name`` flipped (``p`` ↔ ``¬p``)."""
    match f:
        case Atom(atom) if atom == name:
            return Not(f)
        case Not(Atom(atom)) if atom == name:
            return f.operand
        case Atom():
            return f
        case Not(operand):
            return Not(_flip(operand, name))
        case And(left, right) | Or(left, right) | Implies(left, right):
            return type(f)(_flip(left, name), _flip(right, name))


def _near_misses(formula: Formula) -> list[tuple[str, str, Formula]]:
    """(how, replaced atom, formula) for each one-atom change of ``formula``: the atom swapped
    for a new predicate of the same person, for the same predicate of another person, or its
    polarity flipped."""
    changes = []
    for name in atoms(formula):
        changes.append(("predicate", name, substitute(formula, {name: Atom(FRESH_PREDICATE)})))
        changes.append(("name", name, substitute(formula, {name: Atom(OTHER_PERSON)})))
        changes.append(("polarity", name, _flip(formula, name)))
    return changes


def neutral_pairs(pairs: Sequence[Pair], rng: random.Random) -> list[tuple[Pair, Pair, str, str]]:
    """Up to :data:`NEUTRALS_PER_FAMILY` neutral pairs, each a near miss of one of ``pairs`` (a
    random side changed at a random atom) that the truth table calls neutral; each comes as
    (neutral pair, source pair, how, replaced atom)."""
    found = []
    for source in rng.sample(list(pairs), len(pairs)):
        options = [(side, change) for side in ("premise", "hypothesis")
                   for change in _near_misses(getattr(source, side))]
        rng.shuffle(options)
        for side, (how, name, changed) in options:
            premise, hypothesis = (changed, source.hypothesis) if side == "premise" else (source.premise, changed)
            if nli_relation(premise, hypothesis) == NLILabel.NEUTRAL:
                found.append((Pair("neutral", source.direction, premise, hypothesis), source, how, name))
                break
        if len(found) == NEUTRALS_PER_FAMILY:
            break
    return found


def _item(law: Law, pair: Pair, lexicon: Mapping[str, Predication], family: str, rng: random.Random,
          extra: Mapping[str, Any]) -> ProbeItem:
    """One checked item for ``pair``; ProbeCheckError when the truth table contradicts its role."""
    label = nli_relation(pair.premise, pair.hypothesis)
    form = f"{show(pair.premise)}{TURNSTILE}{show(pair.hypothesis)}"
    if label != ROLE_LABELS[pair.role]:
        raise ProbeCheckError(f"law {law.name}: the {pair.role} pair {form} is {label}, "
                              f"not {ROLE_LABELS[pair.role]}: the law's rewrite is unsound")
    used = sorted(set(atoms(pair.premise)) | set(atoms(pair.hypothesis)))
    item = ProbeItem(
        premise=realise(pair.premise, lexicon, rng),
        hypothesis=realise(pair.hypothesis, lexicon, rng),
        label=str(label),
        suite=SUITE_NAME,
        category=law.name,
        group=pair.direction,
        family=family,
        form=form,
        meta={"pair": pair.role, "direction": pair.direction,
              "atoms": {name: lexicon[name].sentence() for name in used}, **extra},
    )
    check(item)
    return item


def build_family(law: Law, a: Formula, words: FamilyLexicon, family: str, rng: random.Random) -> list[ProbeItem]:
    """Every item of the family of (``law``, ``a``): equivalences both ways, contradictions,
    then neutral near misses. Raises ProbeCheckError if ``law`` is not an equivalence."""
    lexicon = {atom: words.predication(atom) for atom in words.verbs}
    pairs = equivalence_pairs(law, a)
    items = [_item(law, pair, lexicon, family, rng, {}) for pair in pairs]
    for pair, source, how, name in neutral_pairs(pairs, rng):
        lexicon_here = {**lexicon, OTHER_PERSON: Predication(words.other, words.verbs[name])}
        items.append(_item(law, pair, lexicon_here, family, rng,
                           {"source_pair": source.role, "neutral_by": how, "replaced_atom": name}))
    return items


def _family_words(name: str, rng: random.Random) -> FamilyLexicon:
    """Four distinct verb phrases (p, q, r and the fresh s) for ``name``, and another person."""
    verbs = rng.sample(VERBS, 4)
    other = rng.choice([candidate for candidate in NAMES if candidate != name])
    return FamilyLexicon(name, other, dict(zip(("p", "q", "r", FRESH_PREDICATE), verbs)))


def generate(n: int, seed: int) -> list[ProbeItem]:
    """``n`` checked items: families cycle through the laws (a fresh random order each round, so
    categories stay balanced), one person per family, names cycling before they repeat."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"the equivalence suite needs a positive number of items, got {n!r}")
    rng = random.Random(seed)
    names: list[str] = []
    laws: list[Law] = []
    items: list[ProbeItem] = []
    family = 0
    while len(items) < n:
        if not laws:
            laws = rng.sample(LAWS, len(LAWS))
        if not names:
            names = rng.sample(NAMES, len(NAMES))
        law = laws.pop()
        words = _family_words(names.pop(), rng)
        items.extend(build_family(law, draw_formula(law, rng), words, f"eq-{seed}-{family:04d}", rng))
        family += 1
    return items[:n]


def check(item: ProbeItem) -> None:
    """Re-derive the label of ``item`` from its ``form`` ("premise ⊢ hypothesis") by truth table;
    ProbeCheckError when the form cannot be read, an atom has no English, or the label differs."""
    parts = item.form.split(TURNSTILE)
    if len(parts) != 2:
        raise ProbeCheckError(f"item form {item.form!r} is not 'premise{TURNSTILE}hypothesis'")
    try:
        premise, hypothesis = parse(parts[0]), parse(parts[1])
        derived = nli_relation(premise, hypothesis)
    except (FormulaSyntaxError, ValueError) as exc:
        raise ProbeCheckError(f"item form {item.form!r}: {exc}") from None
    missing = set(atoms(premise)) | set(atoms(hypothesis))
    missing -= set(item.meta.get("atoms", {}))
    if missing:
        raise ProbeCheckError(f"item form {item.form!r}: no English for atom(s) {', '.join(sorted(missing))}")
    if derived != item.label:
        raise ProbeCheckError(f"item form {item.form!r} is labelled {item.label}, but its truth table says {derived}")


# ---------------------------------------------------------------------------------------------
# Reports: whether each equivalence is recognised in both directions, and accuracy per pair role.


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _law_order(items: Sequence[ProbeItem]) -> list[str]:
    """The laws present, in :data:`LAWS` order, any other category after them."""
    present = {item.category for item in items}
    known = [law.name for law in LAWS if law.name in present]
    return known + sorted(present - set(known))


def both_directions(items: Sequence[ProbeItem], predicted: Sequence[str]) -> list[dict[str, Any]]:
    """Per law (and over all), for the equivalences A ⇔ B and C ⇔ D: how many were recognised
    (entailment predicted in both directions), accuracy on each direction alone, how many were
    got right in one direction only, and what was predicted instead in a failed direction."""
    outcomes: dict[str, dict[tuple[str, str], dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for item, label in zip(items, predicted):
        if item.meta.get("pair") in ("A-B", "C-D"):
            outcomes[item.category][(item.family, item.meta["pair"])][item.meta["direction"]] = label
    rows = [_direction_row(law, list(outcomes[law].values())) for law in _law_order(items) if law in outcomes]
    everything = [directions for law in outcomes.values() for directions in law.values()]
    return rows + [_direction_row("all", everything)]


def _direction_row(law: str, equivalences: list[dict[str, str]]) -> dict[str, Any]:
    entail = str(NLILabel.ENTAILMENT)
    row: dict[str, Any] = {"law": law}
    complete = [said for said in equivalences if "forward" in said and "backward" in said]
    row["equivalences"] = len(complete)
    row["recognised"] = sum(said["forward"] == entail and said["backward"] == entail for said in complete)
    row["recognised_rate"] = _ratio(row["recognised"], len(complete))
    for direction, other in (("forward", "backward"), ("backward", "forward")):
        said = [labels[direction] for labels in equivalences if direction in labels]
        row[f"{direction}_accuracy"] = _ratio(sum(label == entail for label in said), len(said))
        row[f"{direction}_only"] = sum(labels[direction] == entail and labels[other] != entail for labels in complete)
        for wrong in (NLILabel.NEUTRAL, NLILabel.CONTRADICTION):
            row[f"{direction}_said_{wrong}"] = sum(label == wrong for label in said)
    return row


def per_pair_role(items: Sequence[ProbeItem], predicted: Sequence[str]) -> list[dict[str, Any]]:
    """Accuracy per law × pair role (A-B, C-D, A-C, B-D, neutral)."""
    cells: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for item, label in zip(items, predicted):
        cells[(item.category, item.meta.get("pair", ""))].append(label == item.label)
    rows = []
    for law in _law_order(items):
        for role in [*ROLE_LABELS, ""]:
            hits = cells.get((law, role))
            if hits:
                rows.append({"law": law, "pair": role or "?", "n": len(hits), "correct": sum(hits),
                             "accuracy": sum(hits) / len(hits)})
    return rows


def report(items: Sequence[ProbeItem], predicted: Sequence[str], probs: Sequence[Sequence[float]]) -> dict[str, list[dict[str, Any]]]:
    """The suite's own tables (probabilities are not needed for them)."""
    if len(items) != len(predicted):
        raise InputError(f"{len(items)} items but {len(predicted)} predictions")
    return {"both_directions": both_directions(items, predicted), "per_pair_role": per_pair_role(items, predicted)}


SUITE = register_suite(Suite(
    name=SUITE_NAME,
    description="Logical equivalence laws (De Morgan, absorption, distributivity, contraposition, ...) "
                "as NLI pairs in both directions, with their negations and near misses; labels from truth tables.",
    generate=generate,
    check=check,
    report=report,
))
