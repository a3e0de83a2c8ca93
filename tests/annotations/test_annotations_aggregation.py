"""Majority with ties, Fleiss' kappa, Krippendorff's alpha, agreement and HVASR by hand."""

from __future__ import annotations

import pytest

from annotations import Store, auth
from annotations.aggregation import (
    agreement,
    fleiss_kappa,
    hvasr,
    item_results,
    krippendorff_alpha,
    majority,
    resolution_warning,
    state_counts,
)
from annotations.assignment import submit
from annotations.records import ItemResult
from engine.core.errors import InputError
from engine.core.settings import Settings
from tests.annotations.test_annotations_store import make_record, start

E, N, C = "entailment", "neutral", "contradiction"
# Three raters (A, B, C) on three items: unanimous, 2-1, 1-2.
VOTES = [(E, E, E), (E, E, N), (N, C, C)]


def test_majority_needs_a_strict_winner() -> None:
    assert majority([E, E, N]) == E
    assert majority([C]) == C
    assert majority([E, N, C]) is None
    assert majority([E, E, N, N, C]) is None
    assert majority([]) is None


def test_fleiss_kappa_matches_hand_computation() -> None:
    # P_i = 1, 1/3, 1/3 -> P = 5/9; p_j = 5/9, 2/9, 2/9 -> Pe = 33/81;
    # kappa = (5/9 - 33/81) / (1 - 33/81) = 1/4.
    assert fleiss_kappa(VOTES, 3) == pytest.approx(0.25)
    assert fleiss_kappa([(E, E, E, N)] + VOTES, 3) == pytest.approx(
        fleiss_kappa([(E, E, E)] + VOTES, 3))  # only the first k votes count
    assert fleiss_kappa([(E, E)], 3) is None  # no complete item
    assert fleiss_kappa([(E, E, E), (E, E, E)], 3) is None  # no variation: undefined


def test_krippendorff_alpha_matches_hand_computation() -> None:
    triples = [(item, rater, label) for item, labels in enumerate(VOTES)
               for rater, label in enumerate(labels)]
    # Coincidences: o_ee=4, o_en=o_ne=1, o_nc=o_cn=1, o_cc=1; n_e=5, n_n=2, n_c=2, n=9.
    # D_o = 4, D_e = (2*(5*2) + 2*(5*2) + 2*(2*2)) / 8 = 6 -> alpha = 1 - 4/6.
    assert krippendorff_alpha(triples) == pytest.approx(1 / 3)
    # A missing vote is allowed: the 2-1 item with only two votes.
    assert krippendorff_alpha(triples[:5] + triples[6:]) is not None
    assert krippendorff_alpha([]) is None


def _vote(store: Store, name: str, item_id: int, label: str, fluency: str | None = None) -> None:
    annotator_id = next(store.db.query("SELECT id FROM annotators WHERE name = ?", [name]))["id"]
    submit(store, annotator_id, item_id, label, fluency, source="import")


@pytest.fixture()
def judged(tmp_settings: Settings):
    """Run ``r1`` (E2C, target contradiction) on data file d1 with pairs:
    0 success, majority C (valid); 1 success, majority E (invalid); 2 failed; 3 skipped;
    4 success, tied. Run ``r2`` (E2E on d2): 0 success, majority E (valid)."""
    with Store.open(settings=tmp_settings) as store:
        r1 = start(store, "r1", setup="E2C", data="d1.tsv")
        r2 = start(store, "r2", setup="E2E", data="d2.tsv", victim="other")
        records = [make_record(0, operators=("negation",), polarity="↑"),
                   make_record(1, operators=("hypernym", "negation"), polarity="↓"),
                   make_record(2, "failed", operators=()), make_record(3, "skipped", operators=()),
                   make_record(4, operators=("hypernym",), polarity="↓")]
        attack_ids = [store.record_attack(r1, record) for record in records]
        attack_ids.append(store.record_attack(r2, make_record(
            0, target=E, adversarial_prediction=N, operators=("synonym",))))
        items = {a.id: a.item_id for a in store.attacks()}
        for name in "ABC":
            auth.add_annotator(store, name)
        plan = {attack_ids[0]: VOTES[2][::-1], attack_ids[1]: VOTES[1], attack_ids[4]: (E, N, C),
                attack_ids[5]: VOTES[0]}
        for attack_id, labels in plan.items():
            for name, label in zip("ABC", labels):
                _vote(store, name, items[attack_id], label)
        gold = next(store.db.query("SELECT id FROM items WHERE kind = 'gold' ORDER BY id"))["id"]
        _vote(store, "A", gold, E)  # the gold label
        _vote(store, "B", gold, C)
        yield store, attack_ids


