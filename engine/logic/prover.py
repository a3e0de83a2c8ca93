"""Theories of facts and rules over names, and the two procedures that label statements about them.

Language (RobustLR's, Sanyal et al. 2022, §3.2). A *literal* is a possibly negated unary or binary
predicate: ``kind(anne)``, ``¬likes(anne,bob)``; inside a rule an argument may be the variable
``X`` ("someone"; the rule holds for every X). A *rule* is ``body → head``, each side a conjunction
or a disjunction of literals (one literal is a one-literal conjunction): simple rules, compound
rules with ∧ or ∨ in the body, ∧ in the head (the merged form of their Distributive 1
equivalence) and ∨ in the head (what contraposing a conjunctive body gives). A *theory* is ground
facts and rules, with ids ``f1, f2, ...`` and ``r1, r2, ...`` in order.

Semantics. Negation is classical and the world open: a statement is True when the theory entails
it, False when the theory entails its negation, Unknown otherwise -- RobustLR's three labels
("provably supported, provably unsupported (the negation is provable), or not provable"). The
labels are those of the classical consequence relation restricted to literals. Rules are grounded
over the names of the theory and the statement, which is exact here (Herbrand: no function
symbols). A theory with no model entails everything and is rejected (:class:`InconsistentTheory`).

Two procedures decide it:

* :func:`prove`: forward chaining to a fixpoint over the ground rules *closed under
  contraposition*. A rule becomes clauses (``A∧B→C`` is ``¬A∨¬B∨C``; a disjunctive body splits
  into one clause per disjunct); a clause fires when all its literals but one are false and
  derives the last one, so ``A∧B→C`` also acts as ``¬C∧A→¬B`` and ``¬C∧B→¬A``, and a rule and its
  contrapositive prove the same literals. This is unit resolution: sound, with one proof per
  derived literal (the fact and rule ids used, the first found in breadth-first rounds, so
  deterministic and of least depth), but not complete: it does not reason by cases
  (``kind→nice`` and ``¬kind→nice`` entail ``nice``; chaining does not find it).
* :func:`truth_by_models`: the classical label by enumerating models (exact; exponential, for
  theories whose independent parts have at most :data:`MAX_MODEL_ATOMS` ground atoms).

The suite keeps only statements on which the two agree, so every True/False item has a chaining
proof (RobustLR's proof set G(T, s)) and its label is the classical one.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

VARIABLE = "X"
AND, OR = "∧", "∨"
ARROW = "→"
#: the most ground atoms one independent part of a theory may have for :func:`truth_by_models`
MAX_MODEL_ATOMS = 20


class Truth(enum.StrEnum):
    """RobustLR's label of a statement."""

    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"


class InconsistentTheory(ValueError):
    """The theory has no model (chaining derived a literal and its negation, or no assignment fits)."""


class ModelCheckTooLarge(ValueError):
    """An independent part of the theory has too many ground atoms to enumerate its models."""


class FormSyntaxError(ValueError):
    """A symbolic form that :func:`parse_problem` cannot read."""


@dataclass(frozen=True, order=True)
class Literal:
    """``predicate(args)`` or its negation; an argument is a name or :data:`VARIABLE`."""

    predicate: str
    args: tuple[str, ...]
    negated: bool = False

    def negate(self) -> Literal:
        return replace(self, negated=not self.negated)

    @property
    def atom(self) -> Literal:
        """The unnegated literal: what a model assigns a truth value to."""
        return replace(self, negated=False)

    @property
    def is_ground(self) -> bool:
        return VARIABLE not in self.args

    def ground(self, name: str) -> Literal:
        return replace(self, args=tuple(name if arg == VARIABLE else arg for arg in self.args))

    def __str__(self) -> str:
        return f"{'¬' if self.negated else ''}{self.predicate}({','.join(self.args)})"


