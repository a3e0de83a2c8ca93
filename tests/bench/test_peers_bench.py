"""The TextAttack peer benchmark's parts that need no TextAttack: argument checks (one-line errors,
exit 2), the attacked pairs being exactly NatLog's, and the model wrapper's label order and query
count; with TextAttack installed (.venv-peers), the recipes as built: premise frozen, budget 500."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
from pathlib import Path

import pytest

from bench import peers
from engine.attack.build import Ranker
from engine.attack.search import AttackSearch, Target
from engine.core.errors import InputError
from engine.core.vocab import LABELS, AttackStatus
from engine.data.readers import read_pairs
from engine.natlog.setups import get_setup
from engine.runs.runner import select_pairs
from engine.victim.model import Victim, load_victim
from tests.attacking import attack_of
from tests.tiny_models import build_tiny_classifier

HAS_TEXTATTACK = importlib.util.find_spec("textattack") is not None


@pytest.fixture(scope="module")
def mixed_victim(tmp_path_factory: pytest.TempPathFactory, settings) -> Victim:
    """A tiny victim whose label depends on the input (right on some pairs, wrong on others)."""
    folder = build_tiny_classifier(tmp_path_factory.mktemp("peers-victim"), seed=3, initializer_range=1.0)
    return load_victim(str(folder), settings=settings)


def one_line_error(capsys, argv: list[str]) -> str:
    assert peers.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize(("extra", "says"), [
    (["--setups", "E2X"], "unknown attack setup"),
    (["--setups", "E2E,E2C"], "flips the label"),
    (["--recipes", "pwws,textfooler"], "unknown recipe textfooler"),
    (["--limit", "0"], "--limit must be at least 1"),
])
def test_bad_arguments_are_one_line_errors(capsys, tmp_path: Path, extra: list[str], says: str) -> None:
    data = tmp_path / "pairs.tsv"
    data.write_text("1\tA man sleeps.\tA person sleeps.\tentailment\n", encoding="utf-8")
    assert says in one_line_error(capsys, ["--data", str(data), *extra])


def test_validity_mode_needs_an_output_and_label_preserving_pairs(capsys, tmp_path: Path) -> None:
    data = tmp_path / "pairs.tsv"
    data.write_text("1\tA man sleeps.\tA person sleeps.\tentailment\n", encoding="utf-8")
    run = tmp_path / "run.jsonl"
    run.write_text('{"setup": "E2C", "source": "conjnli-dev", "index": 0, "target_label": "contradiction", '
                   '"status": "success", "queries": 2}\n', encoding="utf-8")
    assert "--validity-run needs --validity-out" in one_line_error(capsys, ["--data", str(data), "--validity-run", str(run)])


def test_missing_data_file_is_a_one_line_error(capsys, tmp_path: Path) -> None:
    assert "no such data file" in one_line_error(capsys, ["--data", str(tmp_path / "nope.tsv")])


@pytest.mark.skipif(HAS_TEXTATTACK, reason="textattack is installed in this Python")
def test_without_textattack_the_error_says_make_peers(capsys, tmp_path: Path) -> None:
    data = tmp_path / "pairs.tsv"
    data.write_text("1\tA man sleeps.\tA person sleeps.\tentailment\n", encoding="utf-8")
    assert "make peers" in one_line_error(capsys, ["--data", str(data), "--skip-natlog"])


class _NoScorer:
    name = "none"

    def score(self, texts):  # a skipped or just-started search scores nothing
        raise AssertionError("not expected to score")

    def token_counts(self, texts):
        raise AssertionError("not expected to score")


def natlog_attacks(chosen, setup, victim: Victim, settings) -> list[int]:
    """The pair indices NatLog's own search does not skip (its search started, nothing scored)."""
    attack = dataclasses.replace(attack_of(settings), ranker=Ranker(_NoScorer(), _NoScorer(), None))
    return [k for k, p in chosen
            if AttackSearch(attack, Target.of_pair(p, setup), victim).result().status != AttackStatus.SKIPPED]


