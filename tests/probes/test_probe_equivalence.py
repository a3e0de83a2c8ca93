"""The logic core, the equivalence-laws suite (labels from truth tables) and the hypothesis-only baseline."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from engine.core.errors import InputError
from engine.logic.formulas import (
    And,
    Atom,
    Formula,
    FormulaSyntaxError,
    Implies,
    Not,
    Or,
    contradictory,
    entails,
    equivalent,
    is_satisfiable,
    is_tautology,
    negate,
    nli_relation,
    parse,
    show,
    simplify_negation,
    truth_table,
)
from engine.logic.laws import LAWS, LAWS_BY_NAME, Law
from engine.probes import get_suite
from engine.probes.equivalence import (
    FamilyLexicon,
    Predication,
    ProbeCheckError,
    Verb,
    build_family,
    check,
    equivalence_pairs,
    generate,
    realise,
    report,
)
from engine.probes.hypothesis_only import hypothesis_only_baseline
from engine.probes.record import ProbeItem

p, q, r = Atom("p"), Atom("q"), Atom("r")


@pytest.fixture(scope="module")
def sample() -> list[ProbeItem]:
    return generate(300, 11) + generate(300, 12)


# --- logic core ------------------------------------------------------------------------------


def test_print_and_parse_round_trip() -> None:
    formula = Implies(And(p, Not(q)), Or(r, Not(Not(p))))
    assert show(formula) == "(p ∧ ¬q) → (r ∨ ¬¬p)"
    assert parse(show(formula)) == formula
    assert parse("~(p & q) -> (r | p)") == Implies(Not(And(p, q)), Or(r, p))  # ASCII spellings
    with pytest.raises(FormulaSyntaxError):
        parse("p ∧ q ∨ r")  # a chain without brackets is ambiguous
    with pytest.raises(FormulaSyntaxError):
        parse("(p ∧ q")


def test_truth_table_relations() -> None:
    assert len(truth_table(And(p, q))) == 4
    assert is_tautology(Or(p, Not(p))) and not is_satisfiable(And(p, Not(p)))
    assert equivalent(Not(And(p, q)), Or(Not(p), Not(q)))
    assert entails(And(p, q), p) and not entails(p, And(p, q))
    assert contradictory(And(p, q), Not(p))
    assert nli_relation(And(p, q), Or(Not(p), Not(q))) == "contradiction"
    with pytest.raises(ValueError):
        nli_relation(And(p, Not(p)), q)  # every label would hold vacuously


def test_paper_conditional_contradiction_is_not_one() -> None:
    """P → Q and P → ¬Q are both true when P is false: neutral, not the paper's contradiction."""
    assert not contradictory(Implies(p, q), Implies(p, Not(q)))
    assert nli_relation(Implies(p, q), Implies(p, Not(q))) == "neutral"


def test_negation_helpers() -> None:
    assert negate(Not(p)) == p and negate(And(p, q)) == Not(And(p, q))
    assert simplify_negation(Not(Implies(p, And(q, Not(r))))) == And(p, Or(Not(q), r))
    assert simplify_negation(Not(Not(Or(p, q)))) == Or(p, q)


# --- the laws, by hand -----------------------------------------------------------------------

HAND_EXAMPLES = {
    "de_morgan_and": ("¬(p ∧ ¬q)", "¬p ∨ q"),
    "de_morgan_or": ("¬(¬p ∨ q)", "p ∧ ¬q"),
    "double_negation": ("¬¬(p ∨ q)", "p ∨ q"),
    "absorption_and": ("¬p ∧ (¬p ∨ q)", "¬p"),
    "absorption_or": ("p ∨ (p ∧ r)", "p"),
    "commutative_and": ("(p ∨ q) ∧ r", "r ∧ (p ∨ q)"),
    "commutative_or": ("p ∨ ¬q", "¬q ∨ p"),
    "associative_and": ("(p ∧ q) ∧ ¬r", "p ∧ (q ∧ ¬r)"),
    "associative_or": ("(p ∨ q) ∨ r", "p ∨ (q ∨ r)"),
    "idempotent_and": ("¬q ∧ ¬q", "¬q"),
    "idempotent_or": ("r ∨ r", "r"),
    "distributive_and": ("p ∧ (q ∨ ¬r)", "(p ∧ q) ∨ (p ∧ ¬r)"),
    "distributive_or": ("p ∨ (q ∧ r)", "(p ∨ q) ∧ (p ∨ r)"),
    "conditional": ("¬p → q", "p ∨ q"),
    "contrapositive": ("p → ¬q", "q → ¬p"),
}