@dataclass(frozen=True)
class Formula:
    """A conjunction (:data:`AND`) or disjunction (:data:`OR`) of literals; one literal is a conjunction."""

    connective: str
    literals: tuple[Literal, ...]

    def __post_init__(self) -> None:
        if not self.literals:
            raise ValueError("a rule side needs at least one literal")
        if self.connective not in (AND, OR) or (len(self.literals) == 1 and self.connective != AND):
            raise ValueError(f"bad connective {self.connective!r} for {len(self.literals)} literal(s)")

    def negate(self) -> Formula:
        """De Morgan: ¬(a∧b) = ¬a∨¬b, ¬(a∨b) = ¬a∧¬b."""
        return _formula(OR if self.connective == AND else AND, [lit.negate() for lit in self.literals])

    def ground(self, name: str) -> Formula:
        return Formula(self.connective, tuple(lit.ground(name) for lit in self.literals))

    def __str__(self) -> str:
        return self.connective.join(map(str, self.literals))


def _formula(connective: str, literals: Sequence[Literal]) -> Formula:
    return Formula(connective if len(literals) > 1 else AND, tuple(literals))


def conjunction(*literals: Literal) -> Formula:
    return _formula(AND, literals)


def disjunction(*literals: Literal) -> Formula:
    return _formula(OR, literals)


@dataclass(frozen=True)
class Rule:
    """``body → head``, for every X when a literal mentions X."""

    body: Formula
    head: Formula

    @property
    def literals(self) -> tuple[Literal, ...]:
        return self.body.literals + self.head.literals

    @property
    def is_ground(self) -> bool:
        return all(lit.is_ground for lit in self.literals)

    def ground(self, name: str) -> Rule:
        return Rule(self.body.ground(name), self.head.ground(name))

    def contrapositive(self) -> Rule:
        """``¬head → ¬body``, equivalent to the rule."""
        return Rule(self.head.negate(), self.body.negate())

    def __str__(self) -> str:
        return f"{self.body}{ARROW}{self.head}"


@dataclass(frozen=True)
class Theory:
    """Ground facts and rules; ``f1..`` and ``r1..`` name them in order."""

    facts: tuple[Literal, ...]
    rules: tuple[Rule, ...]

    def __post_init__(self) -> None:
        if not all(fact.is_ground for fact in self.facts):
            raise ValueError("a fact cannot mention the variable X")

    def names(self) -> frozenset[str]:
        literals = [*self.facts, *(lit for rule in self.rules for lit in rule.literals)]
        return frozenset(arg for lit in literals for arg in lit.args if arg != VARIABLE)


def fact_id(index: int) -> str:
    return f"f{index + 1}"


def rule_id(index: int) -> str:
    return f"r{index + 1}"


def _id_key(sentence_id: str) -> tuple[str, int]:
    return sentence_id[0], int(sentence_id[1:])


# ---------------------------------------------------------------------------------------------
# Rules as ground clauses.

@dataclass(frozen=True)
class Clause:
    """A ground clause from rule ``source`` (X bound to ``binding``); ``head`` are its head-side literals."""

    literals: tuple[Literal, ...]
    source: str
    head: frozenset[Literal]
    binding: str | None


def rule_clauses(rule: Rule) -> list[tuple[tuple[Literal, ...], frozenset[Literal]]]:
    """The clauses of ``¬body ∨ head`` (each with the literals that came from the head), tautologies dropped."""
    negated_body = ([tuple(lit.negate() for lit in rule.body.literals)] if rule.body.connective == AND
                    else [(lit.negate(),) for lit in rule.body.literals])
    head = [(lit,) for lit in rule.head.literals] if rule.head.connective == AND else [rule.head.literals]
    clauses = []
    for body_part in negated_body:
        for head_part in head:
            literals = tuple(dict.fromkeys(body_part + head_part))
            if not any(lit.negate() in literals for lit in literals):
                clauses.append((literals, frozenset(head_part)))
    return clauses


