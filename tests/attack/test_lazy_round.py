"""The lazy round (engine/attack/lazy.py): a round with more candidates than it may ask checks and
scores them window by window as the search reaches them; every other round is the eager round.
Real parses, WordNet, SmolLM2 and MiniLM, the shipped estimate files, a tiny real BERT victim."""

from __future__ import annotations

import dataclasses
import math

import pytest

from engine.attack.lazy import LAST_RESORT, LazyRound, window_sizes
from engine.attack.recipe import FIELDS_ADDED, load_recipe
from engine.attack.round import RoundStart, begin_round, candidate_round
from engine.attack.search import Target, start_search
from engine.constraints import swaps_a_verb
from engine.core import caches
from engine.natlog.polarity import polarize
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.validity.estimate import ValidityModel
from engine.validity.features import COSTLY, ValidityInput
from engine.victim.model import Victim
from tests.attacking import attack_of

PREMISE = "A woman in a red coat is running along a beach at dawn."
# a contradiction with over a hundred C2C candidates (hyponyms of woman, sleeping, bed, ...)
HYPOTHESIS = "A woman is sleeping in a bed."
SMALL = "A dog runs."  # seven E2E candidates


def start(attack, hypothesis: str, setup: str = "C2C", top_k: int | None = None) -> RoundStart:
    polarized = polarize(parse(hypothesis, settings=attack.settings), conventions=attack.reading)
    reference = attack.ranker.scorer.score([hypothesis])[0]
    return RoundStart(polarized, get_setup(setup), hypothesis, PREMISE, reference, top_k=top_k)


def test_window_sizes() -> None:
    """The first window holds as many as the round asks (``top_k``), each next twice the one before."""
    assert window_sizes(0, 100) == []
    assert window_sizes(10, 100) == [10]
    assert window_sizes(100, 100) == [100]
    assert window_sizes(350, 100) == [100, 200, 50]
    assert window_sizes(75, 10) == [10, 20, 40, 5]
    assert all(sum(window_sizes(n, 12)) == n for n in range(0, 400, 7))


def test_a_round_within_top_k_is_the_eager_round(settings) -> None:
    """A round whose candidates fit under ``top_k`` after the cheap checks is checked and ordered
    whole, as with ``lazy_round`` off: the same candidates, the same order, the same estimates."""
    on = attack_of(settings.with_overrides(lazy_round=True))
    off = attack_of(settings.with_overrides(lazy_round=False))
    begun = begin_round(on, start(on, SMALL, "E2E"))
    assert begun.eager is not None and begun.order.unchecked == 0
    eager = candidate_round(off, start(off, SMALL, "E2E"))
    assert [c.text for c in begun.order.take_all()] == [c.text for c in eager.kept]
    assert [c.naturalness for c in begun.order.asked] == [c.naturalness for c in eager.kept]


def test_a_large_round_checks_only_what_the_search_reaches(settings) -> None:
    """With more candidates than ``top_k``, the first asks check the first window (``top_k``
    candidates, or the first group's): the LM scores no more, the rest wait unchecked. Checked to its end, the round asks at most ``top_k``,
    each scored and estimated, natural candidates before verb swaps before last resorts."""
    attack = attack_of(settings.with_overrides(lazy_round=True))
    here = start(attack, HYPOTHESIS, top_k=12)
    begun = begin_round(attack, here)
    order = begun.order
    assert begun.eager is None, "the round has more than 12 candidates after the cheap checks"
    total = order.unchecked
    assert total > 12 and order.windows_checked == 0 and not order.asked
    before = caches.counts()
    first = order.take(3)
    scored = caches.since(before).get("lm.scores")
    # the costly checks drop some of a window, and a group may hold fewer than 12: three asks may
    # need a second window
    assert len(first) == 3 and 1 <= order.windows_checked <= 2 and order.checked <= 12 + 24
    assert scored is not None and 0 < scored.hits + scored.misses <= order.checked
    assert order.unchecked == total - order.checked > 0
    asked = order.take_all()
    assert len(asked) <= 12 and order.windows_checked >= 1
    assert all(c.score is not None and c.naturalness is not None and c.validity is not None for c in asked)
    assert len({c.text for c in asked}) == len(asked)
    gate = attack.ranker.gate
    assert gate is not None
    groups = [LAST_RESORT if gate.last_resort(c) else int(swaps_a_verb(c, here.polarized)) for c in asked]
    assert groups == sorted(groups), "naturals, then verb swaps, then last resorts"
    assert begun.rejected["relation-guard"] >= 0 and "fluency-floor" in begun.rejected