def test_attacked_pairs_are_natlogs(shared_data: Path, mixed_victim: Victim, settings) -> None:
    pairs = read_pairs(shared_data / "snli_test.tsv", "tsv", "TEST")
    attacked = chosen_count = 0
    for name in ("E2E", "C2C", "N2N"):
        setup = get_setup(name)
        chosen = select_pairs(pairs, setup, 12, seed=0)
        mine = [k for k, _ in peers.natlog_attacked(chosen, mixed_victim, attack_of(settings))]
        assert mine == natlog_attacks(chosen, setup, mixed_victim, settings)
        attacked, chosen_count = attacked + len(mine), chosen_count + len(chosen)
    assert 0 < attacked < chosen_count  # the victim is right on some pairs, wrong on others


def test_incomplete_hypotheses_are_not_attacked(tmp_path: Path, settings, tmp_path_factory) -> None:
    folder = build_tiny_classifier(tmp_path_factory.mktemp("always-e"), bias=(3.0, 0.0, 0.0))
    victim = load_victim(str(folder), settings=settings)  # always "entailment": right on every E pair
    data = tmp_path / "pairs.tsv"
    data.write_text("1\tA man tells a woman that he is tired.\tA man tells a woman that he\tentailment\n"
                    "2\tA dog runs in the park.\tAn animal runs.\tentailment\n", encoding="utf-8")
    setup = get_setup("E2E")
    chosen = select_pairs(read_pairs(data, "tsv"), setup, None, seed=0)
    mine = [k for k, _ in peers.natlog_attacked(chosen, victim, attack_of(settings))]
    assert mine == natlog_attacks(chosen, setup, victim, settings) == [1]


def test_wrapper_columns_follow_the_dataset_label_order(mixed_victim: Victim) -> None:
    order = ("contradiction", "entailment", "neutral")
    wrapper = peers.PairModelWrapper(mixed_victim, labels=order)
    pairs = [("A man sleeps.", "A person sleeps."), ("A dog runs.", "A cat sits."), ("A man sleeps.", "A person sleeps.")]
    probs = wrapper(pairs)
    assert probs.shape == (3, 3)
    for row, prediction in zip(probs, mixed_victim.predict(pairs)):
        assert list(row) == pytest.approx([prediction.probs[LABELS.index(label)] for label in order], abs=1e-6)
        assert order[int(row.argmax())] == prediction.label
    assert wrapper.queries == 2  # distinct pairs, as NatLog counts
    wrapper.start_attack()
    assert wrapper.queries == 0
    with pytest.raises(TypeError, match="premise, hypothesis"):
        wrapper(["A man sleeps.\nA person sleeps."])
    with pytest.raises(ValueError, match="permutation"):
        peers.PairModelWrapper(mixed_victim, labels=("entailment", "neutral", "neutral"))


@pytest.mark.skipif(not HAS_TEXTATTACK, reason="textattack is not installed here (`make peers` builds .venv-peers)")
def test_recipes_freeze_the_premise_and_spend_at_most_the_budget(mixed_victim: Victim, settings) -> None:
    from collections import OrderedDict

    textattack = peers.import_textattack(settings)
    wrapper = peers.PairModelWrapper(mixed_victim)
    premise, hypothesis = "A man in a red shirt plays a guitar on the stage.", "A man plays music outdoors."
    label = LABELS.index(mixed_victim.predict([(premise, hypothesis)])[0].label)
    for recipe in peers.RECIPES:
        attack = peers.build_attack(textattack, recipe, wrapper)
        assert attack.goal_function.query_budget == peers.QUERY_BUDGET
        assert any(type(c).__name__ == "InputColumnModification" for c in attack.pre_transformation_constraints)
        wrapper.start_attack()
        result = attack.attack(OrderedDict(zip(peers.COLUMNS, (premise, hypothesis))), label)
        assert result.perturbed_result.attacked_text.tokenizer_input[0] == premise
        assert wrapper.queries <= result.perturbed_result.num_queries <= peers.QUERY_BUDGET