def ground_clauses(rules: Sequence[Rule], names: Iterable[str]) -> list[Clause]:
    """Every rule's clauses, a rule with X once per name (sorted), in rule order."""
    names = sorted(names)
    clauses: list[Clause] = []
    for index, rule in enumerate(rules):
        bindings: list[str | None] = [None] if rule.is_ground else list(names)
        for name in bindings:
            instance = rule if name is None else rule.ground(name)
            clauses.extend(Clause(literals, rule_id(index), head, name) for literals, head in rule_clauses(instance))
    return clauses


def _statement_names(statement: Literal) -> set[str]:
    if not statement.is_ground:
        raise ValueError(f"statement {statement} mentions the variable X")
    return set(statement.args)


# ---------------------------------------------------------------------------------------------
# Forward chaining (unit resolution) with proofs.

@dataclass(frozen=True)
class Step:
    """How ``literal`` was first derived: from sentence ``source`` given ``premises``.

    ``forward`` is True when the literal is on the rule's head side (modus ponens) and False when
    the rule was used contraposed; ``binding`` is the name X was bound to (None for a fact or a
    ground rule); ``depth`` counts rule applications on the longest branch (facts are 0).
    """

    literal: Literal
    source: str
    premises: tuple[Literal, ...]
    depth: int
    forward: bool
    binding: str | None


@dataclass(frozen=True)
class Closure:
    """Everything forward chaining derives from a theory, with a proof step per literal."""

    steps: Mapping[Literal, Step]
    conflict: str | None = None

    def proof(self, literal: Literal) -> tuple[str, ...]:
        """The ids of the facts and rules in ``literal``'s proof, sorted (facts first)."""
        return tuple(sorted({step.source for step in self.tree(literal)}, key=_id_key))

    def tree(self, literal: Literal) -> Iterator[Step]:
        """``literal``'s proof steps, depth first from the literal, each once."""
        seen: set[Literal] = set()
        stack = [literal]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            step = self.steps[current]
            yield step
            stack.extend(reversed(step.premises))


def closure(theory: Theory, names: Iterable[str] = ()) -> Closure:
    """Forward chaining to a fixpoint over the theory's clauses, grounded over its names and ``names``.

    Each round fires every clause whose literals are all false but one, given what earlier rounds
    derived; a clause with every literal false, or a literal derived with its negation, is a conflict
    (the closure stops there).
    """
    steps: dict[Literal, Step] = {}
    for index, fact in enumerate(theory.facts):
        if fact.negate() in steps:
            return Closure(steps, f"facts {steps[fact.negate()].source} and {fact_id(index)} contradict each other")
        steps.setdefault(fact, Step(fact, fact_id(index), (), 0, True, None))
    clauses = ground_clauses(theory.rules, theory.names() | set(names))
    while True:
        new: dict[Literal, Step] = {}
        for clause in clauses:
            open_literals = [lit for lit in clause.literals if lit.negate() not in steps]
            if not open_literals:
                return Closure(steps, f"{clause.source} is violated ({' ∨ '.join(map(str, clause.literals))} all false)")
            if len(open_literals) > 1 or open_literals[0] in steps or open_literals[0] in new:
                continue
            derived = open_literals[0]
            premises = tuple(lit.negate() for lit in clause.literals if lit != derived)
            depth = 1 + max((steps[premise].depth for premise in premises), default=0)
            new[derived] = Step(derived, clause.source, premises, depth, derived in clause.head, clause.binding)
        if not new:
            return Closure(steps)
        steps.update(new)
        clash = next((lit for lit in new if lit.negate() in steps), None)
        if clash is not None:
            return Closure(steps, f"both {clash} and {clash.negate()} are derived")


@dataclass(frozen=True)
class Verdict:
    """A statement's label with its proof (fact and rule ids) and depth; no proof for Unknown."""

    truth: Truth
    proof: tuple[str, ...] = ()
    depth: int | None = None