def test_item_states_and_majorities(judged) -> None:
    store, ids = judged
    results = item_results(store)
    assert {ids[0]: C, ids[1]: E, ids[4]: None, ids[5]: E} == {
        attack: results[attack].majority for attack in results}
    assert results[ids[4]].state == "tie"
    assert state_counts(results) == {"pending": 0, "tie": 1, "resolved": 3}


def test_hvasr_per_run_operator_and_polarity(judged) -> None:
    store, _ = judged
    by_run = {row.value: row for row in hvasr(store, "run")}
    # r1: attacked 0, 1, 2, 4 (3 skipped); successes 0, 1, 4; valid only 0.
    assert (by_run["r1"].attacked, by_run["r1"].successful, by_run["r1"].judged,
            by_run["r1"].valid) == (4, 3, 2, 1)
    assert by_run["r1"].asr == pytest.approx(3 / 4)
    assert by_run["r1"].hvasr == pytest.approx(1 / 4)
    assert by_run["r1"].hvasr_judged == pytest.approx(1 / 2) and by_run["r1"].coverage == pytest.approx(2 / 3)
    assert by_run["r2"].hvasr == pytest.approx(1.0)
    by_operator = {row.value: (row.attacked, row.valid) for row in hvasr(store, "operator")}
    assert by_operator == {"negation": (2, 1), "hypernym": (2, 0), "synonym": (1, 1),
                           "none": (1, 0)}
    by_polarity = {row.value: row.hvasr for row in hvasr(store, "polarity")}
    # ↑: r1 pair 0 (valid), r1 pair 2 (failed), r2 pair 0 (valid); ↓: r1 pairs 1 and 4.
    assert by_polarity == pytest.approx({"↑": 2 / 3, "↓": 0.0})
    assert {row.value for row in hvasr(store, "dataset")} == {"d1.tsv", "d2.tsv"}
    assert {row.value for row in hvasr(store, "victim")} == {"offline", "other"}
    with pytest.raises(InputError, match="unknown grouping"):
        hvasr(store, "colour")


def test_agreement_report(judged) -> None:
    store, _ = judged
    report = agreement(store)
    # Complete items: (C,C,N) (E,E,N) (E,N,C) (E,E,E).
    assert report.fleiss_items == 4
    assert report.fleiss_kappa == pytest.approx(fleiss_kappa(
        [(C, C, N), (E, E, N), (E, N, C), (E, E, E)], 3))
    rows = {row.name: row for row in report.annotators}
    # Resolved items: majority C, E, E. A: C,E,E -> 3/3; B: C,E,E -> 3/3; C: N,N,E -> 1/3.
    assert rows["A"].agreement == pytest.approx(1.0)
    assert rows["C"].agreement == pytest.approx(1 / 3)
    assert (rows["A"].gold_accuracy, rows["B"].gold_accuracy, rows["C"].gold_accuracy) == (
        1.0, 0.0, None)
    assert rows["A"].votes == 5


def test_a_study_that_cannot_resolve_says_so(tmp_settings: Settings) -> None:
    """With k = 3 and two active annotators no item can ever resolve: the warning says so (once a
    third joins it goes, and comes back when one is revoked)."""
    with Store.open(settings=tmp_settings.with_overrides(annotations_k=3)) as store:
        auth.add_annotator(store, "ann")
        auth.add_annotator(store, "bob")
        auth.add_annotator(store, "root", role="admin")  # admins do not count
        warning = resolution_warning(store)
        assert warning is not None and "needs 3 judgments but only 2 annotator(s) are active" in warning
        auth.add_annotator(store, "cyd")
        assert resolution_warning(store) is None
        auth.revoke(store, "cyd")
        assert resolution_warning(store) is not None


def test_estimated_hvasr_beside_the_judged_one(tmp_settings: Settings) -> None:
    """Runs made with the validity gate carry each H*'s estimate: HVASR as the estimate predicts it
    (estimates summed over attacked pairs), and the mean estimate over what people judged."""
    def step(validity: float) -> list[dict]:
        return [{"round": 1, "text": "H*", "operator": "negation", "validity": validity}]

    with Store.open(settings=tmp_settings) as store:
        run = start(store, "gated", setup="E2C", data="d.tsv")
        ids = [store.record_attack(run, make_record(0, derivation=step(0.8))),
               store.record_attack(run, make_record(1, derivation=step(0.5))),
               store.record_attack(run, make_record(2, "failed", operators=(), derivation=[]))]
        items = {a.id: a.item_id for a in store.attacks()}
        for name in "ABC":
            auth.add_annotator(store, name)
        for name in "ABC":
            _vote(store, name, items[ids[0]], C)
        row = next(r for r in hvasr(store, "run") if r.value == "gated")
        assert row.hvasr_estimated == pytest.approx((0.8 + 0.5) / 3)
        assert row.estimate_on_judged == pytest.approx(0.8) and row.hvasr_judged == pytest.approx(1.0)
        plain = start(store, "plain", setup="E2C", data="d.tsv")
        store.record_attack(plain, make_record(0))  # no estimate: a run without the gate
        assert next(r for r in hvasr(store, "run") if r.value == "plain").hvasr_estimated is None


