"""Situations: a small model-theoretic evaluator for the semantic-fragment probes.

The fragment generators (:mod:`engine.probes.fragments`) write each premise and hypothesis as a
tiny logical form and label the pair by reasoning over every *situation* consistent with the
premise, never by hand: entailment when the hypothesis is true in every situation where the
premise is, contradiction when it is false in every one, neutral otherwise.

A situation is a finite domain of people and places with who visited which place
(``visited(Joan, Paris)``), who visited which person (``met(Joan, Bob)``, realised "Joan has
visited Bob") and each person's height (``taller``, ``same_height``). Formulas are frozen
dataclasses: atoms over terms, ``¬ ∧ ∨ →``, ``∀``/``∃`` over a sort and counts
``#x:place(φ) = 3`` (also ``>`` and ``<``). Distinct names denote distinct individuals, and
there is always at least one person and one place.

**The bound, and why it is enough.** A pair is decided over one finite domain: the named
individuals of both formulas plus, per sort, as many anonymous ones as the formulas can ask
for as witnesses (:func:`bounded_domain`): one per existential, n (or n + 1) per count, adding
up the premise's need and the larger of the hypothesis's and its negation's. This is exact for
every formula the evaluator accepts, which in negation normal form have no existential (or
count needing witnesses) under a universal, and counts over quantifier-free bodies (the
Bernays–Schönfinkel shape; :func:`bounded_domain` refuses others): if some situation satisfies
P ∧ H (or P ∧ ¬H), keeping only the named individuals and the witnesses its true existentials
and counts use still satisfies it, since a universal stays true on fewer individuals, kept
witnesses keep existentials and counts true, and a quantifier-free body keeps its truth value
on the individuals kept. Heights only ever compare two people, so ranks 0..k-1 for the k people
realise every ordering of their heights. Within that domain the search below is exhaustive:
it branches on every atom the formula still depends on, pruning only branches already false.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import reduce
from typing import TypeAlias

from engine.core.vocab import NLILabel

PERSON, PLACE = "person", "place"
SORTS = (PERSON, PLACE)
# Relation name -> the sorts of its two arguments (None: either, as the other side's).
RELATIONS: dict[str, tuple[str | None, str | None]] = {
    "visited": (PERSON, PLACE), "met": (PERSON, PERSON),
    "taller": (PERSON, PERSON), "same_height": (PERSON, PERSON), "eq": (None, None),
}
COMPARISONS = ("=", ">", "<")
TURNSTILE = " ⊢ "


class FormError(ValueError):
    """A logical form the evaluator cannot read or decide."""


# Formulas ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Const:
    """A named individual ("Joan", "New York")."""

    name: str


@dataclass(frozen=True)
class Var:
    """A variable bound by a quantifier or a count."""

    name: str


Term: TypeAlias = Const | Var


@dataclass(frozen=True)
class Rel:
    """An atom ``name(left, right)`` over a relation of :data:`RELATIONS`."""

    name: str
    left: Term
    right: Term

    def __post_init__(self) -> None:
        if self.name not in RELATIONS:
            raise FormError(f"unknown relation {self.name!r}; use one of {', '.join(RELATIONS)}")


@dataclass(frozen=True)
class Not:
    body: Formula


@dataclass(frozen=True)
class And:
    parts: tuple[Formula, ...]


@dataclass(frozen=True)
class Or:
    parts: tuple[Formula, ...]


@dataclass(frozen=True)
class Implies:
    left: Formula
    right: Formula


@dataclass(frozen=True)
class Quant:
    """``∀var:sort(body)`` (kind "every") or ``∃var:sort(body)`` (kind "some")."""

    kind: str
    var: str
    sort: str
    body: Formula


@dataclass(frozen=True)
class Count:
    """``#var:sort(body) op number``: how many individuals of the sort satisfy the body."""

    var: str
    sort: str
    body: Formula
    op: str
    number: int


Formula: TypeAlias = Rel | Not | And | Or | Implies | Quant | Count