# ---------------------------------------------------------------------------------------------
# Peer runs recorded beside a NatLog run: same pairs, same victim, same blind study


@pytest.fixture(scope="module")
def natlog_store(tmp_path_factory: pytest.TempPathFactory, settings, shared_data: Path, mixed_victim: Victim) -> Path:
    """A real NatLog E2E run (a small query budget) on six SNLI TEST pairs, in an annotation store
    file made once for the module (each test works on its own copy)."""
    from annotations.store import Store
    from engine.runs.runner import RunHooks, RunSpec, run_attacks

    db = tmp_path_factory.mktemp("natlog-run") / "natlog.sqlite"
    made = settings.with_overrides(query_budget=12, db_path=db)
    data = shared_data / "snli_test.tsv"
    with Store.open(settings=made) as store:
        spec = RunSpec("nl-e2e", data, "snli", get_setup("E2E"), str(mixed_victim.name), limit=6, seed=0, split="TEST")
        run_attacks(store, spec, attack_of(made), mixed_victim, hooks=RunHooks(progress=False))
    return db


@pytest.fixture()
def natlog_run(tmp_settings, natlog_store: Path):
    """The module's NatLog run, in a copy of its store that this test may change."""
    from annotations.store import Store

    settings = tmp_settings.with_overrides(query_budget=12)
    shutil.copyfile(natlog_store, settings.db_path)
    with Store.open(settings=settings) as store:
        yield store, store.run("nl-e2e"), settings


SWAPS = ("mollycoddle", "zebra", "tomorrow", "quickly", "device", "outdoors", "blue", "sleeps", "nobody")


def pwws_like(store, run, victim: Victim) -> list:
    """What a word-swap recipe hands back for the run's attacked pairs: per pair, the first of a few
    one-word swaps of H's last word that changes the victim's label, as "success" with TextAttack's
    own query count; a pair no swap flips keeps its last try, still called "success" (the recorder
    must trust the victim, not the recipe's word)."""
    attacked = [a.record for a in store.attacks(run.id, with_trace=False) if a.record.status != AttackStatus.SKIPPED]
    results = []
    for k, record in enumerate(attacked):
        words = record.hypothesis.rstrip(".").split()
        for swap in SWAPS:
            hstar = " ".join([*words[:-1], swap]) + "."
            if victim.predict([(record.premise, hstar)])[0].label != record.target_label:
                break
        results.append(peers.PairResult("E2E", "pwws", record.pair_index, "success", 40 + k, 20 + k, 0.5,
                                        record.hypothesis, hstar))
    return results