def test_every_law_has_a_hand_checked_example() -> None:
    assert set(HAND_EXAMPLES) == set(LAWS_BY_NAME)
    for name, (before, after) in HAND_EXAMPLES.items():
        law = LAWS_BY_NAME[name]
        assert law.apply(parse(before)) == parse(after), name
        assert equivalent(parse(before), parse(after)), name


def test_laws_apply_only_to_their_left_hand_side() -> None:
    assert LAWS_BY_NAME["de_morgan_and"].apply(parse("p ∧ q")) is None
    assert LAWS_BY_NAME["absorption_and"].apply(parse("p ∧ (q ∨ p)")) is None
    assert LAWS_BY_NAME["idempotent_or"].apply(parse("p ∨ q")) is None
    assert LAWS_BY_NAME["de_morgan_and"].statement == "¬(P ∧ Q) ≡ ¬P ∨ ¬Q"


def test_family_formulas() -> None:
    """C is the negation of A; D is the law applied inside C, or the negation of B."""
    pairs = {(pair.role, pair.direction): (show(pair.premise), show(pair.hypothesis))
             for pair in equivalence_pairs(LAWS_BY_NAME["absorption_and"], parse("¬p ∧ (¬p ∨ q)"))}
    assert pairs[("A-B", "forward")] == ("¬p ∧ (¬p ∨ q)", "¬p")
    assert pairs[("C-D", "forward")] == ("¬(¬p ∧ (¬p ∨ q))", "p")
    assert pairs[("B-D", "backward")] == ("p", "¬p")
    de_morgan = {pair.role: show(pair.hypothesis)
                 for pair in equivalence_pairs(LAWS_BY_NAME["de_morgan_and"], parse("¬(p ∧ q)")) if pair.direction == "forward"}
    assert de_morgan == {"A-B": "¬p ∨ ¬q", "C-D": "¬(¬p ∨ ¬q)", "A-C": "p ∧ q", "B-D": "¬(¬p ∨ ¬q)"}
    roles = {pair.role for pair in equivalence_pairs(LAWS_BY_NAME["double_negation"], parse("¬¬p"))}
    assert roles == {"A-B", "A-C", "B-D"}  # C and D are both ¬p


def _words() -> FamilyLexicon:
    verbs = {"p": Verb("plays the guitar", "play the guitar"), "q": Verb("eats apples", "eat apples"),
             "r": Verb("drinks coffee", "drink coffee"), "s": Verb("reads novels", "read novels")}
    return FamilyLexicon("Anna", "Ben", verbs)


def test_a_broken_law_is_caught() -> None:
    """De Morgan without flipping the connective: ¬(P ∧ Q) 'rewritten' to ¬P ∧ ¬Q."""
    def broken(f: Formula) -> Formula | None:
        return And(negate(f.operand.left), negate(f.operand.right)) if isinstance(f, Not) and isinstance(f.operand, And) else None

    law = Law("de_morgan_broken", broken, (Not(And(Atom("P"), Atom("Q"))),))
    with pytest.raises(ProbeCheckError, match="unsound"):
        build_family(law, parse("¬(p ∧ q)"), _words(), "broken", random.Random(0))


