"""The equivalence laws of propositional logic (De Morgan, double negation, absorption, the
commutative, associative, idempotent and distributive laws, the conditional and contraposition),
as rewrites at the root of a formula with the schemas a formula is drawn from. Shared by the
logical-equivalence probe suite and the law-rewriting attack operators.

In: a formula. Out: its rewrite under a law (or None where the law does not apply).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.logic.formulas import And, Atom, Formula, Implies, Not, Or, negate, show

P, Q, R = Atom("P"), Atom("Q"), Atom("R")  # metavariables of the schemas, replaced by literals


@dataclass(frozen=True)
class Law:
    """An equivalence law: ``apply`` rewrites a formula matching its left-hand side (at the root)
    into the right-hand side, or returns None; ``templates`` are left-hand schemas over P, Q, R."""

    name: str
    apply: Callable[[Formula], Formula | None]
    templates: tuple[Formula, ...]

    @property
    def statement(self) -> str:
        """The law as text, read off its first schema: ``¬(P ∧ Q) ≡ ¬P ∨ ¬Q``."""
        template = self.templates[0]
        rewritten = self.apply(template)
        assert rewritten is not None, f"law {self.name} does not apply to its own schema"
        return f"{show(template)} ≡ {show(rewritten)}"


def de_morgan_and(f: Formula) -> Formula | None:
    """¬(P ∧ Q) ≡ ¬P ∨ ¬Q."""
    match f:
        case Not(And(left, right)):
            return Or(negate(left), negate(right))
    return None


def de_morgan_or(f: Formula) -> Formula | None:
    """¬(P ∨ Q) ≡ ¬P ∧ ¬Q."""
    match f:
        case Not(Or(left, right)):
            return And(negate(left), negate(right))
    return None


def double_negation(f: Formula) -> Formula | None:
    """¬¬P ≡ P."""
    match f:
        case Not(Not(inner)):
            return inner
    return None


def absorption_and(f: Formula) -> Formula | None:
    """P ∧ (P ∨ Q) ≡ P."""
    match f:
        case And(left, Or(inner, _)) if inner == left:
            return left
    return None


def absorption_or(f: Formula) -> Formula | None:
    """P ∨ (P ∧ Q) ≡ P."""
    match f:
        case Or(left, And(inner, _)) if inner == left:
            return left
    return None


def commutative_and(f: Formula) -> Formula | None:
    """P ∧ Q ≡ Q ∧ P."""
    return And(f.right, f.left) if isinstance(f, And) else None


def commutative_or(f: Formula) -> Formula | None:
    """P ∨ Q ≡ Q ∨ P."""
    return Or(f.right, f.left) if isinstance(f, Or) else None


def associative_and(f: Formula) -> Formula | None:
    """(P ∧ Q) ∧ R ≡ P ∧ (Q ∧ R)."""
    match f:
        case And(And(first, second), third):
            return And(first, And(second, third))
    return None


def associative_or(f: Formula) -> Formula | None:
    """(P ∨ Q) ∨ R ≡ P ∨ (Q ∨ R)."""
    match f:
        case Or(Or(first, second), third):
            return Or(first, Or(second, third))
    return None


def idempotent_and(f: Formula) -> Formula | None:
    """P ∧ P ≡ P."""
    match f:
        case And(left, right) if left == right:
            return left
    return None


def idempotent_or(f: Formula) -> Formula | None:
    """P ∨ P ≡ P."""
    match f:
        case Or(left, right) if left == right:
            return left
    return None


def distributive_and(f: Formula) -> Formula | None:
    """P ∧ (Q ∨ R) ≡ (P ∧ Q) ∨ (P ∧ R)."""
    match f:
        case And(left, Or(first, second)):
            return Or(And(left, first), And(left, second))
    return None


def distributive_or(f: Formula) -> Formula | None:
    """P ∨ (Q ∧ R) ≡ (P ∨ Q) ∧ (P ∨ R)."""
    match f:
        case Or(left, And(first, second)):
            return And(Or(left, first), Or(left, second))
    return None


def material_conditional(f: Formula) -> Formula | None:
    """P → Q ≡ ¬P ∨ Q."""
    match f:
        case Implies(left, right):
            return Or(negate(left), right)
    return None


def contrapositive(f: Formula) -> Formula | None:
    """P → Q ≡ ¬Q → ¬P."""
    match f:
        case Implies(left, right):
            return Implies(negate(right), negate(left))
    return None


LAWS: tuple[Law, ...] = (
    Law("de_morgan_and", de_morgan_and, (Not(And(P, Q)),)),
    Law("de_morgan_or", de_morgan_or, (Not(Or(P, Q)),)),
    Law("double_negation", double_negation, (Not(Not(P)), Not(Not(And(P, Q))), Not(Not(Or(P, Q))))),
    Law("absorption_and", absorption_and, (And(P, Or(P, Q)),)),
    Law("absorption_or", absorption_or, (Or(P, And(P, Q)),)),
    Law("commutative_and", commutative_and, (And(P, Q), And(Or(P, Q), R))),
    Law("commutative_or", commutative_or, (Or(P, Q), Or(And(P, Q), R))),
    Law("associative_and", associative_and, (And(And(P, Q), R),)),
    Law("associative_or", associative_or, (Or(Or(P, Q), R),)),
    Law("idempotent_and", idempotent_and, (And(P, P),)),
    Law("idempotent_or", idempotent_or, (Or(P, P),)),
    Law("distributive_and", distributive_and, (And(P, Or(Q, R)),)),
    Law("distributive_or", distributive_or, (Or(P, And(Q, R)),)),
    Law("conditional", material_conditional, (Implies(P, Q),)),
    Law("contrapositive", contrapositive, (Implies(P, Q),)),
)
LAWS_BY_NAME: dict[str, Law] = {law.name: law for law in LAWS}


def rewrite_first(apply: Callable[[Formula], Formula | None], f: Formula) -> Formula | None:
    """``f`` with the first sub-formula (pre-order, left first) that ``apply`` rewrites replaced
    by its rewrite, or None if it applies nowhere. A double negation the rewrite leaves under a
    ``¬`` is removed (``¬(P ∧ (P ∨ Q))`` with P = ¬p becomes ``p``, not ``¬¬p``)."""
    rewritten = apply(f)
    if rewritten is not None:
        return rewritten
    match f:
        case Atom():
            return None
        case Not(operand):
            inner = rewrite_first(apply, operand)
            return None if inner is None else negate(inner)
        case And(left, right) | Or(left, right) | Implies(left, right):
            new_left = rewrite_first(apply, left)
            if new_left is not None:
                return type(f)(new_left, right)
            new_right = rewrite_first(apply, right)
            return None if new_right is None else type(f)(left, new_right)