def test_the_first_order_is_the_estimate_without_its_costly_features(attack) -> None:
    """The cheap estimate is the fitted model with the sentence-encoder (and per-candidate LM)
    contributions left out: computed on the full row with those columns at 0 logits, it is the same."""
    gate = attack.ranker.gate
    assert gate is not None and gate.estimator.natural is not None
    estimator = gate.estimator
    items = [ValidityInput(PREMISE, HYPOTHESIS, h, ("PerturbHypo",), "contradiction", 1)
             for h in ("A woman is sleeping in a bunk.", "A girl is sleeping in a bed.")]
    cheap = estimator.estimate_both(items, cheap=True)
    full = estimator.estimate_both(items)
    rows = estimator.extractor.extract(items)
    natural = estimator.natural
    assert natural is not None
    columns = [estimator.extractor.names.index(f) for f in natural.features]
    costly = frozenset(k for k, f in enumerate(natural.features) if f.split("|")[0] in COSTLY)
    assert costly, "the shipped natural estimate reads the sentence encoder"
    for row, (_, n_cheap), (_, n_full) in zip(rows, cheap, full):
        assert n_cheap is not None and n_full is not None
        without = natural.estimate([row[k] for k in columns], costly)
        assert n_cheap.probability == pytest.approx(without.probability, abs=1e-9)
        assert n_cheap.probability != pytest.approx(n_full.probability, abs=1e-6)
    # a model with no costly feature gives the same estimate either way
    plain = ValidityModel(("new_zipf",), (4.0,), (1.0,), (0.5,), 0.1, {}, "sha256:test")
    assert plain.estimate([5.0], frozenset()) == plain.estimate([5.0], frozenset({1}))
    assert math.isclose(plain.estimate([5.0]).probability, 1 / (1 + math.exp(-0.6)))


def test_the_search_asks_a_lazy_round_in_the_order_the_page_lists(victim: Victim, settings) -> None:
    """The search asks a lazy round's candidates in the order :func:`candidate_round` lists them (what
    the Candidates page shows), records the windows it checked and those it never checked, and says
    why each was asked where."""
    small = settings.with_overrides(lazy_round=True, top_k=40, query_budget=30, round_patience=0)
    attack = attack_of(small)
    target = Target.of(PREMISE, HYPOTHESIS, "contradiction", get_setup("C2C"))
    search = start_search(attack, target, victim)
    rnd = search.step()
    listed = candidate_round(attack, start(attack, HYPOTHESIS, top_k=40)).kept
    asked = [q.text for q in rnd.queried]
    assert asked and asked == [c.text for c in listed[:len(asked)]]
    trace = rnd.to_json()
    assert trace["windows"] == rnd.windows >= 1 and trace["unchecked"] == rnd.unchecked
    assert all("within its window" in r for r in rnd.reasons)
    off = start_search(attack_of(small.with_overrides(lazy_round=False)), target, victim).step()
    assert "windows" not in off.to_json() and not any("window" in r for r in off.reasons)


def test_a_paused_round_keeps_its_unchecked_windows(settings) -> None:
    """A paused round's rest (:meth:`LazyRound.rest`) asks what the round had not asked, in the same
    order, checking the windows the round never reached."""
    attack = attack_of(settings.with_overrides(lazy_round=True))
    whole = begin_round(attack, start(attack, HYPOTHESIS, top_k=60)).order.take_all()
    order = begin_round(attack, start(attack, HYPOTHESIS, top_k=60)).order
    order.take(5)
    rest = order.rest(5)
    assert rest.unchecked == order.unchecked > 0 and rest.limit == 55
    assert [c.text for c in order.asked[:5] + rest.take_all()] == [c.text for c in whole]
    ready = LazyRound.ready(whole[:3])
    assert ready.take(10) == whole[:3] and ready.unchecked == 0 and ready.size_hint() == 3


def test_recipes_and_stored_runs(settings) -> None:
    """The default recipe is lazy; ``max-hvasr`` and ``natlog2023`` keep the eager round (their order),
    and a run stored before the setting reads it as off."""
    assert load_recipe("default", settings).search.lazy_round is True
    assert load_recipe("max-hvasr", settings).search.lazy_round is False
    assert load_recipe("natlog2023", settings).search.lazy_round is False
    assert FIELDS_ADDED["search"]["lazy_round"] is False
    recipe = load_recipe("default", settings)
    assert dataclasses.replace(recipe, search=dataclasses.replace(recipe.search, lazy_round=False)).hash != recipe.hash