def _verdict_of(derived: Closure, statement: Literal) -> Verdict:
    """The label ``derived`` gives ``statement`` (True if derived, False if its negation is)."""
    for literal, truth in ((statement, Truth.TRUE), (statement.negate(), Truth.FALSE)):
        if literal in derived.steps:
            return Verdict(truth, derived.proof(literal), derived.steps[literal].depth)
    return Verdict(Truth.UNKNOWN)


def prove(theory: Theory, statement: Literal) -> Verdict:
    """The forward-chaining label of ``statement``; InconsistentTheory when chaining finds a conflict."""
    derived = closure(theory, _statement_names(statement))
    if derived.conflict is not None:
        raise InconsistentTheory(derived.conflict)
    return _verdict_of(derived, statement)


# ---------------------------------------------------------------------------------------------
# Model checking: the classical label, by enumerating assignments.

def _assignments(count: int) -> np.ndarray:
    """Every assignment of ``count`` atoms, one row each."""
    if count > MAX_MODEL_ATOMS:
        raise ModelCheckTooLarge(f"{count} ground atoms in one part of the theory (at most {MAX_MODEL_ATOMS})")
    return ((np.arange(2 ** count)[:, None] >> np.arange(count)) & 1).astype(bool)


def _holds(table: np.ndarray, atoms: Sequence[Literal], clauses: Iterable[Sequence[Literal]]) -> np.ndarray:
    """Per row of ``table`` (an assignment of ``atoms``), whether every clause holds."""
    column = {atom: k for k, atom in enumerate(atoms)}
    holds = np.ones(len(table), dtype=bool)
    for clause in clauses:
        columns = [column[lit.atom] for lit in clause]
        holds &= (table[:, columns] == [not lit.negated for lit in clause]).any(axis=1)
    return holds


def _components(clauses: Sequence[tuple[Literal, ...]]) -> list[tuple[list[Literal], list[tuple[Literal, ...]]]]:
    """Group clauses into parts that share no atom (atoms and clauses of each part, in first-seen order)."""
    parent: dict[Literal, Literal] = {}

    def root(atom: Literal) -> Literal:
        while parent.setdefault(atom, atom) != atom:
            atom = parent[atom]
        return atom

    for clause in clauses:
        first = root(clause[0].atom)
        for lit in clause[1:]:
            parent[root(lit.atom)] = first
    parts: dict[Literal, tuple[list[Literal], list[tuple[Literal, ...]]]] = {}
    for clause in clauses:
        atoms, members = parts.setdefault(root(clause[0].atom), ([], []))
        members.append(clause)
        atoms.extend(lit.atom for lit in clause if lit.atom not in atoms)
    return list(parts.values())


def truth_by_models(theory: Theory, statement: Literal) -> Truth:
    """The classical label of ``statement``: True (False) when it holds (fails) in every model.

    Exhaustive and exact. Two steps keep the enumeration small without changing the models: a fact
    fixes its atom (a model must satisfy it), and clauses that share no atom are enumerated apart
    (the models are the products of the parts' models). Raises InconsistentTheory when there is no
    model and ModelCheckTooLarge when a part has more than :data:`MAX_MODEL_ATOMS` atoms.
    """
    fixed: dict[Literal, bool] = {}
    for fact in theory.facts:
        if fixed.setdefault(fact.atom, not fact.negated) == fact.negated:
            raise InconsistentTheory(f"the facts state {fact.atom} and its negation")
    open_clauses = []
    for clause in ground_clauses(theory.rules, theory.names() | _statement_names(statement)):
        if any(fixed.get(lit.atom) == (not lit.negated) for lit in clause.literals):
            continue
        rest = tuple(lit for lit in clause.literals if lit.atom not in fixed)
        if not rest:
            raise InconsistentTheory(f"{clause.source} is violated by the facts")
        open_clauses.append(rest)
    values: set[bool] = {fixed[statement.atom]} if statement.atom in fixed else {True, False}
    for atoms, clauses in _components(open_clauses):
        table = _assignments(len(atoms))
        models = table[_holds(table, atoms, clauses)]
        if not len(models):
            raise InconsistentTheory("no assignment satisfies the facts and rules")
        if statement.atom in atoms:
            values = set(models[:, atoms.index(statement.atom)].tolist())
    if len(values) > 1:
        return Truth.UNKNOWN
    return Truth.TRUE if values == {not statement.negated} else Truth.FALSE


