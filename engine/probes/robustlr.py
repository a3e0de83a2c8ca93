"""RobustLR-style deductive robustness (Sanyal et al., 2022), every label derived by the prover.

An item is a theory (facts and rules in English, the premise) and a statement (the hypothesis);
RobustLR's True / False / Unknown become entailment / contradiction / neutral. Labels come from
:mod:`engine.logic.prover`: forward chaining over the rules closed under contraposition, kept
only where it agrees with exhaustive model checking (classical consequence restricted to
literals) on a consistent theory.

A *family* is one base theory with a statement whose proof uses at least one rule, and its
variants in one evaluation set (``category``; the base item is ``original``, group ``base``):

* Logical contrast sets (paper §3.3, Tables 1 and 9-13). The edited rule is the rule of the proof
  whose body the facts satisfy (so "p" below is a fact); t is an unseen predicate (an adjective
  the theory does not use).
  C-CS adds t as a conjunct (p∧t→q), with the fact t or ¬t or neither, and again with the head
  negated (groups ``conj``, ``conj+neg``); D-CS adds t as a disjunct (p∨t→q), with t, with ¬p and
  ¬t in place of p, and again with the head negated (``disj``, ``disj+neg``); N-CS negates the
  head, the body literal p, or both (``neg``). The paper's tables give the labels for a one-rule
  proof; here the prover relabels every variant, so deeper proofs and distractors are accounted
  for, and a variant whose theory becomes inconsistent is dropped.
* Logical equivalence sets (§3.4). C-ES replaces every rule by its contrapositive (p→q ≡ ¬q→¬p);
  D1-ES merges two rules with one body, (p→q)∧(p→r) ≡ p→(q∧r); D2-ES merges two rules with one
  head, (p→q)∧(r→q) ≡ (p∨r)→q (the paper's naming: D1 is the conjunctive head, D2 the disjunctive
  body). The base theories of D1/D2 are sampled with such a pair. A rewrite must be a
  paraphrase: the generator checks the changed rules by truth table and the label by the prover
  and raises :class:`ProbeCheckError` otherwise.

Base statements alternate True and False (C-ES also Unknown, as in the paper, whose D1/D2 sets
have no Unknown); the contrast variants bring the Unknowns. Theories are small (three people,
five adjectives, one relation; a chain of one to three rules plus distractor facts and rules) so
that every item is also model-checked. ``meta`` holds the set, the edit, the proof (fact and
rule ids of the first forward-chaining proof) and its depth.

:func:`report` gives weighted F1 per set and group (the base items counted in each set, as in the
paper) and per-set consistency: ``strict`` (share of families with every item right, the
released evaluation's ``strict`` mode) and ``theory_f1`` (weighted F1 per family averaged over
families, the paper's headline number).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.core.errors import InputError
from engine.core.vocab import NLILabel
from engine.logic.prover import (
    AND,
    OR,
    VARIABLE,
    Closure,
    Formula,
    InconsistentTheory,
    Literal,
    ModelCheckTooLarge,
    Rule,
    Step,
    Theory,
    Truth,
    Verdict,
    closure,
    conjunction,
    disjunction,
    format_problem,
    parse_problem,
    prove,
    rules_equivalent,
    truth_by_models,
)
from engine.probes.record import ProbeItem
from engine.probes.scores import weighted_f1
from engine.probes.suites import ProbeCheckError, Suite, register_suite

SUITE_NAME = "robustlr"
CONTRAST_SETS = ("C-CS", "D-CS", "N-CS")
EQUIVALENCE_SETS = ("C-ES", "D1-ES", "D2-ES")
SETS = CONTRAST_SETS + EQUIVALENCE_SETS
ORIGINAL = "original"
LABEL_OF = {Truth.TRUE: NLILabel.ENTAILMENT, Truth.FALSE: NLILabel.CONTRADICTION, Truth.UNKNOWN: NLILabel.NEUTRAL}
TARGETS = {**{name: (Truth.TRUE, Truth.FALSE) for name in SETS}, "C-ES": (Truth.TRUE, Truth.FALSE, Truth.UNKNOWN)}

NAMES = ("anne", "bob", "charlie", "dave", "erin", "fiona", "gary", "harry")
ADJECTIVES = ("kind", "rough", "nice", "big", "quiet", "smart", "young", "red", "blue", "green", "furry",
              "round", "cold", "white", "tall", "small")
RELATIONS = ("likes", "sees", "chases", "visits")
THEORY_ADJECTIVES = 5
ATTEMPTS = 2000




# ---------------------------------------------------------------------------------------------
# English.

def _person(name: str) -> str:
    return name.capitalize()


def _verb_phrase(literal: Literal, plural: bool) -> str:
    """``is (not) kind`` / ``(does not) like(s) Bob``; plural for "they"."""
    if len(literal.args) == 1:
        return f"{'are' if plural else 'is'} {'not ' if literal.negated else ''}{literal.predicate}"
    verb, thing = literal.predicate, _person(literal.args[1])
    if literal.negated:
        return f"{'do' if plural else 'does'} not {verb[:-1]} {thing}"
    return f"{verb[:-1] if plural else verb} {thing}"


def _clause(literal: Literal) -> str:
    return f"{_person(literal.args[0])} {_verb_phrase(literal, plural=False)}"


def _joined(formula: Formula, parts: Sequence[str]) -> str:
    return f" {'and' if formula.connective == AND else 'or'} ".join(parts)


def realise_literal(literal: Literal) -> str:
    """"Anne is not kind." / "Anne likes Bob." """
    return _clause(literal) + "."


def realise_rule(rule: Rule) -> str:
    """"All kind people are nice." / "If someone is kind and is not rough then they are nice." /
    "If Charlie is tall then Erin is kind." (every body and head literal is about X or all are ground)."""
    if rule.is_ground:
        body = _joined(rule.body, [_clause(lit) for lit in rule.body.literals])
        return f"If {body} then {_joined(rule.head, [_clause(lit) for lit in rule.head.literals])}."
    if any(lit.args[0] != VARIABLE or VARIABLE in lit.args[1:] for lit in rule.literals):
        raise ValueError(f"cannot say rule {rule} in English (X must be the subject of every literal)")
    (first, *more_body), (head, *more_head) = rule.body.literals, rule.head.literals
    if not more_body and not more_head and len(first.args) == len(head.args) == 1 and not (first.negated or head.negated):
        return f"All {first.predicate} people are {head.predicate}."
    body = _joined(rule.body, [_verb_phrase(lit, plural=False) for lit in rule.body.literals])
    return f"If someone {body} then they {_joined(rule.head, [_verb_phrase(lit, plural=True) for lit in rule.head.literals])}."


def realise_theory(theory: Theory) -> str:
    """The facts, then the rules, one sentence each."""
    return " ".join([*map(realise_literal, theory.facts), *map(realise_rule, theory.rules)])


# ---------------------------------------------------------------------------------------------
# Labels the suite accepts.

def admit(theory: Theory, statement: Literal) -> Verdict | None:
    """The chaining verdict when the theory is consistent, small enough to model-check and the
    models give the same label; None otherwise (the generator drops such theories)."""
    try:
        verdict = prove(theory, statement)
        exact = truth_by_models(theory, statement)
    except (InconsistentTheory, ModelCheckTooLarge):
        return None
    return verdict if exact is verdict.truth else None


# ---------------------------------------------------------------------------------------------
# Contrast sets: minimal edits to the rule of the proof whose body the facts satisfy.

@dataclass(frozen=True)
class Variant:
    """A perturbed theory: its group (as in the paper's tables) and the edit made."""

    group: str
    edit: str
    theory: Theory


@dataclass(frozen=True)
class _Site:
    """Where a contrast edit goes: rule ``index``, fired by fact ``premise`` through ``body_literal``."""

    index: int
    rule: Rule
    premise: Literal
    body_literal: Literal


def _leaf_step(derived: Closure, literal: Literal) -> Step | None:
    """The first step of ``literal``'s proof that applies a rule forward to facts only."""
    for step in derived.tree(literal):
        if step.source.startswith("r") and step.forward and all(derived.steps[p].depth == 0 for p in step.premises):
            return step
    return None


def _edit_site(theory: Theory, statement: Literal) -> _Site | None:
    """The rule to perturb for ``statement`` (True or False with a rule in its proof), or None."""
    derived = closure(theory, set(statement.args))
    proved = next((lit for lit in (statement, statement.negate()) if lit in derived.steps), None)
    step = None if proved is None else _leaf_step(derived, proved)
    if step is None:
        return None
    index = int(step.source[1:]) - 1
    rule = theory.rules[index]
    for body_literal in rule.body.literals:
        grounded = body_literal if step.binding is None else body_literal.ground(step.binding)
        if grounded in step.premises:
            return _Site(index, rule, grounded, body_literal)
    raise AssertionError(f"step {step} does not use the body of {rule}")


def _with(theory: Theory, site: _Site, rule: Rule, facts: Sequence[Literal]) -> Theory:
    rules = list(theory.rules)
    rules[site.index] = rule
    return Theory(tuple(facts), tuple(rules))


def contrast_variants(set_name: str, theory: Theory, statement: Literal, unseen: str) -> list[Variant]:
    """The perturbations of ``set_name`` for ``statement``, with ``unseen`` as the new predicate t.

    Empty when the statement has no rule fired by facts in its proof, or when the edited rule's
    body cannot take the connective (C-CS needs a conjunctive body, D-CS a disjunctive one; a
    single literal is both). Labels are not set here: the caller proves each variant.
    """
    site = _edit_site(theory, statement)
    if site is None:
        return []
    rule, facts = site.rule, theory.facts
    entity = site.premise.args[0]
    t = Literal(unseen, (entity,))
    t_in_rule = t if rule.is_ground else Literal(unseen, (VARIABLE,))
    negated_head = rule.head.negate()
    with_t, with_not_t = (*facts, t), (*facts, t.negate())
    if set_name == "C-CS":
        if rule.body.connective != AND:
            return []
        body = conjunction(*rule.body.literals, t_in_rule)
        edits = [("conj", "add-conjunct", body, rule.head, facts),
                 ("conj", "add-conjunct+fact", body, rule.head, with_t),
                 ("conj+neg", "add-conjunct+negated-fact", body, rule.head, with_not_t),
                 ("conj+neg", "add-conjunct+negated-head", body, negated_head, facts),
                 ("conj+neg", "add-conjunct+negated-head+fact", body, negated_head, with_t),
                 ("conj+neg", "add-conjunct+negated-head+negated-fact", body, negated_head, with_not_t)]
    elif set_name == "D-CS":
        if len(rule.body.literals) > 1 and rule.body.connective != OR:
            return []
        body = disjunction(*rule.body.literals, t_in_rule)
        negated_facts = (*(site.premise.negate() if fact == site.premise else fact for fact in facts), t.negate())
        edits = [("disj", "add-disjunct", body, rule.head, facts),
                 ("disj", "add-disjunct+fact", body, rule.head, with_t),
                 ("disj+neg", "add-disjunct+negated-facts", body, rule.head, negated_facts),
                 ("disj+neg", "add-disjunct+negated-head", body, negated_head, facts),
                 ("disj+neg", "add-disjunct+negated-head+fact", body, negated_head, with_t),
                 ("disj+neg", "add-disjunct+negated-head+negated-facts", body, negated_head, negated_facts)]
    elif set_name == "N-CS":
        body = Formula(rule.body.connective, tuple(lit.negate() if lit == site.body_literal else lit
                                                   for lit in rule.body.literals))
        edits = [("neg", "negated-head", rule.body, negated_head, facts),
                 ("neg", "negated-body", body, rule.head, facts),
                 ("neg", "negated-body+negated-head", body, negated_head, facts)]
    else:
        raise ValueError(f"{set_name!r} is not a contrast set ({', '.join(CONTRAST_SETS)})")
    return [Variant(group, edit, _with(theory, site, Rule(body, head), edit_facts))
            for group, edit, body, head, edit_facts in edits]


# ---------------------------------------------------------------------------------------------
# Equivalence sets: rewrites that must keep every label.

Law = Callable[[Theory], Theory | None]


def contrapose_all(theory: Theory) -> Theory:
    """C-ES: every rule p→q replaced by ¬q→¬p."""
    return replace(theory, rules=tuple(rule.contrapositive() for rule in theory.rules))


def _merge_first_pair(theory: Theory, merge: Callable[[Rule, Rule], Rule | None]) -> Theory | None:
    rules = theory.rules
    for i, first in enumerate(rules):
        for j in range(i + 1, len(rules)):
            merged = merge(first, rules[j])
            if merged is not None:
                return replace(theory, rules=rules[:i] + (merged,) + rules[i + 1:j] + rules[j + 1:])
    return None


def _same_body(first: Rule, second: Rule) -> Rule | None:
    if first.body != second.body or OR in (first.head.connective, second.head.connective):
        return None
    return Rule(first.body, conjunction(*first.head.literals, *second.head.literals))


def _same_head(first: Rule, second: Rule) -> Rule | None:
    conjunctive = any(rule.body.connective == AND and len(rule.body.literals) > 1 for rule in (first, second))
    if first.head != second.head or conjunctive:
        return None
    return Rule(disjunction(*first.body.literals, *second.body.literals), first.head)


def merge_same_body(theory: Theory) -> Theory | None:
    """D1-ES: the first two rules p→q, p→r become p→q∧r (None when no two rules share a body)."""
    return _merge_first_pair(theory, _same_body)


def merge_same_head(theory: Theory) -> Theory | None:
    """D2-ES: the first two rules p→q, r→q become p∨r→q (None when no two rules share a head)."""
    return _merge_first_pair(theory, _same_head)


LAWS: dict[str, tuple[str, Law]] = {"C-ES": ("contrapose-all", contrapose_all),
                                    "D1-ES": ("merge-same-body", merge_same_body),
                                    "D2-ES": ("merge-same-head", merge_same_head)}


def _removed(old: Sequence[Rule], new: Sequence[Rule]) -> list[Rule]:
    rest = list(new)
    kept = []
    for rule in old:
        if rule in rest:
            rest.remove(rule)
        else:
            kept.append(rule)
    return kept


def rewrite_equivalently(theory: Theory, statement: Literal, law: Law) -> Theory | None:
    """``law`` applied to ``theory`` (None when it does not apply), checked to be a paraphrase.

    The rules it changed must have the same truth table as the rules they replace, and the
    statement must keep its label; otherwise the law is unsound and ProbeCheckError is raised.
    """
    rewritten = law(theory)
    if rewritten is None:
        return None
    if rewritten.facts != theory.facts or not rules_equivalent(_removed(theory.rules, rewritten.rules),
                                                              _removed(rewritten.rules, theory.rules)):
        raise ProbeCheckError(f"rewrite of {format_problem(theory, statement)} is not equivalent: "
                              f"{format_problem(rewritten, statement)}")
    before, after = admit(theory, statement), admit(rewritten, statement)
    if before is None or after is None or before.truth is not after.truth:
        raise ProbeCheckError(f"rewrite changed the label of {statement} "
                              f"({before and before.truth} before, {after and after.truth} after): "
                              f"{format_problem(rewritten, statement)}")
    return rewritten


# ---------------------------------------------------------------------------------------------
# Sampling base theories.

@dataclass(frozen=True)
class _Vocabulary:
    names: tuple[str, ...]  # the first is the chain's subject
    adjectives: tuple[str, ...]
    unseen: tuple[str, ...]
    relation: str


def _vocabulary(rng: random.Random) -> _Vocabulary:
    adjectives = rng.sample(ADJECTIVES, len(ADJECTIVES))
    return _Vocabulary(tuple(rng.sample(NAMES, 3)), tuple(adjectives[:THEORY_ADJECTIVES]),
                       tuple(adjectives[THEORY_ADJECTIVES:]), rng.choice(RELATIONS))


def _polarity(rng: random.Random) -> bool:
    return rng.random() < 0.3


def _random_literal(rng: random.Random, vocabulary: _Vocabulary, subject: str, adjectives: Sequence[str]) -> Literal:
    if rng.random() < 0.2:
        other = rng.choice([name for name in vocabulary.names if name != subject])
        return Literal(vocabulary.relation, (subject, other), _polarity(rng))
    return Literal(rng.choice(adjectives), (subject,), _polarity(rng))


def _lift(literal: Literal) -> Literal:
    """The literal with its subject replaced by X."""
    return replace(literal, args=(VARIABLE, *literal.args[1:]))


def _rule(rng: random.Random, body: Sequence[Literal], connective: str, head: Literal) -> Rule:
    """A rule over one subject, about X (mostly) or about the subject by name."""
    formula = conjunction if connective == AND else disjunction
    if rng.random() < 0.7:
        return Rule(formula(*map(_lift, body)), conjunction(_lift(head)))
    return Rule(formula(*body), conjunction(head))


@dataclass(frozen=True)
class _Chain:
    facts: tuple[Literal, ...]
    rules: tuple[Rule, ...]
    conclusion: Literal


def _chain(rng: random.Random, vocabulary: _Vocabulary, leaf_connectives: Sequence[str]) -> _Chain:
    """Facts c0 (and any conjunct's fact) and rules c0→c1, ..., c(d-1)→cd about one subject, d in 1..3."""
    subject = vocabulary.names[0]
    adjectives = list(vocabulary.adjectives)
    rng.shuffle(adjectives)
    links = [_random_literal(rng, vocabulary, subject, adjectives[:1])]
    depth = rng.choice((1, 2, 3))
    links += [Literal(adjective, (subject,), _polarity(rng)) for adjective in adjectives[1:depth + 1]]
    spare = adjectives[depth + 1:]
    facts, rules = [links[0]], []
    for k in range(1, depth + 1):
        connective = rng.choice(leaf_connectives if k == 1 else ("", "", AND, OR))
        body = [links[k - 1]]
        if connective and spare:
            extra = Literal(rng.choice(spare), (subject,), _polarity(rng))
            body.append(extra)
            if connective == AND:
                facts.append(extra)
        rules.append(_rule(rng, body, connective if len(body) > 1 else AND, links[k]))
    return _Chain(tuple(facts), tuple(rules), links[-1])


def _sibling(rng: random.Random, vocabulary: _Vocabulary, rules: Sequence[Rule], set_name: str) -> Rule | None:
    """For D1-ES a rule with the body of a chain rule, for D2-ES one with its head (else None)."""
    rule = rng.choice(list(rules))
    used = {lit.predicate for r in rules for lit in r.literals}
    fresh = [adjective for adjective in vocabulary.adjectives if adjective not in used] or list(vocabulary.adjectives)
    subject = VARIABLE if not rule.is_ground else rule.head.literals[0].args[0]
    other = Literal(rng.choice(fresh), (subject,), _polarity(rng))
    if set_name == "D1-ES":
        return Rule(rule.body, conjunction(other))
    if set_name == "D2-ES" and (rule.body.connective == OR or len(rule.body.literals) == 1):
        return Rule(conjunction(other), rule.head)
    return None


def _distractors(rng: random.Random, vocabulary: _Vocabulary, facts: list[Literal], rules: list[Rule]) -> None:
    """Add two or three facts and one or two rules that the proof does not need (it may, by chance)."""
    for _ in range(rng.choice((2, 3))):
        fact = _random_literal(rng, vocabulary, rng.choice(vocabulary.names), vocabulary.adjectives)
        if fact.atom not in {f.atom for f in facts}:
            facts.append(fact)
    for _ in range(rng.choice((1, 2))):
        subject = rng.choice(vocabulary.names)
        *body_adjectives, head = rng.sample(vocabulary.adjectives, 3)
        body = [_random_literal(rng, vocabulary, subject, [adjective]) for adjective in body_adjectives[:rng.choice((1, 1, 2))]]
        if len({lit.atom for lit in body}) == len(body):
            rules.append(_rule(rng, body, rng.choice((AND, OR)), Literal(head, (subject,), _polarity(rng))))


@dataclass(frozen=True)
class _Base:
    theory: Theory
    statement: Literal
    verdict: Verdict
    vocabulary: _Vocabulary


def _sample_base(rng: random.Random, set_name: str, target: Truth) -> _Base | None:
    """One try at a base theory for ``set_name`` whose statement is ``target`` (True/False with depth ≥ 1)."""
    vocabulary = _vocabulary(rng)
    leaf = {"C-CS": ("", AND), "D-CS": ("", OR)}.get(set_name, ("", "", AND, OR))
    chain = _chain(rng, vocabulary, leaf)
    facts, rules = list(chain.facts), list(chain.rules)
    if target is Truth.UNKNOWN:
        facts.pop(0)  # the chain's root fact: the chain no longer fires
        statement = chain.conclusion.negate() if rng.random() < 0.5 else chain.conclusion
    else:
        statement = chain.conclusion if target is Truth.TRUE else chain.conclusion.negate()
    if set_name in ("D1-ES", "D2-ES"):
        sibling = _sibling(rng, vocabulary, chain.rules, set_name)
        if sibling is None:
            return None
        rules.append(sibling)
    _distractors(rng, vocabulary, facts, rules)
    rng.shuffle(facts)
    rng.shuffle(rules)
    theory = Theory(tuple(facts), tuple(rules))
    verdict = admit(theory, statement)
    if verdict is None or verdict.truth is not target or (target is not Truth.UNKNOWN and not verdict.depth):
        return None
    return _Base(theory, statement, verdict, vocabulary)


def _variants(set_name: str, base: _Base, rng: random.Random) -> list[tuple[Variant, Verdict]]:
    """The family's variants with their verdicts (contrast variants the prover cannot admit are dropped)."""
    if set_name in LAWS:
        edit, law = LAWS[set_name]
        rewritten = rewrite_equivalently(base.theory, base.statement, law)
        return [] if rewritten is None else [(Variant("equivalent", edit, rewritten), base.verdict)]
    variants = contrast_variants(set_name, base.theory, base.statement, rng.choice(base.vocabulary.unseen))
    admitted = [(variant, admit(variant.theory, base.statement)) for variant in variants]
    return [(variant, verdict) for variant, verdict in admitted if verdict is not None]


def _item(set_name: str, family: str, category: str, variant: Variant, statement: Literal, verdict: Verdict) -> ProbeItem:
    return ProbeItem(
        premise=realise_theory(variant.theory), hypothesis=realise_literal(statement),
        label=LABEL_OF[verdict.truth].value, suite=SUITE_NAME, category=category, group=variant.group, family=family,
        form=format_problem(variant.theory, statement),
        meta={"set": set_name, "edit": variant.edit, "truth": str(verdict.truth), "proof": list(verdict.proof),
              "depth": verdict.depth},
    )


def _family(set_name: str, index: int, rng: random.Random) -> list[ProbeItem]:
    """Family ``index`` of ``set_name``: a base item (category ``original``) and its variants."""
    target = TARGETS[set_name][index % len(TARGETS[set_name])]
    name = f"{set_name}-{index:04d}"
    for _ in range(ATTEMPTS):
        base = _sample_base(rng, set_name, target)
        variants = [] if base is None else _variants(set_name, base, rng)
        if base is not None and variants:
            original = Variant("base", "none", base.theory)
            return [_item(set_name, name, ORIGINAL, original, base.statement, base.verdict),
                    *(_item(set_name, name, set_name, variant, base.statement, verdict) for variant, verdict in variants)]
    raise RuntimeError(f"no {set_name} family with a {target} statement in {ATTEMPTS} tries")


def generate(n: int, seed: int) -> list[ProbeItem]:
    """About ``n`` items, a sixth per set, in whole families (a set may go over by part of one family)."""
    if n < 1:
        raise InputError(f"the robustlr suite needs n >= 1 items, got {n}")
    rng = random.Random(seed)
    items: list[ProbeItem] = []
    for k, set_name in enumerate(SETS):
        quota, made, index = n // len(SETS) + (k < n % len(SETS)), 0, 0
        while made < quota:
            members = _family(set_name, index, rng)
            items.extend(members)
            made, index = made + len(members), index + 1
    return items


# ---------------------------------------------------------------------------------------------
# Checking and reporting.

def check(item: ProbeItem) -> None:
    """Re-derive the item from its form: the English, the chaining label and the model-checked label."""
    try:
        theory, statement = parse_problem(item.form)
        premise, hypothesis = realise_theory(theory), realise_literal(statement)
    except ValueError as exc:
        raise ProbeCheckError(f"unreadable form {item.form!r}: {exc}") from None
    if (premise, hypothesis) != (item.premise, item.hypothesis):
        raise ProbeCheckError(f"the text is not the form's: {item.premise!r} / {item.hypothesis!r} vs {premise!r} / {hypothesis!r}")
    try:
        truth = prove(theory, statement).truth
        exact = truth_by_models(theory, statement)
    except InconsistentTheory as exc:
        raise ProbeCheckError(f"inconsistent theory in {item.form!r}: {exc}") from None
    except ModelCheckTooLarge:
        exact = truth
    if LABEL_OF[truth] != item.label or exact is not truth:
        raise ProbeCheckError(f"{item.form!r} is labelled {item.label}; chaining gives {truth}, models give {exact}")


def _set_of(item: ProbeItem) -> str:
    return str(item.meta.get("set", item.category))


def _ordered(names: set[str], order: Sequence[str]) -> list[str]:
    return [name for name in order if name in names] + sorted(names - set(order))


def report(items: Sequence[ProbeItem], predicted: Sequence[str], probs: Sequence[Sequence[float]]) -> dict[str, list[dict[str, Any]]]:
    """Weighted F1 per set and per set × group, and consistency per set (probabilities unused).

    Each set's rows count its families' base items too (group ``base``), as the paper scores a
    base theory with its perturbations. ``strict``: share of families the victim gets entirely
    right; ``theory_f1``: weighted F1 within each family, averaged over families.
    """
    if len(items) != len(predicted):
        raise InputError(f"{len(items)} items but {len(predicted)} predictions")
    cells: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    families: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for item, label in zip(items, predicted):
        pair = (item.label, str(label))
        cells[(_set_of(item), "all")].append(pair)
        cells[(_set_of(item), item.group)].append(pair)
        families[_set_of(item)][item.family].append(pair)
    f1_rows, consistency_rows = [], []
    for set_name in _ordered({key[0] for key in cells}, SETS):
        groups = _ordered({key[1] for key in cells if key[0] == set_name} - {"all"}, ("base",))
        for group in ["all", *groups]:
            pairs = cells[(set_name, group)]
            f1_rows.append({"set": set_name, "group": group, "items": len(pairs),
                            "weighted_f1": weighted_f1([g for g, _ in pairs], [p for _, p in pairs])})
        members = list(families[set_name].values())
        consistency_rows.append({
            "set": set_name, "families": len(members),
            "strict": sum(all(g == p for g, p in pairs) for pairs in members) / len(members),
            "theory_f1": sum(weighted_f1([g for g, _ in pairs], [p for _, p in pairs]) for pairs in members) / len(members),
        })
    return {"weighted_f1": f1_rows, "consistency": consistency_rows}


SUITE = register_suite(Suite(
    name=SUITE_NAME,
    description="RobustLR-style deductive robustness: theories of facts and rules with contrast sets "
                "(C-CS, D-CS, N-CS) and equivalence sets (C-ES, D1-ES, D2-ES); labels from a prover "
                "(forward chaining under contraposition, checked against model enumeration).",
    generate=generate,
    check=check,
    report=report,
))
