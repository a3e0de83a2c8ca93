"""The semantic-fragments suite: the released files, the model-theoretic evaluator, the generators
and their checks, and the natural-logic core's agreement with the released monotonicity labels."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.core.vocab import LABELS
from engine.logic.situations import (
    PERSON,
    PLACE,
    Const,
    FormError,
    Implies,
    Not,
    Quant,
    Rel,
    Var,
    bounded_domain,
    conj,
    disj,
    judge,
    read_pair,
    show_pair,
)
from engine.probes.fragments import (
    FRAGMENTS,
    LOGIC_FRAGMENTS,
    MONOTONICITY_FRAGMENTS,
    SUITE,
    check,
    did,
    did_not,
    generate,
    how_many,
    monotonicity_agreement,
    only_visited,
    opening_determiner,
    read,
    taller,
    visited,
)
from engine.probes.suites import ProbeCheckError, get_suite


@pytest.fixture(scope="module")
def fragments_dir(settings: Settings) -> Path:
    """The released semantic fragments under ``settings.shared_data_dir``."""
    folder = settings.shared_data_dir / "semantic_fragments"
    if not folder.is_dir():
        pytest.skip(f"semantic fragments not found at {folder} (the shared data folder provides them)")
    return folder


@pytest.fixture(scope="module")
def sample(settings) -> list:
    """A small seeded sample: three items of every fragment."""
    return generate(3 * len(FRAGMENTS), 11, settings=settings)


# Reading the released files --------------------------------------------------------------------

def test_folder_reads_every_fragments_dev_file(fragments_dir: Path) -> None:
    items = read(fragments_dir)
    assert {i.category for i in items} == set(FRAGMENTS)
    for fragment in FRAGMENTS:
        lines = (fragments_dir / fragment / "dev.tsv").read_text(encoding="utf-8").splitlines()
        assert sum(i.category == fragment for i in items) == len(lines)
    assert {i.label for i in items} == set(LABELS)
    first = items[0]
    assert first.suite == "fragments" and first.form == ""
    assert first.family == f"{first.category}:{first.meta['id']}"
    assert first.meta["source"].endswith(f"{first.category}/dev.tsv")


def test_one_file_keeps_its_labels_and_groups(fragments_dir: Path) -> None:
    negation = read(fragments_dir / "negation" / "dev.tsv")
    assert len(negation) == 1000 and {i.category for i in negation} == {"negation"}
    assert [sum(i.label == label for i in negation) for label in LABELS] == [325, 330, 345]
    assert {i.group for i in negation} == {""}
    simple = read(fragments_dir / "monotonicity_simple" / "dev.tsv")
    assert simple[0].group == opening_determiner(simple[0].premise) != "" and "every" in {i.group for i in simple}


def test_malformed_files_are_one_line_errors(tmp_path: Path) -> None:
    folder = tmp_path / "negation"
    folder.mkdir()
    bad = folder / "dev.tsv"
    bad.write_text("d-1\tJoan has only visited Peru\tJoan didn't visit Chile\tENTAILMENT\n"
                   "d-2\tJoan has only visited Peru\tCONTRADICTION\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"{bad}:2: expected 4 tab-separated fields") as caught:
        read(bad)
    assert "\n" not in str(caught.value)
    bad.write_text("d-1\tJoan has only visited Peru\tJoan didn't visit Chile\tMAYBE\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"{bad}:1: label 'MAYBE'"):
        read(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no <fragment>/dev.tsv"):
        read(empty)


# The evaluator on hand-checked pairs --------------------------------------------------------------

def label(premise, hypothesis) -> str:
    return judge(premise, hypothesis).label.value


def test_negation() -> None:
    # "Joan did not visit Paris" / "Joan visited Paris"
    assert label(Not(visited("Joan", "Paris")), visited("Joan", "Paris")) == "contradiction"
    # "Joan has only visited Paris, Bob has only visited Rome" / ...
    premise = conj(only_visited("Joan", ["Paris"]), only_visited("Bob", ["Rome"]))
    assert label(premise, did_not("Joan", "Paris").form) == "contradiction"
    assert label(premise, did_not("Joan", "Rome").form) == "entailment"
    assert label(premise, did_not("Ann", "Rome").form) == "neutral"


def test_boolean() -> None:
    # "Joan has visited Paris or Rome" / "Joan didn't visit Paris"
    assert label(disj(visited("Joan", "Paris"), visited("Joan", "Rome")), did_not("Joan", "Paris").form) == "neutral"
    # "Joan has visited neither Paris nor Rome" / "Joan visited Rome"
    neither = conj(Not(visited("Joan", "Paris")), Not(visited("Joan", "Rome")))
    assert label(neither, did("Joan", "Rome").form) == "contradiction"
    # "Joan and Bob have only visited Paris" / "Bob didn't visit Rome"
    both = conj(only_visited("Joan", ["Paris"]), only_visited("Bob", ["Paris"]))
    assert label(both, did_not("Bob", "Rome").form) == "entailment"


def test_quantifier() -> None:
    x, y = Var("x"), Var("y")
    everything = Quant("some", "x", PERSON, conj(Quant("every", "y", PERSON, Rel("met", x, y)),
                                                 Quant("every", "y", PLACE, Rel("visited", x, y))))
    # "Someone has visited every person and every place"
    assert label(everything, did("Joan", "Paris").form) == "neutral"
    assert label(everything, Quant("some", "x", PERSON, Rel("visited", x, Const("Paris")))) == "entailment"
    assert label(everything, Quant("every", "x", PERSON, Not(Rel("met", x, Const("Joan"))))) == "contradiction"
    # "Everyone has visited every place" / "Joan didn't visit Bob": Bob is a person, not a place
    every_place = Quant("every", "x", PERSON, Quant("every", "y", PLACE, Rel("visited", x, y)))
    assert label(every_place, did_not("Joan", "Bob", PERSON).form) == "neutral"
    assert label(every_place, did_not("Joan", "Paris").form) == "contradiction"


def test_counting() -> None:
    three = how_many("Joan", PLACE, "=", 3)
    # "Joan has visited only three places" / "... more than four places" / four named places
    assert label(three, how_many("Joan", PLACE, ">", 4)) == "contradiction"
    assert label(three, conj(*(visited("Joan", p) for p in ("Paris", "Rome", "Oslo", "Lima")))) == "contradiction"
    assert label(three, conj(visited("Joan", "Paris"), visited("Joan", "Rome"))) == "neutral"
    # "Joan has visited Paris, Rome and Oslo" lists places without saying they are all
    listed = conj(*(visited("Joan", p) for p in ("Paris", "Rome", "Oslo")))
    assert label(listed, how_many("Joan", PLACE, ">", 2)) == "entailment"
    assert label(listed, how_many("Joan", PLACE, ">", 3)) == "neutral"
    assert label(only_visited("Joan", ["Paris", "Rome", "Oslo"]), how_many("Joan", PLACE, ">", 3)) == "contradiction"


def test_conditional() -> None:
    rule = Implies(visited("Joan", "Reno"), visited("Bob", "Omaha"))
    assert label(conj(visited("Joan", "Reno"), rule), visited("Bob", "Omaha")) == "entailment"
    assert label(conj(Not(visited("Joan", "Reno")), rule), visited("Bob", "Omaha")) == "neutral"
    assert label(conj(Not(visited("Bob", "Omaha")), rule), Not(visited("Joan", "Reno"))) == "entailment"
    assert label(conj(visited("Bob", "Omaha"), rule), visited("Joan", "Reno")) == "neutral"


def test_comparative() -> None:
    # "Joan is as tall as Bob, Bob is taller than Ann"
    premise = conj(Rel("same_height", Const("Joan"), Const("Bob")), taller("Bob", "Ann"))
    assert label(premise, taller("Joan", "Ann")) == "entailment"
    assert label(premise, taller("Ann", "Joan")) == "contradiction"
    assert label(premise, taller("Ann", "Sue")) == "neutral"


def test_bounded_domain_adds_the_witnesses_it_needs() -> None:
    x = Var("x")
    someone = Quant("some", "x", PERSON, Rel("visited", x, Const("Paris")))
    domain = bounded_domain(someone, did("Joan", "Paris").form)
    assert domain.people == ("Joan", "person#1") and domain.places == ("Paris",)
    counted = bounded_domain(how_many("Joan", PLACE, "=", 3), how_many("Joan", PLACE, ">", 4))
    assert len(counted.places) == 3 + 5
    alternating = Quant("every", "x", PERSON, Quant("some", "y", PLACE, Rel("visited", x, Var("y"))))
    with pytest.raises(FormError, match="existential under a universal"):
        bounded_domain(alternating, did("Joan", "Paris").form)


def test_forms_read_back_and_unsatisfiable_premises_are_refused() -> None:
    pair = (only_visited("New York", ["Santa Fe"]), how_many("Joan", PERSON, "<", 2))
    assert read_pair(show_pair(*pair)) == pair
    with pytest.raises(FormError, match="holds in no situation"):
        judge(conj(visited("Joan", "Paris"), Not(visited("Joan", "Paris"))), did("Joan", "Rome").form)


# Generating and checking -------------------------------------------------------------------------

def test_suite_is_registered() -> None:
    assert get_suite("fragments") is SUITE
    assert SUITE.generate is generate and SUITE.read is read and SUITE.check is check


def test_generated_labels_are_rederived(sample: list, settings) -> None:
    assert [i.category for i in sample[:len(FRAGMENTS)]] == list(FRAGMENTS)
    for item in sample:
        check(item, settings=settings)
        assert item.label in LABELS and item.group and item.form
    for item in sample:
        if item.category in LOGIC_FRAGMENTS:
            situations = (item.meta["with_hypothesis"], item.meta["against_hypothesis"])
            expected = {"entailment": (True, False), "contradiction": (False, True), "neutral": (True, True)}
            assert tuple(s is not None for s in situations) == expected[item.label]
        else:
            assert item.meta["polarity"] in "↑↓" and item.premise.split()[item.meta["site"] - 1] == item.meta["old"]


def test_generation_is_seeded_and_balanced(settings) -> None:
    first = generate(24, 5, settings=settings)
    assert first == generate(24, 5, settings=settings)
    logic = [i for i in first if i.category in LOGIC_FRAGMENTS]
    assert {i.label for i in logic} == set(LABELS)
    with pytest.raises(InputError):
        generate(0, 1, settings=settings)


def test_check_catches_a_wrong_label(sample: list, settings) -> None:
    for fragment in ("negation", "counting", "comparative", *MONOTONICITY_FRAGMENTS):
        item = next(i for i in sample if i.category == fragment)
        wrong = next(label for label in LABELS if label != item.label)
        with pytest.raises(ProbeCheckError):
            check(dataclasses.replace(item, label=wrong), settings=settings)
    mono = next(i for i in sample if i.category == "monotonicity_simple")
    with pytest.raises(ProbeCheckError):
        check(dataclasses.replace(mono, hypothesis=mono.premise), settings=settings)
    with pytest.raises(ProbeCheckError, match="no check"):
        check(dataclasses.replace(mono, category="released"), settings=settings)


def test_monotonicity_derivation_in_form(sample: list) -> None:
    mono = [i for i in sample if i.category in MONOTONICITY_FRAGMENTS]
    for item in mono:
        marked, step = item.form.split(" ⊢ ")
        assert [w[:-1] for w in marked.split()] == item.premise.split()
        assert f"{item.meta['old']}→{item.meta['new']} ({item.meta['lexical']})" in step
        assert step.endswith(item.meta["projected"])


# Agreement with the released monotonicity labels -------------------------------------------------

def test_monotonicity_agreement_on_a_slice(fragments_dir: Path, settings) -> None:
    """On the first 50 items of each released monotonicity dev file the core labelled 49 (coverage
    0.49) and agreed on 48 (0.98); on all 2,000 dev items it labels 977 and agrees on 949 (0.971).
    The floors sit a little below, so a change to the core that costs agreement fails here."""
    report = monotonicity_agreement(fragments_dir, limit=50, settings=settings)
    overall = report["overall"]
    assert overall["items"] == 100
    assert overall["coverage"] >= 0.42 and overall["agreement"] >= 0.93
    simple, hard = report["by_fragment"]["monotonicity_simple"], report["by_fragment"]["monotonicity_hard"]
    assert simple["coverage"] >= 0.55 and simple["agreement"] >= 0.93
    assert hard["coverage"] >= 0.25 and hard["agreement"] >= 0.85
    assert set(report["by_edits"]) <= {"1", "2", "3+"} and report["unlabelled_reasons"]