def entails_by_models(theory: Theory, literal: Literal) -> bool:
    """Whether ``literal`` is true in every model of ``theory`` (see :func:`truth_by_models`)."""
    return truth_by_models(theory, literal) is Truth.TRUE


def rules_equivalent(first: Sequence[Rule], second: Sequence[Rule]) -> bool:
    """Whether two rule sets have the same truth table, rules about X taken for one fresh individual.

    Rules about X are instantiated for a name that occurs nowhere else and ground rules kept as
    they are; equal tables then mean the universally closed sets are equivalent (the fresh name
    generalises). Unequal tables may, in contrived cases (a ground rule that is an instance of a
    rule about X), miss an equivalence. Used to catch a rewrite that is not a logical paraphrase.
    """
    names = {"_"}
    sides = [[clause.literals for clause in ground_clauses(rules, names)] for rules in (first, second)]
    atoms = list(dict.fromkeys(lit.atom for clauses in sides for clause in clauses for lit in clause))
    table = _assignments(len(atoms))
    return bool(np.array_equal(_holds(table, atoms, sides[0]), _holds(table, atoms, sides[1])))


# ---------------------------------------------------------------------------------------------
# The symbolic form: "facts: kind(anne); ¬rough(bob) | rules: kind(X)∧¬rough(X)→nice(X) | query: nice(anne)".

_LITERAL = re.compile(r"(¬?)([a-z]+)\(([A-Za-z]+(?:,[A-Za-z]+)*)\)")


def format_problem(theory: Theory, statement: Literal) -> str:
    """The theory and statement in the form :func:`parse_problem` reads back."""
    return (f"facts: {'; '.join(map(str, theory.facts))} | rules: {'; '.join(map(str, theory.rules))} "
            f"| query: {statement}")


def _parse_literal(text: str) -> Literal:
    match = _LITERAL.fullmatch(text.strip())
    if match is None:
        raise FormSyntaxError(f"not a literal: {text.strip()!r}")
    negation, predicate, args = match.groups()
    return Literal(predicate, tuple(args.split(",")), bool(negation))


def _parse_formula(text: str) -> Formula:
    if AND in text and OR in text:
        raise FormSyntaxError(f"mixed ∧ and ∨ in one rule side: {text!r}")
    connective = OR if OR in text else AND
    return _formula(connective, [_parse_literal(part) for part in text.split(connective)])


def _parse_rule(text: str) -> Rule:
    body, arrow, head = text.partition(ARROW)
    if not arrow:
        raise FormSyntaxError(f"a rule without {ARROW}: {text!r}")
    return Rule(_parse_formula(body), _parse_formula(head))


def parse_problem(text: str) -> tuple[Theory, Literal]:
    """Read :func:`format_problem`'s form back; FormSyntaxError when it is not one."""
    parts = {}
    for part in text.split(" | "):
        key, _, value = part.partition(":")
        parts[key.strip()] = value
    if sorted(parts) != ["facts", "query", "rules"]:
        raise FormSyntaxError(f"expected 'facts: ... | rules: ... | query: ...', got {text!r}")
    facts = tuple(_parse_literal(part) for part in parts["facts"].split(";") if part.strip())
    rules = tuple(_parse_rule(part.strip()) for part in parts["rules"].split(";") if part.strip())
    try:
        return Theory(facts, rules), _parse_literal(parts["query"])
    except ValueError as exc:
        raise FormSyntaxError(str(exc)) from None