def test_a_peer_run_is_recorded_beside_the_natlog_run_on_the_same_pairs(natlog_run, mixed_victim: Victim, attack) -> None:
    from annotations.aggregation import hvasr

    store, natlog, settings = natlog_run
    results = pwws_like(store, natlog, mixed_victim)
    assert results, "the victim should be right on some of the six pairs"
    perplexity = attack.ranker.perplexity
    run = peers.record_peer_run(store, natlog, "pwws", "0.3.11", results, mixed_victim, perplexity, settings)
    assert run.name == "nl-e2e-pwws" and run.system == "PWWS" and natlog.system == "NatLog"
    assert run.config["system"]["version"] == "0.3.11" and run.config["natlog_run"] == "nl-e2e"
    assert run.config["victim"] == natlog.config["victim"] and run.config["data"] == natlog.config["data"]
    mine = {a.record.pair_index: a for a in store.attacks(run.id)}
    theirs = {a.record.pair_index: a for a in store.attacks(natlog.id, with_trace=False)}
    assert mine.keys() == theirs.keys()
    assert {k for k, a in mine.items() if a.record.status == AttackStatus.SKIPPED} == {
        k for k, a in theirs.items() if a.record.status == AttackStatus.SKIPPED}
    for result in results:
        attack = mine[result.pair_index]
        flipped = mixed_victim.predict([(attack.record.premise, result.adversarial)])[0].label != "entailment"
        assert (attack.record.status == AttackStatus.SUCCESS) == flipped
        assert attack.record.queries == result.distinct and attack.record.trace["textattack_queries"] == result.queries
        if flipped:
            assert attack.record.adversarial_hypothesis == result.adversarial
            assert attack.record.perplexity and attack.record.perplexity > 1
            assert attack.record.operators == ("PWWS",)
            assert attack.record.trace["self_check"]["status"] in ("re-derived", "unknown", "fails")
            assert attack.item_id is not None  # in the blind queue
    assert any(a.record.status == AttackStatus.SUCCESS for a in mine.values())
    items = store.db.execute("SELECT COUNT(*) FROM items i JOIN attacks a ON a.id = i.attack_id WHERE a.run_id = ?",
                             [run.id]).fetchone()[0]
    assert items == sum(a.record.status == AttackStatus.SUCCESS for a in mine.values())
    by_system = {row.value: row for row in hvasr(store, "system")}
    assert by_system["PWWS"].attacked == by_system["NatLog"].attacked == len(results)
    # A rerun resumes without recording anything twice; another TextAttack version is another attack.
    again = peers.record_peer_run(store, natlog, "pwws", "0.3.11", results, mixed_victim, perplexity, settings)
    assert len(store.attacks(again.id, with_trace=False)) == len(mine)
    with pytest.raises(InputError, match="system.version"):
        peers.record_peer_run(store, natlog, "pwws", "0.3.12", results, mixed_victim, perplexity, settings)


def test_the_peers_need_the_natlog_runs_victim_and_a_label_preserving_natlog_run(natlog_run, settings,
                                                                                  tmp_path_factory) -> None:
    store, natlog, _ = natlog_run
    other = load_victim(str(build_tiny_classifier(tmp_path_factory.mktemp("other-victim"), seed=9)), settings=settings)
    with pytest.raises(peers.PeerError, match="peers must attack the same victim"):
        peers.check_victim(natlog, other)
    flipping = store.start_run("nl-e2c", "E2C", natlog.victim, natlog.data_path, "snli", 0, {"recipe_hash": "x"})
    with pytest.raises(peers.PeerError, match="flips the label"):
        peers.natlog_run_pairs(store, flipping)


def test_verify_reports_how_many_of_a_runs_hstar_natural_logic_licenses(natlog_run, mixed_victim: Victim, attack,
                                                                        capsys, tmp_path: Path) -> None:
    from engine.cli import main as engine_main

    store, natlog, settings = natlog_run
    run = peers.record_peer_run(store, natlog, "pwws", "0.3.11", pwws_like(store, natlog, mixed_victim), mixed_victim,
                                attack.ranker.perplexity, settings)
    won = [a for a in store.attacks(run.id, with_trace=False) if a.record.status == AttackStatus.SUCCESS]
    out_csv = tmp_path / "verdicts.csv"
    assert engine_main(["verify", "--run", run.name, "--db", str(store.path), "--csv", str(out_csv)]) == 0
    out = capsys.readouterr().out
    assert "run 'nl-e2e-pwws' (PWWS, setup E2E" in out and f"{len(won)} successful attacks" in out
    assert won
    if won:
        lines = out_csv.read_text(encoding="utf-8").splitlines()
        assert len(lines) == len(won) + 1 and lines[0].startswith("attack_id,hypothesis,adversarial_hypothesis,status")
        assert not any(",re-derived," in line for line in lines[1:])  # a swap to an unrelated word is never licensed
    assert engine_main(["verify", "--run", "nope", "--db", str(store.path)]) == 2
    assert "no run named 'nope'" in capsys.readouterr().err
    assert engine_main(["verify", "--premise", "A dog runs."]) == 2
    assert "verify needs --premise and --hypothesis" in capsys.readouterr().err