def test_check_rejects_a_wrong_label_or_form(sample: list[ProbeItem]) -> None:
    item = next(item for item in sample if item.label == "entailment")
    with pytest.raises(ProbeCheckError, match="truth table says entailment"):
        check(replace(item, label="contradiction"))
    with pytest.raises(ProbeCheckError):
        check(replace(item, form="p ∧ q"))
    with pytest.raises(ProbeCheckError):
        check(replace(item, meta={**item.meta, "atoms": {}}))


# --- English ---------------------------------------------------------------------------------


class _First(random.Random):
    """Always the first surface form, and verb-phrase coordination."""

    def choice(self, seq: Any) -> Any:
        return seq[0]

    def random(self) -> float:
        return 0.0


class _Last(_First):
    """Always the last surface form, and clause coordination."""

    def choice(self, seq: Any) -> Any:
        return seq[-1]

    def random(self) -> float:
        return 0.99


def test_english_realisation() -> None:
    words = _words()
    lexicon = {atom: words.predication(atom) for atom in words.verbs}
    lexicon["t"] = Predication("Ben", words.verbs["q"])
    assert realise(parse("¬(p ∨ q)"), lexicon, _First()) == "Anna neither plays the guitar nor eats apples."
    assert realise(parse("¬(p ∨ q)"), lexicon, _Last()) == "It is not the case that either Anna plays the guitar or Anna eats apples."
    assert realise(parse("¬p → q"), lexicon, _First()) == "If Anna does not play the guitar, then Anna eats apples."
    assert realise(parse("¬p → q"), lexicon, _Last()) == "Anna eats apples unless Anna plays the guitar."
    assert realise(parse("(p ∨ q) ∧ ¬r"), lexicon, _First()) == "Anna either plays the guitar or eats apples, and does not drink coffee."
    assert realise(parse("p ∧ t"), lexicon, _First()) == "Both Anna plays the guitar and Ben eats apples."


def test_surface_forms_vary(sample: list[ProbeItem]) -> None:
    texts = [text.lower() for item in sample for text in (item.premise, item.hypothesis)]
    for marker in ("either ", " or ", "both ", " and ", "neither ", "if ", " unless ", "it is not the case that", "does not "):
        assert sum(marker in text for text in texts) >= 3, marker
    assert any(text.startswith("if ") for text in texts) and any(" if " in text and not text.startswith("if ") for text in texts)


def test_one_person_per_family(sample: list[ProbeItem]) -> None:
    people: dict[str, set[str]] = {}
    for item in sample:
        if item.meta.get("neutral_by") != "name":
            people.setdefault(item.family, set()).update(sentence.split()[0] for sentence in item.meta["atoms"].values())
    assert all(len(names) == 1 for names in people.values())
    consecutive = [next(iter(people[family])) for family in dict.fromkeys(item.family for item in sample[:300])]
    assert all(first != second for first, second in zip(consecutive, consecutive[1:]))


# --- generation ------------------------------------------------------------------------------


def test_every_generated_item_passes_check(sample: list[ProbeItem]) -> None:
    for item in sample:
        check(item)
        premise, hypothesis = item.form.split(" ⊢ ")
        assert show(parse(premise)) == premise and show(parse(hypothesis)) == hypothesis
    assert get_suite("equivalence").check is check


def test_balance(sample: list[ProbeItem]) -> None:
    items = generate(len(LAWS) * 12, 5)
    labels = [item.label for item in items]
    assert all(abs(labels.count(label) - len(items) / 3) <= len(items) * 0.05 for label in set(labels))
    assert {item.category for item in items} == set(LAWS_BY_NAME)
    roles = {(item.meta["pair"], item.meta["direction"]) for item in sample}
    assert roles >= {(role, direction) for role in ("A-B", "C-D", "A-C", "B-D", "neutral") for direction in ("forward", "backward")}
    assert {item.meta["neutral_by"] for item in sample if item.label == "neutral"} == {"predicate", "name", "polarity"}


