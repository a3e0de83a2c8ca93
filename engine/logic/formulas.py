"""A small propositional logic core: formula trees, truth tables, entailment, a printer and parser.

Probe suites derive their labels here rather than typing them: an NLI pair built from formulas
gets the relation its truth table gives (:func:`nli_relation`). Formulas are frozen dataclasses
(hashable, comparable), printed compactly as ``(p ∧ ¬q) → r`` and parsed back by :func:`parse`,
so a stored item's ``form`` can be re-checked. The printer brackets every binary sub-formula,
which is what lets the parser read the text back without precedence rules beyond ``¬``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from engine.core.vocab import NLILabel


class FormulaSyntaxError(ValueError):
    """A formula text the parser cannot read."""


@dataclass(frozen=True)
class Atom:
    """A propositional variable (in the probes, one sentence such as "Anna plays the guitar")."""

    name: str

    def __str__(self) -> str:
        return show(self)


@dataclass(frozen=True)
class Not:
    operand: Formula

    def __str__(self) -> str:
        return show(self)


@dataclass(frozen=True)
class And:
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return show(self)


@dataclass(frozen=True)
class Or:
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return show(self)


@dataclass(frozen=True)
class Implies:
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return show(self)


Formula: TypeAlias = Atom | Not | And | Or | Implies
Binary: TypeAlias = And | Or | Implies

SYMBOLS: dict[type, str] = {And: "∧", Or: "∨", Implies: "→"}


def atoms(f: Formula) -> tuple[str, ...]:
    """The atom names of ``f``, sorted (the column order of its truth table)."""
    return tuple(sorted(_atom_set(f)))


def _atom_set(f: Formula) -> set[str]:
    match f:
        case Atom(name):
            return {name}
        case Not(operand):
            return _atom_set(operand)
        case And(left, right) | Or(left, right) | Implies(left, right):
            return _atom_set(left) | _atom_set(right)


def evaluate(f: Formula, assignment: Mapping[str, bool]) -> bool:
    """The truth value of ``f`` under ``assignment``; ValueError if an atom has no value."""
    match f:
        case Atom(name):
            if name not in assignment:
                raise ValueError(f"no truth value for atom {name!r}")
            return assignment[name]
        case Not(operand):
            return not evaluate(operand, assignment)
        case And(left, right):
            return evaluate(left, assignment) and evaluate(right, assignment)
        case Or(left, right):
            return evaluate(left, assignment) or evaluate(right, assignment)
        case Implies(left, right):
            return not evaluate(left, assignment) or evaluate(right, assignment)


def assignments(names: tuple[str, ...]) -> Iterator[dict[str, bool]]:
    """Every assignment of truth values to ``names`` (all true first)."""
    for values in itertools.product((True, False), repeat=len(names)):
        yield dict(zip(names, values))


def truth_table(f: Formula) -> list[tuple[dict[str, bool], bool]]:
    """Each assignment to the atoms of ``f`` with the value ``f`` takes under it."""
    return [(row, evaluate(f, row)) for row in assignments(atoms(f))]


def is_tautology(f: Formula) -> bool:
    return all(value for _, value in truth_table(f))


def is_satisfiable(f: Formula) -> bool:
    return any(value for _, value in truth_table(f))


def entails(a: Formula, b: Formula) -> bool:
    """``a ⊨ b``: every assignment making ``a`` true makes ``b`` true."""
    return is_tautology(Implies(a, b))


def equivalent(a: Formula, b: Formula) -> bool:
    """``a ≡ b``: each entails the other (``a ↔ b`` is a tautology)."""
    return entails(a, b) and entails(b, a)


def contradictory(a: Formula, b: Formula) -> bool:
    """Whether ``a`` and ``b`` cannot both be true: ``a ∧ b`` is unsatisfiable, i.e. ``a ⊨ ¬b``.

    This is what an NLI *contradiction* between premise ``a`` and hypothesis ``b`` needs. It is
    weaker than logical contradictoriness (``a ≡ ¬b``): ``p ∧ q`` and ``¬p`` count, though both
    can be false. It is symmetric. Note ``p → q`` and ``p → ¬q`` are *not* contradictory: both
    hold whenever ``p`` is false.
    """
    return not is_satisfiable(And(a, b))


def nli_relation(premise: Formula, hypothesis: Formula) -> NLILabel:
    """The NLI label the truth table gives: entailment iff premise ⊨ hypothesis, contradiction
    iff premise ⊨ ¬hypothesis, neutral otherwise. ValueError for an unsatisfiable premise, which
    would vacuously be both."""
    if not is_satisfiable(premise):
        raise ValueError(f"premise {show(premise)} is unsatisfiable: every label would hold")
    if entails(premise, hypothesis):
        return NLILabel.ENTAILMENT
    if contradictory(premise, hypothesis):
        return NLILabel.CONTRADICTION
    return NLILabel.NEUTRAL


def negate(f: Formula) -> Formula:
    """The negation of ``f`` with a double negation removed at the root: ``¬¬g`` becomes ``g``.

    This keeps the shape of ``f`` under the negation (``¬(p ∧ q)`` stays a negated conjunction),
    which is what a law that rewrote ``f`` can rewrite again inside it.
    """
    return f.operand if isinstance(f, Not) else Not(f)


def simplify_negation(f: Formula) -> Formula:
    """``f`` in negation normal form: ¬ pushed down to the atoms (De Morgan, ¬(a → b) as a ∧ ¬b)
    and double negations removed; equivalent to ``f``."""
    match f:
        case Atom():
            return f
        case Not(operand):
            return _push_negation(operand)
        case And(left, right):
            return And(simplify_negation(left), simplify_negation(right))
        case Or(left, right):
            return Or(simplify_negation(left), simplify_negation(right))
        case Implies(left, right):
            return Implies(simplify_negation(left), simplify_negation(right))


def _push_negation(f: Formula) -> Formula:
    """The negation normal form of ``¬f``."""
    match f:
        case Atom():
            return Not(f)
        case Not(operand):
            return simplify_negation(operand)
        case And(left, right):
            return Or(_push_negation(left), _push_negation(right))
        case Or(left, right):
            return And(_push_negation(left), _push_negation(right))
        case Implies(left, right):
            return And(simplify_negation(left), _push_negation(right))


def substitute(f: Formula, mapping: Mapping[str, Formula]) -> Formula:
    """``f`` with each atom named in ``mapping`` replaced by its formula (others kept)."""
    match f:
        case Atom(name):
            return mapping.get(name, f)
        case Not(operand):
            return Not(substitute(operand, mapping))
        case And(left, right):
            return And(substitute(left, mapping), substitute(right, mapping))
        case Or(left, right):
            return Or(substitute(left, mapping), substitute(right, mapping))
        case Implies(left, right):
            return Implies(substitute(left, mapping), substitute(right, mapping))


def show(f: Formula) -> str:
    """The compact text of ``f``: ``¬`` binds to what follows, every binary child is bracketed."""
    match f:
        case Atom(name):
            return name
        case Not(operand):
            return "¬" + _child(operand)
        case And(left, right) | Or(left, right) | Implies(left, right):
            return f"{_child(left)} {SYMBOLS[type(f)]} {_child(right)}"


def _child(f: Formula) -> str:
    return f"({show(f)})" if isinstance(f, (And, Or, Implies)) else show(f)


_TOKEN = re.compile(r"\s*(?:(?P<atom>[a-z][a-z0-9_]*)|(?P<op>¬|~|∧|&|∨|\||→|->|\(|\)))")
_CANONICAL = {"~": "¬", "&": "∧", "|": "∨", "->": "→"}
_BINARY: dict[str, type[Binary]] = {"∧": And, "∨": Or, "→": Implies}


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise FormulaSyntaxError(f"cannot read formula {text!r} at {text[position:]!r}")
        token = match.group("atom") or match.group("op")
        tokens.append(_CANONICAL.get(token, token))
        position = match.end()
    return tokens


def parse(text: str) -> Formula:
    """Read the text :func:`show` writes (ASCII ``~ & | ->`` also accepted) back into a formula.

    A chain such as ``p ∧ q ∨ r`` is refused rather than guessed: binary children need brackets.
    """
    tokens = _tokens(text)
    if not tokens:
        raise FormulaSyntaxError("empty formula")
    formula, rest = _binary(tokens, text)
    if rest:
        raise FormulaSyntaxError(f"unexpected {' '.join(rest)!r} in formula {text!r}")
    return formula


def _binary(tokens: list[str], text: str) -> tuple[Formula, list[str]]:
    left, rest = _unary(tokens, text)
    if rest and rest[0] in _BINARY:
        connective = _BINARY[rest[0]]
        right, rest = _unary(rest[1:], text)
        return connective(left, right), rest
    return left, rest


def _unary(tokens: list[str], text: str) -> tuple[Formula, list[str]]:
    if not tokens:
        raise FormulaSyntaxError(f"formula {text!r} ends too early")
    head, rest = tokens[0], tokens[1:]
    if head == "¬":
        operand, rest = _unary(rest, text)
        return Not(operand), rest
    if head == "(":
        inner, rest = _binary(rest, text)
        if not rest or rest[0] != ")":
            raise FormulaSyntaxError(f"unclosed bracket in formula {text!r}")
        return inner, rest[1:]
    if head in _BINARY or head == ")":
        raise FormulaSyntaxError(f"unexpected {head!r} in formula {text!r}")
    return Atom(head), rest