def test_hvasr_per_system_in_both_readings(tmp_settings: Settings) -> None:
    """A NatLog run and a peer run (its identity names the system) on the same pairs: HVASR by
    system, label only and label-and-not-broken (half the judges or more flag H* as not fluent)."""
    with Store.open(settings=tmp_settings) as store:
        natlog = start(store, "nl", setup="E2C")
        peer = store.start_run("nl-pwws", "E2C", "offline", "snli_test.tsv", "snli", 13,
                               {"system": {"name": "PWWS", "version": "0.3.11"}}).id
        ids = {(run, k): store.record_attack(run, make_record(k)) for run in (natlog, peer) for k in range(2)}
        items = {a.id: a.item_id for a in store.attacks()}
        for name in "ABC":
            auth.add_annotator(store, name)
        # NatLog: both valid, fluent. PWWS: both valid by label, the second read as broken by two of three.
        flags = {(natlog, 0): (0, 0, 0), (natlog, 1): (0, 0, 1), (peer, 0): (1, 0, 0), (peer, 1): (1, 1, 0)}
        for key, marks in flags.items():
            for name, mark in zip("ABC", marks):
                annotator_id = next(store.db.query("SELECT id FROM annotators WHERE name = ?", [name]))["id"]
                submit(store, annotator_id, items[ids[key]], C, not_fluent=bool(mark), source="import")
        rows = {row.value: row for row in hvasr(store, "system")}
        assert set(rows) == {"NatLog", "PWWS"}
        assert (rows["NatLog"].hvasr, rows["NatLog"].hvasr_fluent) == (1.0, 1.0)
        assert (rows["PWWS"].hvasr, rows["PWWS"].hvasr_fluent) == (1.0, 0.5)
        # Every item but the broken one has two or three ok votes of three: natural.
        assert (rows["NatLog"].hvasr_natural, rows["PWWS"].hvasr_natural) == (1.0, 0.5)
        assert item_results(store)[ids[(peer, 1)]].broken and not item_results(store)[ids[(natlog, 1)]].broken
        from annotations.report import load_report

        metrics = {m.run: m for m in load_report(store).runs}
        assert (metrics["nl-pwws"].system, metrics["nl-pwws"].hvasr_fluent) == ("PWWS", 0.5)
        assert (metrics["nl"].system, metrics["nl"].hvasr_fluent) == ("NatLog", 1.0)


def test_kappa_comes_with_its_raw_agreement_interval_and_a_reading() -> None:
    """28 of 29 items unanimous on one label and one split: raw agreement is high, kappa is low
    (chance agreement is already high), and the reading says so."""
    from annotations.aggregation import agreement_reading, kappa_interval, observed_agreement
    from annotations.records import AgreementReport

    items = [(E, E, E)] * 28 + [(E, E, N)]
    assert observed_agreement(items, 3) == pytest.approx((28 + 1 / 3) / 29)
    kappa = fleiss_kappa(items, 3)
    assert kappa is not None and kappa < 0.1
    interval = kappa_interval(items, 3)
    assert interval is not None and interval[0] <= kappa <= interval[1]
    assert kappa_interval(items, 3) == interval  # seeded
    report = AgreementReport(kappa, 29, None, 0, (), observed_agreement(items, 3), interval)
    reading = agreement_reading(report)
    assert reading is not None and "98%" in reading and "nearly all votes fall on one label" in reading
    balanced = [(E, E, E), (N, N, N), (C, C, C), (E, N, E)]
    report = AgreementReport(fleiss_kappa(balanced, 3), 4, None, 0, (), observed_agreement(balanced, 3), None)
    assert "nearly all" not in (agreement_reading(report) or "")
    assert agreement_reading(AgreementReport(None, 0, None, 0, ())) is None