def test_determinism_and_bad_n() -> None:
    assert generate(60, 7) == generate(60, 7)
    assert generate(60, 7) != generate(60, 8)
    assert len(generate(7, 1)) == 7
    for bad in (0, -3):
        with pytest.raises(InputError):
            generate(bad, 1)


def test_hypothesis_only_baseline_near_chance() -> None:
    """Measured: 0.318 against a majority rate of 0.340 (n=600, trained on seed 101, tested on
    seed 202); other seed pairs gave 0.315 to 0.357. The bound, majority + 0.08, is about four standard errors at n=600, and
    the same classifier finds a planted one-word cue per label almost perfectly."""
    train, test = generate(600, 101), generate(600, 202)
    result = hypothesis_only_baseline(train, test)
    assert result["n_test"] == 600
    assert result["accuracy"] < result["majority_accuracy"] + 0.08

    def planted(items: list[ProbeItem]) -> list[ProbeItem]:
        cue = {"entailment": "Surely.", "neutral": "Maybe.", "contradiction": "Hardly."}
        return [replace(item, hypothesis=f"{item.hypothesis} {cue[item.label]}") for item in items]

    assert hypothesis_only_baseline(planted(train), planted(test))["accuracy"] > 0.95


# --- report ----------------------------------------------------------------------------------


def _item(law: str, family: str, pair: str, direction: str, label: str) -> ProbeItem:
    return ProbeItem(premise="x", hypothesis="y", label=label, suite="equivalence", category=law, group=direction,
                     family=family, meta={"pair": pair, "direction": direction})


def test_report_both_directions() -> None:
    cases = [  # (law, family, pair, direction, gold, predicted)
        ("de_morgan_and", "f1", "A-B", "forward", "entailment", "entailment"),
        ("de_morgan_and", "f1", "A-B", "backward", "entailment", "neutral"),
        ("de_morgan_and", "f1", "C-D", "forward", "entailment", "entailment"),
        ("de_morgan_and", "f1", "C-D", "backward", "entailment", "entailment"),
        ("de_morgan_and", "f1", "A-C", "forward", "contradiction", "contradiction"),
        ("de_morgan_and", "f1", "neutral", "forward", "neutral", "entailment"),
        ("de_morgan_and", "f2", "A-B", "forward", "entailment", "contradiction"),
        ("de_morgan_and", "f2", "A-B", "backward", "entailment", "entailment"),
        ("conditional", "f3", "A-B", "forward", "entailment", "entailment"),
        ("conditional", "f3", "A-B", "backward", "entailment", "entailment"),
    ]
    items = [_item(*case[:5]) for case in cases]
    tables = report(items, [case[5] for case in cases], [[1.0, 0.0, 0.0]] * len(cases))
    rows = {row["law"]: row for row in tables["both_directions"]}
    assert list(rows) == ["de_morgan_and", "conditional", "all"]
    de_morgan = rows["de_morgan_and"]
    assert (de_morgan["equivalences"], de_morgan["recognised"]) == (3, 1)
    assert de_morgan["forward_accuracy"] == pytest.approx(2 / 3) and de_morgan["backward_accuracy"] == pytest.approx(2 / 3)
    assert (de_morgan["forward_only"], de_morgan["backward_only"]) == (1, 1)
    assert (de_morgan["forward_said_contradiction"], de_morgan["forward_said_neutral"]) == (1, 0)
    assert (de_morgan["backward_said_neutral"], de_morgan["backward_said_contradiction"]) == (1, 0)
    assert (rows["conditional"]["recognised"], rows["all"]["equivalences"], rows["all"]["recognised"]) == (1, 4, 2)
    roles = {(row["law"], row["pair"]): (row["n"], row["correct"]) for row in tables["per_pair_role"]}
    assert roles[("de_morgan_and", "A-B")] == (4, 2)
    assert roles[("de_morgan_and", "neutral")] == (1, 0)
    assert roles[("conditional", "A-B")] == (2, 2)
    with pytest.raises(InputError):
        report(items, ["entailment"], [])
