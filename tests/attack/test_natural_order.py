"""Natural candidates first: the natural estimate orders a round, double negations wait until the
round's natural candidates are asked, and ``max-hvasr`` keeps the order of the validity estimate.
Real parses, WordNet, SmolLM2 and MiniLM, the shipped estimate files, a tiny real BERT victim."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from engine.attack.build import Attack
from engine.attack.recipe import AttackRecipe, load_recipe
from engine.attack.round import RoundStart, ask_reason, candidate_round
from engine.attack.search import Target, start_search
from engine.constraints.chain import ConstraintChain
from engine.core.errors import InputError
from engine.natlog.polarity import polarize
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.validity.estimate import NATURAL, ValidityGate, ValidityModel
from engine.validity.features import ValidityInput
from engine.victim.model import Victim
from tests.attacking import attack_of

DEV = Path(__file__).resolve().parents[2] / "results" / "validity"
PREMISE = "A young woman in a red apron is cutting a large onion in a small kitchen."
HYPOTHESIS = "A young woman is cutting a large onion in the kitchen."


def first_round(settings):
    # SNLI's captions: the indefinite subject is the scene's woman, so the double negation is ≡.
    attack = attack_of(settings.with_overrides(indefinite_reading="scene"))
    attack = dataclasses.replace(attack, chain=ConstraintChain.named(["relation-guard"]))
    polarized = polarize(parse(HYPOTHESIS, settings=attack.settings), conventions=attack.reading)
    assert attack.ranker.gate is not None
    return polarized, candidate_round(attack, RoundStart(polarized, get_setup("E2E"), HYPOTHESIS, PREMISE, top_k=100))


def test_double_negation_waits_for_the_natural_candidates(settings) -> None:
    """Under the validity estimate (``max-hvasr``) a double negation is among the first asked; under
    the shipped natural estimate every double negation comes after every candidate estimated at or
    over the floor, and nothing is dropped."""
    plain = settings.with_overrides(natural_estimate="none", natural_floor=0.0)
    _, old = first_round(plain)
    polarized, new = first_round(settings)
    doubles = [c.text for c in old.kept if c.operator == "DoubleNegation"]
    assert doubles, "the round makes a double negation"
    assert [c.text for c in old.kept].index(doubles[0]) < 3, "the validity estimate asks it early"
    assert {c.text for c in new.kept} == {c.text for c in old.kept}, "nothing is switched off"
    assert all(c.naturalness is None for c in old.kept)
    assert all(c.naturalness is not None and c.validity is not None for c in new.kept)
    order = [c.text for c in new.kept]
    late = [c for c in new.kept if c.naturalness is not None and c.naturalness < settings.natural_floor]
    assert {c.text for c in late} >= set(doubles), "double negations are estimated unnatural"
    assert max(order.index(c.text) for c in new.kept if c not in late) < min(order.index(c.text) for c in late)
    assert ask_reason(late[0], polarized, settings.search, settings.natural_floor).startswith("last resort")
    assert ask_reason(new.kept[0], polarized, settings.search, settings.natural_floor).startswith("natural first")


def test_the_search_records_why_and_follows_its_recipe(victim: Victim, attack: Attack, settings,
                                                        contradictions) -> None:
    """A run's recipe decides the order: the default names the natural estimate and records why each
    candidate was asked; ``max-hvasr`` leaves it out."""
    pair = contradictions[0]
    small = settings.with_overrides(top_k=8, query_budget=10)
    target = Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2C"))
    search = start_search(attack_of(small), target, victim)
    assert search.gate is not None and search.gate.estimator.natural is not None
    rnd = search.step()
    assert rnd.queried and len(rnd.reasons) == len(rnd.queried)
    trace = rnd.to_json()["queried"]
    assert all("why" in q and "naturalness" in q for q in trace)
    recipe = load_recipe("max-hvasr", small)
    old = start_search(attack_of(small, recipe), target, victim)
    assert old.gate is not None and old.gate.estimator.natural is None and old.gate.natural_floor == 0.0
    assert all("naturalness" not in q for q in old.step().to_json()["queried"])
    with pytest.raises(InputError, match="natural_floor"):
        ValidityGate(attack.ranker.gate.estimator, 0.0, 2.0, natural_floor=1.5)  # type: ignore[union-attr]


def test_recipes_name_the_order(settings) -> None:
    default, kept = load_recipe("default", settings), load_recipe("max-hvasr", settings)
    assert default.search.natural_estimate == "shipped" and default.search.natural_floor > 0
    assert (kept.search.natural_estimate, kept.search.natural_floor) == ("none", 0.0)
    # max-hvasr also keeps the eager round (every candidate checked and scored before the first ask)
    assert dataclasses.replace(kept.search, natural_estimate="shipped",
                               natural_floor=default.search.natural_floor, lazy_round=True) == default.search
    assert load_recipe("natlog2023", settings).search.natural_estimate == "none"
    # A recipe stored before the field orders its rounds as it did then: by the validity estimate.
    stored = default.to_json()
    del stored["search"]["natural_estimate"], stored["search"]["natural_floor"]
    again = AttackRecipe.from_json(stored, settings)
    assert (again.search.natural_estimate, again.search.natural_floor) == ("none", 0.0)
    assert again.hash != default.hash


def test_the_shipped_natural_estimate_ranks_the_labels(attack: Attack, shared_data: Path) -> None:
    """The natural estimate predicts "label and ok English" on labelled items (a sample of them: it
    was fitted on all, so this checks that the engine computes the features it was fitted on), and
    most double negations are estimated under the floor."""
    from sklearn.metrics import roc_auc_score

    from bench import validity
    from bench.validity_estimator import is_natural, labelled_items

    model = ValidityModel.load(NATURAL)
    assert model.meta["target"] == "natural" and model.meta["items"] >= 1000
    assert attack.ranker.gate is not None and attack.ranker.gate.estimator.natural is not None
    assert attack.ranker.gate.estimator.natural.digest == model.digest
    labels = validity.read_labels(DEV / "labels.jsonl")
    sample = random.Random(1).sample(labelled_items(labels), 300)
    items = [ValidityInput(r["premise"], r["hypothesis"], r["h_star"], tuple(r["operators"]), r["target_label"],
                           int(r.get("edits") or 1)) for r in sample]
    both = attack.ranker.gate.estimator.estimate_both(items)
    natural = [n.probability for _, n in both if n is not None]
    assert len(natural) == len(sample)
    assert roc_auc_score([is_natural(labels[r["key"]], r["target_label"]) for r in sample], natural) > 0.75
    doubles = [p for r, p in zip(sample, natural) if "DoubleNegation" in r["operators"]]
    others = [p for r, p in zip(sample, natural) if "DoubleNegation" not in r["operators"]]
    assert len(doubles) >= 10 and sum(p < attack.ranker.gate.natural_floor for p in doubles) >= 0.8 * len(doubles)
    assert sum(doubles) / len(doubles) < 0.5 * sum(others) / len(others)
