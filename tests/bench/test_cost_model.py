"""The victim cost model (bench/cost_model.py): its arithmetic (overhead, predicted seconds, the
crossover that solves NatLog = peer), a ``--quick`` run on tiny random classifiers through the real
victim path (a table row per victim size and method), and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import cost_model
from tests.tiny_models import build_tiny_classifier

SENTENCES = [
    ("A man is playing a guitar on a stage in front of a small crowd.", "A man plays music."),
    ("Two dogs run through the snow.", "Animals are outside."),
    ("A woman in a red coat waits for the bus at the corner of a busy street.", "A woman is sleeping."),
    ("Children are swimming in a lake.", "Kids are in the water."),
]


def write_pairs(path: Path, n: int = 16) -> Path:
    labels = ("ENTAILMENT", "NEUTRAL", "CONTRADICTION")
    lines = [f"{k + 1}\t{SENTENCES[k % 4][0]}\t{SENTENCES[k % 4][1]} {'again ' * (k % 3)}\t{labels[k % 3]}"
             for k in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_peers(path: Path) -> Path:
    """A peer-benchmark result with known per-pair seconds and distinct queries."""
    pairs = []
    for setup, natlog, pwws, dwb in (("E2E", (4, 0.6), (40, 0.3), (10, 0.1)), ("C2C", (30, 3.0), (50, 0.4), (12, 0.2))):
        for method, (queries, seconds) in zip(cost_model.METHODS, (natlog, pwws, dwb)):
            for k in range(2):  # two pairs each, the mean being (queries, seconds)
                pairs.append({"setup": setup, "method": method, "pair_index": k, "status": "success",
                              "queries": queries + 1, "distinct": queries + (1 if k else -1),
                              "seconds": seconds + (0.05 if k else -0.05)})
    path.write_text(json.dumps({"meta": {}, "headers": [], "rows": [], "pairs": pairs}), encoding="utf-8")
    return path


def test_interpolation_overhead_prediction_and_crossover(tmp_path: Path) -> None:
    curve = {1: 10.0, 4: 4.0, 16: 2.0}
    assert cost_model.ms_at(curve, 4) == 4.0
    assert cost_model.ms_at(curve, 8) == pytest.approx(3.0)  # halfway in log2 between 4 and 16
    assert cost_model.ms_at(curve, 0.5) == 10.0 and cost_model.ms_at(curve, 64) == 2.0

    peers = cost_model.read_peers(write_peers(tmp_path / "peers.json"))
    assert peers["E2E", "NatLog"] == pytest.approx({"attacked": 2, "seconds": 0.6, "queries": 4.0})
    assert peers["overall", "pwws"]["queries"] == pytest.approx(45.0)

    reference = {1: 5.0, 4: 2.0, 8: 1.0}  # ms per pair
    costs = cost_model.method_costs(peers, reference, {"pwws": 8, "deepwordbug": 4})
    by = {(c.setup, c.method): c for c in costs}
    natlog, pwws, dwb = by["E2E", "NatLog"], by["E2E", "pwws"], by["E2E", "deepwordbug"]
    assert (natlog.evaluations, natlog.batch, natlog.source) == (4.0, 8.0, "QN (prefetch not counted)")
    assert natlog.overhead == pytest.approx(0.6 - 4 * 0.001)
    assert pwws.overhead == pytest.approx(0.3 - 40 * 0.001)
    assert dwb.overhead == pytest.approx(0.1 - 10 * 0.002)

    big = {1: 500.0, 4: 200.0, 8: 100.0}
    assert cost_model.predicted(natlog, big) == pytest.approx(natlog.overhead + 4 * 0.1)
    assert cost_model.predicted(pwws, big) == pytest.approx(pwws.overhead + 40 * 0.1)
    assert cost_model.predicted(natlog, reference) == pytest.approx(natlog.seconds)  # the reference reproduces s

    t = cost_model.crossover(natlog, pwws)
    assert t == pytest.approx(1000 * (natlog.overhead - pwws.overhead) / 36)
    flat = {1: t, 8: t}
    assert cost_model.predicted(natlog, flat) == pytest.approx(cost_model.predicted(pwws, flat))
    assert cost_model.crossover(by["C2C", "NatLog"], by["C2C", "deepwordbug"]) is None  # 30 evaluations > 12

    # An overhead below zero (the peer run's victim answered faster than timed) is floored at 0.
    slow = {1: 20.0, 8: 10.0}
    costs = cost_model.method_costs(peers, slow, {"pwws": 8, "deepwordbug": 4})
    pwws = next(c for c in costs if (c.setup, c.method) == ("E2E", "pwws"))
    assert pwws.measured_overhead == pytest.approx(0.3 - 40 * 0.010) and pwws.overhead == 0.0
    assert cost_model.predicted(pwws, big) == pytest.approx(40 * 0.1)

    # A measured prefetch scales NatLog's evaluations and sets its batch.
    measured = {"E2E": {"queries": 5.0, "evaluations": 10.0, "forward_passes": 2.5}}
    costs = cost_model.method_costs(peers, reference, {"pwws": 8, "deepwordbug": 4}, measured)
    natlog = next(c for c in costs if (c.setup, c.method) == ("E2E", "NatLog"))
    assert (natlog.evaluations, natlog.batch) == (8.0, 4.0)
    assert natlog.overhead == pytest.approx(0.6 - 8 * 0.002)


def test_candidate_batches_are_distinct_edits_of_the_hypothesis_under_one_premise() -> None:
    assert cost_model.candidate_batch("P.", "A man sleeps.", 1) == [("P.", "A man sleeps.")]
    for hypothesis in ("A man sleeps.", "Run"):
        for size in (4, 8, 32):
            batch = cost_model.candidate_batch("P.", hypothesis, size)
            texts = [h for _, h in batch]
            assert len(set(texts)) == size and hypothesis not in texts and {p for p, _ in batch} == {"P."}
            assert all(abs(len(h.split()) - len(hypothesis.split())) <= 2 for h in texts)


def test_a_quick_run_times_every_victim_and_tabulates_every_method(tmp_path: Path, capsys) -> None:
    victim = build_tiny_classifier(tmp_path / "victim", seed=1)
    data = write_pairs(tmp_path / "pairs.tsv")
    peers = write_peers(tmp_path / "peers.json")
    out = tmp_path / "speed" / "cost_model.json"
    argv = ["--quick", "--victim", str(victim), "--data", str(data), "--split", "all", "--pairs", "8",
            "--batches", "1,4,8", "--repeats", "2", "--peers", str(peers), "--no-progress", "--out", str(out)]
    assert cost_model.main(argv) == 0
    printed = capsys.readouterr().out
    written = json.loads(out.read_text(encoding="utf-8"))
    assert out.with_suffix(".md").read_text(encoding="utf-8").strip() == printed.strip()

    assert [v["name"] for v in written["victims"]] == list(cost_model.VICTIMS)
    for name in cost_model.VICTIMS:
        assert sorted(written["query_ms"][name], key=int) == ["1", "4", "8"]
        assert all(len(ms) == 2 and min(ms) > 0 for ms in written["repeats_ms"][name].values())
        for method in cost_model.METHODS:
            assert sum(line.startswith(f"| {name} | {cost_model.NAMES[method]} |") for line in printed.splitlines()) == 1
    costs = {(c["setup"], c["method"]): c for c in written["costs"]}
    for p in written["predicted"]:
        cost = costs[p["setup"], p["method"]]
        curve = {int(b): ms for b, ms in written["query_ms"][p["victim"]].items()}
        assert p["seconds"] == pytest.approx(cost["overhead"] + cost["evaluations"] * cost_model.ms_at(curve, cost["batch"]) / 1000)
    for x in written["crossovers"]:
        natlog, peer = costs[x["setup"], "NatLog"], costs[x["setup"], x["peer"]]
        if x["ms_per_evaluation"] is None:
            assert natlog["evaluations"] >= peer["evaluations"]
        else:
            t = x["ms_per_evaluation"] / 1000
            assert natlog["overhead"] + natlog["evaluations"] * t == pytest.approx(peer["overhead"] + peer["evaluations"] * t)
    assert {(x["setup"], x["peer"]) for x in written["crossovers"]} == {
        (s, p) for s in ("E2E", "C2C", "overall") for p in cost_model.PEERS}


def test_missing_inputs_are_one_line_errors(tmp_path: Path, capsys, tmp_settings) -> None:
    folder = build_tiny_classifier(tmp_path / "victim")
    capsys.readouterr()
    victim = tmp_path / "no-victim"
    assert cost_model.main(["--quick", "--victim", str(victim), "--data", str(tmp_path / "none.tsv")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {victim}: not a model folder (no config.json)\n"

    assert cost_model.main(["--quick", "--victim", str(folder), "--data", str(tmp_path / "none.tsv")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'none.tsv'}: no such data file\n"

    with pytest.raises(cost_model.CostModelError, match="the offline victim is not trained yet"):
        cost_model.reference_folder(None, tmp_settings)