def conj(*parts: Formula) -> Formula:
    """The conjunction of ``parts`` (a single part as it is)."""
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def disj(*parts: Formula) -> Formula:
    """The disjunction of ``parts`` (a single part as it is)."""
    return parts[0] if len(parts) == 1 else Or(tuple(parts))


# Printing and reading ------------------------------------------------------------------------

_QUANTIFIER_SYMBOL = {"every": "∀", "some": "∃"}
_CONNECTIVE = {And: " ∧ ", Or: " ∨ "}


def _term(term: Term) -> str:
    return term.name.replace(" ", "_")


def show(f: Formula) -> str:
    """The formula as text :func:`read_formula` reads back: ``(visited(Joan, Paris) ∧ ¬met(Joan, Bob))``."""
    if isinstance(f, Rel):
        return f"{f.name}({_term(f.left)}, {_term(f.right)})"
    if isinstance(f, Not):
        return "¬" + show(f.body)
    if isinstance(f, (And, Or)):
        return "(" + _CONNECTIVE[type(f)].join(show(p) for p in f.parts) + ")"
    if isinstance(f, Implies):
        return f"({show(f.left)} → {show(f.right)})"
    if isinstance(f, Quant):
        return f"{_QUANTIFIER_SYMBOL[f.kind]}{f.var}:{f.sort}({show(f.body)})"
    return f"#{f.var}:{f.sort}({show(f.body)}) {f.op} {f.number}"


def show_pair(premise: Formula, hypothesis: Formula) -> str:
    return show(premise) + TURNSTILE + show(hypothesis)


_TOKEN = re.compile(r"\s*(?:([A-Za-z][\w'.-]*)|(\d+)|([¬∧∨→∀∃#(),:=<>]))")


def _tokens(text: str) -> list[str]:
    out, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise FormError(f"cannot read {text[position:]!r} in form {text!r}")
        out.append(match.group(match.lastindex or 0))
        position = match.end()
    return out