def test_natural_and_broken_from_mixed_fluency_votes(tmp_settings: Settings) -> None:
    """``broken``: at least half of the item's judges said broken; ``natural``: a strict majority said
    ok. Odd votes count toward neither, so an item can be neither natural nor broken."""
    plans = {0: ("ok", "ok", "odd"), 1: ("ok", "odd", "broken"), 2: ("broken", "broken", "ok"),
             3: ("odd", "odd", "odd"), 4: ("ok", "ok", "ok")}
    with Store.open(settings=tmp_settings) as store:
        run = start(store)
        ids = {index: store.record_attack(run, make_record(index)) for index in plans}
        items = {a.id: a.item_id for a in store.attacks()}
        for name in "ABC":
            auth.add_annotator(store, name)
        for index, levels in plans.items():
            for name, level in zip("ABC", levels):
                _vote(store, name, items[ids[index]], C, level)
        results = item_results(store)
        read = {index: (results[ids[index]].natural, results[ids[index]].broken) for index in plans}
        assert read == {0: (True, False), 1: (False, False), 2: (False, True), 3: (False, False), 4: (True, False)}
        assert results[ids[1]].fluency == {"ok": 1, "odd": 1, "broken": 1} and results[ids[2]].not_fluent == 2
        people = {row.name: row for row in agreement(store).annotators}
        # A: ok, ok, broken, odd, ok; C: odd, broken, ok, odd, ok.
        assert (people["A"].odd_share, people["A"].broken_share) == (pytest.approx(1 / 5), pytest.approx(1 / 5))
        assert (people["C"].odd_share, people["C"].broken_share) == (pytest.approx(2 / 5), pytest.approx(1 / 5))
    # Two ok and two broken of four judges: broken (half), and not natural (no strict majority).
    even = ItemResult(item_id=1, attack_id=1, votes={E: 0, N: 0, C: 4}, fluency={"ok": 2, "odd": 0, "broken": 2},
                      majority=C, state="resolved")
    assert even.broken and not even.natural
    assert not ItemResult(1, 1, {E: 0, N: 0, C: 0}, {"ok": 0, "odd": 0, "broken": 0}, None, "pending").broken


@pytest.fixture()
def three_readings(tmp_settings: Settings):
    """A study small enough to count by hand. NatLog run ``nl`` (E2C on d.tsv, target contradiction):
    pair 0 (negation) valid, all ok: natural; 1 (hypernym, negation) valid, ok/odd/odd: not broken,
    not natural; 2 (hypernym) valid, broken/broken/ok: broken; 3 (synonym) invalid (majority
    entailment), all ok; 4 failed. PWWS run ``pw`` (C2C on e.tsv): pair 0 valid, odd/odd/ok."""
    plan = {0: ((C, C, C), ("ok", "ok", "ok")), 1: ((C, C, N), ("ok", "odd", "odd")),
            2: ((C, C, C), ("broken", "broken", "ok")), 3: ((E, E, C), ("ok", "ok", "ok"))}
    operators = {0: ("negation",), 1: ("hypernym", "negation"), 2: ("hypernym",), 3: ("synonym",)}
    with Store.open(settings=tmp_settings) as store:
        nl = start(store, "nl", setup="E2C", data="d.tsv")
        pw = store.start_run("pw", "C2C", "offline", "e.tsv", "snli", 13, {"system": {"name": "PWWS"}}).id
        ids = {index: store.record_attack(nl, make_record(index, operators=ops)) for index, ops in operators.items()}
        store.record_attack(nl, make_record(4, "failed", operators=()))
        peer = store.record_attack(pw, make_record(0, operators=("swap",)))
        items = {a.id: a.item_id for a in store.attacks()}
        for name in "ABC":
            auth.add_annotator(store, name)
        for index, (labels, levels) in plan.items():
            for name, label, level in zip("ABC", labels, levels):
                _vote(store, name, items[ids[index]], label, level)
        for name, level in zip("ABC", ("odd", "odd", "ok")):
            _vote(store, name, items[peer], C, level)
        yield store


