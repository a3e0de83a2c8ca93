"""The confidence explorer's data: every queried candidate of real attacks (a tiny real victim,
real parses and WordNet) read back from a real SQLite store, the path H -> H*, filters and groups."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.natlog.setups import get_setup
from engine.reports.confidence import (
    attack_path,
    attack_points,
    confidence_points,
    filter_points,
    group_points,
)
from engine.runs.runner import RunHooks, RunSpec, run_attacks
from engine.store.store import RunStore
from engine.victim.model import Victim
from tests.attacking import attack_of


@pytest.fixture(scope="module")
def store_path(victim: Victim, settings, contradictions, tmp_path_factory) -> Path:
    """Two runs on two SNLI contradiction pairs: C2C, which the always-contradiction victim never
    gives up (each attack spends its budget), and C2E, which succeeds at the first candidate."""
    folder = tmp_path_factory.mktemp("confidence")
    data = folder / "pairs.tsv"
    data.write_text("".join(f"{p.pair_id}\t{p.premise}\t{p.hypothesis}\tCONTRADICTION\n" for p in contradictions[:2]),
                    encoding="utf-8")
    small = settings.with_overrides(query_budget=15, top_k=6)
    db = folder / "runs.sqlite"
    with RunStore.open(db) as store:
        for setup in ("C2C", "C2E"):
            run_attacks(store, RunSpec(setup.lower(), data, "tsv", get_setup(setup), "tiny"), attack_of(small), victim,
                        hooks=RunHooks(progress=False))
    return db


def test_every_queried_candidate_is_a_point(store_path: Path) -> None:
    with RunStore.open(store_path) as store:
        run = store.run("c2c")
        attacks = store.attacks(run.id)
    points = confidence_points(attacks, {run.id: run.setup})
    for attack in attacks:
        mine = [p for p in points if p.attack_id == attack.id]
        record = attack.record
        # Every query after the original pair is a counted point; cache hits are points too.
        assert sum(p.counted for p in mine) == record.queries - 1
        start = record.original_probabilities["contradiction"]
        assert all(p.drop == pytest.approx(start - p.target_prob) for p in mine)
        assert [p.order for p in mine] == list(range(1, len(mine) + 1))
        assert all(p.polarity in {"↑", "↓", "="} and p.setup == "C2C" and not p.flipped for p in mine)


def test_the_path_follows_the_least_confident_candidate_of_each_round(store_path: Path) -> None:
    with RunStore.open(store_path) as store:
        attack = store.attacks(store.run("c2c").id)[0]
    points, path = attack_points(attack), attack_path(attack)
    assert path[0].text == attack.record.hypothesis and len(path) >= 2
    for step in path[1:]:
        # The search continues from the candidate with the lowest P(target) in its round.
        rnd = next(p.round for p in points if p.on_path and p.text == step.text)
        assert step.target_prob == pytest.approx(min(p.target_prob for p in points if p.round == rnd))
    assert [p.text for p in points if p.on_path] == [s.text for s in path[1:]]


def test_filters_and_groups(store_path: Path) -> None:
    with RunStore.open(store_path) as store:
        points = confidence_points(store.attacks())
    won = filter_points(points, success=True)
    assert won and {p.run for p in won} == {"c2e"} and all(p.flipped for p in won if p.on_path)
    assert {p.run for p in filter_points(points, success=False)} == {"c2c"}
    some = sorted({p.operator for p in points})[:1]
    assert {p.operator for p in filter_points(points, operators=some)} == set(some)
    rows = group_points(points, "operator")
    assert sum(r.points for r in rows) == len(points)
    for row in rows:
        members = [p for p in points if p.operator == row.value]
        assert row.mean_drop == pytest.approx(statistics.fmean(p.drop for p in members))
    assert [r.mean_drop for r in rows] == sorted((r.mean_drop for r in rows), reverse=True)
    with pytest.raises(InputError, match="unknown grouping 'colour'; use one of: operator"):
        group_points(points, "colour")


def test_one_attack_by_id(store_path: Path) -> None:
    with RunStore.open(store_path) as store:
        first = store.attacks()[0]
        again = store.attack(first.id)
        assert again.record.trace and again.record.hypothesis == first.record.hypothesis
        with pytest.raises(InputError, match="no attack with id 999"):
            store.attack(999)


def test_points_carry_the_validity_estimate(store_path: Path) -> None:
    """Runs made with the validity gate store each asked candidate's estimate: the explorer filters
    and groups by it, and the run's report predicts HVASR from the successful H*'s estimates."""
    from engine.reports.confidence import validity_band
    from engine.reports.metrics import load_report

    with RunStore.open(store_path) as store:
        points = confidence_points(store.attacks())
        report = load_report(store)
        won = [a.record for a in store.attacks(store.run("c2e").id) if a.record.status == "success"]
    assert points and all(p.validity is not None and 0.0 < p.validity < 1.0 for p in points)
    middle = sorted(p.validity for p in points)[len(points) // 2]
    high = filter_points(points, validity=(middle, 1.0))
    assert high and all(p.validity >= middle for p in high) and len(high) < len(points) + 1
    assert not filter_points(points, validity=(1.0, 1.0))
    rows = group_points(points, "validity_band")
    assert sum(r.points for r in rows) == len(points)
    assert {r.value for r in rows} == {validity_band(p.validity) for p in points}
    assert validity_band(None) == "not estimated" and validity_band(0.65) == "0.6–0.7" and validity_band(1.0) == "0.9–1.0"
    c2e = next(r for r in report.runs if r.run == "c2e")
    assert won and c2e.hvasr_estimated == pytest.approx(sum(r.validity_estimate for r in won) / c2e.attacked)