class _Reader:
    """Recursive descent over the tokens of :func:`show`'s output."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or expected is not None and token != expected:
            raise FormError(f"expected {expected or 'more'} at token {self.at} of form {self.text!r}")
        self.at += 1
        return token

    def formula(self, bound: frozenset[str]) -> Formula:
        token = self.take()
        if token == "¬":
            return Not(self.formula(bound))
        if token in ("∀", "∃", "#"):
            var = self.take()
            self.take(":")
            sort = self.take()
            if sort not in SORTS:
                raise FormError(f"unknown sort {sort!r} in form {self.text!r}")
            self.take("(")
            body = self.formula(bound | {var})
            self.take(")")
            if token != "#":
                return Quant("every" if token == "∀" else "some", var, sort, body)
            op = self.take()
            number = self.take()
            if op not in COMPARISONS or not number.isdigit():
                raise FormError(f"a count needs '= n', '> n' or '< n' in form {self.text!r}")
            return Count(var, sort, body, op, int(number))
        if token == "(":
            parts, ops = [self.formula(bound)], set()
            while self.peek() in ("∧", "∨", "→"):
                ops.add(self.take())
                parts.append(self.formula(bound))
            self.take(")")
            if len(ops) != 1 or "→" in ops and len(parts) != 2:
                raise FormError(f"a bracket needs one connective in form {self.text!r}")
            op = ops.pop()
            if op == "→":
                return Implies(parts[0], parts[1])
            return And(tuple(parts)) if op == "∧" else Or(tuple(parts))
        if token in RELATIONS:
            self.take("(")
            left = self.term(bound)
            self.take(",")
            right = self.term(bound)
            self.take(")")
            return Rel(token, left, right)
        raise FormError(f"unexpected {token!r} in form {self.text!r}")

    def term(self, bound: frozenset[str]) -> Term:
        name = self.take()
        return Var(name) if name in bound else Const(name.replace("_", " "))


def read_formula(text: str) -> Formula:
    """Read a formula written by :func:`show`; FormError when it cannot."""
    reader = _Reader(text)
    formula = reader.formula(frozenset())
    if reader.peek() is not None:
        raise FormError(f"unexpected {reader.peek()!r} after the formula in {text!r}")
    return formula


def read_pair(form: str) -> tuple[Formula, Formula]:
    """Read ``premise ⊢ hypothesis`` (:func:`show_pair`)."""
    parts = form.split(TURNSTILE.strip())
    if len(parts) != 2:
        raise FormError(f"form {form!r} is not 'premise ⊢ hypothesis'")
    return read_formula(parts[0]), read_formula(parts[1])


# The bounded domain -------------------------------------------------------------------------

@dataclass(frozen=True)
class Domain:
    """The individuals of a situation: named ones first, then anonymous ones (``person#1``)."""

    people: tuple[str, ...]
    places: tuple[str, ...]

    def of(self, sort: str) -> tuple[str, ...]:
        return self.people if sort == PERSON else self.places


def _constants(f: Formula, sorts: Mapping[str, str], found: dict[str, str]) -> None:
    """Record each named individual's sort (from the argument position it fills)."""
    if isinstance(f, Rel):
        wanted = RELATIONS[f.name]
        terms = (f.left, f.right)
        for k, term in enumerate(terms):
            other = terms[1 - k]
            sort = wanted[k] or (sorts.get(other.name) if isinstance(other, Var) else found.get(other.name))
            if isinstance(term, Const) and sort is not None:
                if found.setdefault(term.name, sort) != sort:
                    raise FormError(f"{term.name!r} is used both as a {found[term.name]} and as a {sort}")
    elif isinstance(f, Not):
        _constants(f.body, sorts, found)
    elif isinstance(f, (And, Or)):
        for part in f.parts:
            _constants(part, sorts, found)
    elif isinstance(f, Implies):
        _constants(f.left, sorts, found)
        _constants(f.right, sorts, found)
    else:
        _constants(f.body, {**sorts, f.var: f.sort}, found)


Need: TypeAlias = dict[str, int]


def _add(a: Need, b: Need) -> Need:
    return {s: a.get(s, 0) + b.get(s, 0) for s in SORTS}


def _most(a: Need, b: Need) -> Need:
    return {s: max(a.get(s, 0), b.get(s, 0)) for s in SORTS}


def _quantifier_free(f: Formula) -> bool:
    if isinstance(f, Rel):
        return True
    if isinstance(f, Not):
        return _quantifier_free(f.body)
    if isinstance(f, (And, Or)):
        return all(_quantifier_free(p) for p in f.parts)
    if isinstance(f, Implies):
        return _quantifier_free(f.left) and _quantifier_free(f.right)
    return False


def _count_witnesses(op: str, number: int, positive: bool) -> int:
    """Individuals a count keeps true on a smaller domain: the n (or n + 1) it counts when it asks
    for at least that many ("= n", "> n", denied "< n", denied "= n" read as "> n"), else none."""
    if positive:
        return {"=": number, ">": number + 1, "<": 0}[op]
    return {"=": number + 1, ">": 0, "<": number}[op]


def witnesses(f: Formula, positive: bool = True, under_universal: bool = False) -> Need:
    """How many individuals per sort the true existentials and counts of ``f`` (asserted when
    ``positive``, denied otherwise) may need as witnesses; FormError outside the bounded shape."""
    if isinstance(f, Rel):
        return {}
    if isinstance(f, Not):
        return witnesses(f.body, not positive, under_universal)
    if isinstance(f, Implies):
        return witnesses(Or((Not(f.left), f.right)), positive, under_universal)
    if isinstance(f, (And, Or)):
        combine = _add if isinstance(f, And) == positive else _most
        return reduce(combine, (witnesses(p, positive, under_universal) for p in f.parts), {})
    if isinstance(f, Quant):
        if (f.kind == "some") != positive:
            return witnesses(f.body, positive, True)
        if under_universal:
            raise FormError(f"an existential under a universal ({show(f)}): outside the bounded fragment")
        return _add({f.sort: 1}, witnesses(f.body, positive, under_universal))
    if not _quantifier_free(f.body):
        raise FormError(f"a count over a quantified body ({show(f)}): outside the bounded fragment")
    needed = _count_witnesses(f.op, f.number, positive)
    if needed and under_universal:
        raise FormError(f"a count under a universal ({show(f)}): outside the bounded fragment")
    return {f.sort: needed}


def bounded_domain(premise: Formula, hypothesis: Formula) -> Domain:
    """The domain that decides the pair (module docstring): the named individuals plus, per sort,
    the premise's witnesses and the larger of the hypothesis's and its negation's (at least one
    individual of each sort)."""
    named: dict[str, str] = {}
    for f in (premise, hypothesis):
        _constants(f, {}, named)
    need = _add(witnesses(premise), _most(witnesses(hypothesis, True), witnesses(hypothesis, False)))

    def individuals(sort: str) -> tuple[str, ...]:
        names = [n for n, s in named.items() if s == sort]
        anonymous = max(need[sort], 0 if names else 1)  # no sort is empty
        return tuple(names + [f"{sort}#{k}" for k in range(1, anonymous + 1)])

    return Domain(individuals(PERSON), individuals(PLACE))


# Grounding and search -----------------------------------------------------------------------

Key: TypeAlias = tuple[str, ...]  # ("visited", a, b), ("met", a, b) or ("height", a)


@dataclass(frozen=True)
class GNot:
    body: Ground


@dataclass(frozen=True)
class GAnd:
    parts: tuple[Ground, ...]


@dataclass(frozen=True)
class GOr:
    parts: tuple[Ground, ...]


@dataclass(frozen=True)
class GCount:
    parts: tuple[Ground, ...]
    op: str
    number: int


@dataclass(frozen=True)
class GCompare:
    """Two heights compared: ``op`` is ">" or "="."""

    left: Key
    op: str
    right: Key


Ground: TypeAlias = bool | Key | GNot | GAnd | GOr | GCount | GCompare


def ground(f: Formula, domain: Domain, env: Mapping[str, str] | None = None) -> Ground:
    """``f`` over ``domain``: quantifiers become finite conjunctions, disjunctions and counts."""
    env = env or {}
    if isinstance(f, Rel):
        a, b = (env[t.name] if isinstance(t, Var) else t.name for t in (f.left, f.right))
        if f.name == "eq":
            return a == b
        if f.name in ("taller", "same_height"):
            return GCompare(("height", a), ">" if f.name == "taller" else "=", ("height", b))
        return (f.name, a, b)
    if isinstance(f, Not):
        return GNot(ground(f.body, domain, env))
    if isinstance(f, (And, Or)):
        parts = tuple(ground(p, domain, env) for p in f.parts)
        return GAnd(parts) if isinstance(f, And) else GOr(parts)
    if isinstance(f, Implies):
        return GOr((GNot(ground(f.left, domain, env)), ground(f.right, domain, env)))
    instances = tuple(ground(f.body, domain, {**env, f.var: e}) for e in domain.of(f.sort))
    if isinstance(f, Quant):
        return GAnd(instances) if f.kind == "every" else GOr(instances)
    return GCount(instances, f.op, f.number)


Value: TypeAlias = bool | int


def _verdict(low: int, high: int, op: str, number: int) -> bool | None:
    """Whether "count op number" holds when the count lies in [low, high]; None while open."""
    if op == "=":
        return low == number if low == high else (None if low <= number <= high else False)
    if op == ">":
        return True if low > number else (False if high <= number else None)
    return True if high < number else (False if low >= number else None)


def _count(parts: tuple[Ground, ...], op: str, number: int) -> Ground:
    known = sum(p is True for p in parts)
    open_parts = tuple(p for p in parts if not isinstance(p, bool))
    verdict = _verdict(known, known + len(open_parts), op, number)
    return GCount(open_parts, op, number - known) if verdict is None else verdict


def simplify(g: Ground, values: Mapping[Key, Value]) -> Ground:
    """``g`` with the assigned atoms replaced and every decided sub-formula folded to True/False."""
    if isinstance(g, bool):
        return g
    if isinstance(g, tuple):
        value = values.get(g)
        return g if value is None else bool(value)
    if isinstance(g, GNot):
        body = simplify(g.body, values)
        return (not body) if isinstance(body, bool) else GNot(body)
    if isinstance(g, (GAnd, GOr)):
        stop = isinstance(g, GOr)  # the value that decides the whole
        kept: list[Ground] = []
        for part in g.parts:
            s = simplify(part, values)
            if s is stop:
                return stop
            if not isinstance(s, bool):  # the other value leaves the whole to the rest
                kept.append(s)
        if not kept:
            return not stop
        return kept[0] if len(kept) == 1 else type(g)(tuple(kept))
    if isinstance(g, GCount):
        return _count(tuple(simplify(p, values) for p in g.parts), g.op, g.number)
    if g.left == g.right:
        return g.op == "="
    left, right = values.get(g.left), values.get(g.right)
    if left is None or right is None:
        return g
    return left > right if g.op == ">" else left == right


def _variables(g: Ground) -> Iterator[Key]:
    if isinstance(g, bool):
        return
    if isinstance(g, tuple):
        yield g
    elif isinstance(g, GNot):
        yield from _variables(g.body)
    elif isinstance(g, (GAnd, GOr, GCount)):
        for part in g.parts:
            yield from _variables(part)
    else:
        yield g.left
        yield g.right


def _values(key: Key, domain: Domain) -> tuple[Value, ...]:
    return tuple(range(len(domain.people))) if key[0] == "height" else (False, True)


def find_model(g: Ground, domain: Domain, values: Mapping[Key, Value] | None = None) -> dict[Key, Value] | None:
    """An assignment (of the atoms it needed) under which ``g`` is true, or None when there is none:
    depth-first over the atoms ``g`` still depends on, leftmost first, pruning false branches."""
    values = dict(values or {})
    g = simplify(g, values)
    if g is True:
        return values
    if g is False:
        return None
    key = next(k for k in _variables(g) if k not in values)
    for value in _values(key, domain):
        found = find_model(g, domain, {**values, key: value})
        if found is not None:
            return found
    return None


# Situations and labels ----------------------------------------------------------------------

@dataclass(frozen=True)
class Situation:
    """A model found by the search: the visits that hold and the heights it fixed (atoms it
    did not need to fix are false)."""

    visits: tuple[tuple[str, str, str], ...]
    heights: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, values: Mapping[Key, Value]) -> "Situation":
        visits = tuple(sorted((k[0], k[1], k[2]) for k, v in values.items() if k[0] != "height" and v is True))
        heights = tuple(sorted(((k[1], int(v)) for k, v in values.items() if k[0] == "height"),
                               key=lambda item: (-item[1], item[0])))
        return cls(visits, heights)

    def describe(self) -> str:
        """``Joan visited Paris; heights: Bob 2, Joan 1`` (``nobody visited anything`` when empty)."""
        facts = [f"{a} visited {b}" for _, a, b in self.visits]
        if self.heights:
            facts.append("heights: " + ", ".join(f"{name} {h}" for name, h in self.heights))
        return "; ".join(facts) or "nobody visited anything"


@dataclass(frozen=True)
class Judgement:
    """The derived label, the domain it was decided over, and a situation where the premise
    holds with the hypothesis true and one where it holds with the hypothesis false (None: none)."""

    label: NLILabel
    domain: Domain
    with_hypothesis: Situation | None
    against_hypothesis: Situation | None


def judge(premise: Formula, hypothesis: Formula) -> Judgement:
    """Label (premise, hypothesis) over every situation of the bounded domain (module docstring).
    FormError when the premise holds in no situation (every label would follow from it)."""
    domain = bounded_domain(premise, hypothesis)
    p, h = ground(premise, domain), ground(hypothesis, domain)
    agreeing = find_model(GAnd((h, p)), domain)
    disagreeing = find_model(GAnd((GNot(h), p)), domain)
    if agreeing is None and disagreeing is None:
        raise FormError(f"the premise {show(premise)} holds in no situation")
    if disagreeing is None:
        label = NLILabel.ENTAILMENT
    elif agreeing is None:
        label = NLILabel.CONTRADICTION
    else:
        label = NLILabel.NEUTRAL
    return Judgement(label, domain, Situation.of(agreeing) if agreeing is not None else None,
                     Situation.of(disagreeing) if disagreeing is not None else None)