def test_hvasr_in_three_readings_by_hand(three_readings) -> None:
    store = three_readings
    by_run = {row.value: row for row in hvasr(store, "run")}
    nl = by_run["nl"]
    # attacked 5, successful 4, judged 4; valid 0, 1, 2; not broken 0, 1; natural 0 only.
    assert (nl.attacked, nl.successful, nl.judged, nl.valid, nl.valid_fluent, nl.valid_natural) == (5, 4, 4, 3, 2, 1)
    assert (nl.hvasr, nl.hvasr_fluent, nl.hvasr_natural) == (pytest.approx(3 / 5), pytest.approx(2 / 5),
                                                              pytest.approx(1 / 5))
    assert (by_run["pw"].hvasr, by_run["pw"].hvasr_fluent, by_run["pw"].hvasr_natural) == (1.0, 1.0, 0.0)
    readings = {group: {row.value: (row.hvasr, row.hvasr_fluent, row.hvasr_natural) for row in hvasr(store, group)}
                for group in ("setup", "dataset", "system")}
    assert readings["setup"] == {"E2C": pytest.approx((0.6, 0.4, 0.2)), "C2C": (1.0, 1.0, 0.0)}
    assert readings["dataset"] == {"d.tsv": pytest.approx((0.6, 0.4, 0.2)), "e.tsv": (1.0, 1.0, 0.0)}
    assert readings["system"] == {"NatLog": pytest.approx((0.6, 0.4, 0.2)), "PWWS": (1.0, 1.0, 0.0)}
    by_operator = {row.value: (row.attacked, row.valid, row.valid_fluent, row.valid_natural)
                   for row in hvasr(store, "operator")}
    assert by_operator == {"negation": (2, 2, 2, 1), "hypernym": (2, 2, 1, 0), "synonym": (1, 0, 0, 0),
                           "none": (1, 0, 0, 0), "swap": (1, 1, 1, 0)}
    # The report carries the same three readings per run (one definition, HumanValidation).
    from annotations.report import load_report

    runs = {row.run: row for row in load_report(store).runs}
    assert (runs["nl"].hvasr, runs["nl"].hvasr_fluent, runs["nl"].hvasr_natural) == (
        pytest.approx(0.6), pytest.approx(0.4), pytest.approx(0.2))


def test_per_operator_rows_with_their_judged_shares(three_readings) -> None:
    """Each operator of a successful derivation: successes using it over attacked pairs, the valid and
    natural shares of its judged successes, their mean queries (7 + pair index); the engine alone has
    no votes, so its shares are None."""
    from annotations.report import load_report
    from engine.reports.metrics import load_report as load_engine_report

    rows = {row.value: row for row in load_report(three_readings, "nl").operators}
    assert set(rows) == {"negation", "hypernym", "synonym"}
    figures = {op: (r.successful, r.asr_contribution, r.judged, r.valid_share, r.natural_share, r.qn_mean)
               for op, r in rows.items()}
    assert figures == {"negation": (2, pytest.approx(2 / 5), 2, 1.0, 0.5, 7.5),
                       "hypernym": (2, pytest.approx(2 / 5), 2, 1.0, 0.0, 8.5),
                       "synonym": (1, pytest.approx(1 / 5), 1, 0.0, 1.0, 10.0)}
    bare = {row.value: row for row in load_engine_report(three_readings, "nl").operators}
    assert bare["negation"].asr_contribution == pytest.approx(2 / 5)
    assert (bare["negation"].judged, bare["negation"].valid_share, bare["negation"].natural_share) == (0, None, None)


def test_open_items_say_which_can_never_finish_and_what_to_do(tmp_settings: Settings) -> None:
    """k = 2, two annotators: an item with a 1-1 split is a tie nobody can break (both voted); an
    item one annotator skipped and the other judged misses a vote nobody can give; an untouched
    item is waiting. The stuck ones come first, with the pair's text and advice. (Votes and skips
    are written as the queue writes them; what the queue serves is tested in test_annotations_assignment.)"""
    from annotations.aggregation import open_items

    settings = tmp_settings.with_overrides(annotations_k=2, annotations_gold_percent=0)
    with Store.open(settings=settings) as store:
        run = start(store)
        for index in range(3):
            store.record_attack(run, make_record(index))
        auth.add_annotator(store, "ann")
        auth.add_annotator(store, "bob")
        ann, bob = (a.id for a in auth.annotators(store))
        tie, skipped, untouched = (row["id"] for row in store.db.query(
            "SELECT id FROM items WHERE kind = 'attack' ORDER BY id"))
        for item, person, label in ((tie, ann, E), (tie, bob, C), (skipped, ann, C)):
            store.db.table("judgments").insert({"item_id": item, "annotator_id": person, "label": label,
                                                "fluency": "ok", "not_fluent": 0, "seconds": 1.0, "source": "app",
                                                "created_at": store.now()})
        store.db.table("skips").insert({"item_id": skipped, "annotator_id": bob, "created_at": store.now()})
        found = open_items(store)
    assert [(o.item_id, o.state, o.votes, o.missing, o.can_vote, o.stuck) for o in found] == [
        (tie, "tie", 2, 1, 0, True), (skipped, "pending", 1, 1, 0, True), (untouched, "pending", 0, 2, 2, False)]
    assert "adjudicate" in found[0].advice and "lower k" in found[1].advice and "waiting" in found[2].advice
    assert found[0].premise.startswith("A man is playing guitar") and "not playing" in found[0].hypothesis
