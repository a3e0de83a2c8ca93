"""Batch runs over a data file: seeded pair selection, one committed attack per pair, resume
after an interruption, and the annotation layer picking the attacks up from the runs store."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from annotations.store import Store
from engine.attack.build import Attack
from engine.core.vocab import AttackStatus
from engine.data.readers import read_pairs
from engine.edits.candidates import generate_candidates
from engine.models.language import lm_dtype_name
from engine.natlog.setups import Setup, get_setup
from engine.runs.runner import RunHooks, RunSpec, run_attacks, select_pairs
from engine.store.store import RunStore
from engine.victim.model import Victim


def test_run_resumes_after_interruption(victim: Victim, attack: Attack, settings, contradictions,
                                        tmp_path: Path) -> None:
    """In the configured ``lm_dtype``; nothing here depends on it: the victim answers contradiction to
    everything, so each C2E attack succeeds at its first candidate (2 queries) whichever one ranks first."""
    data = tmp_path / "slice.tsv"
    entailment = "9999\tA dog runs in the park.\tAn animal runs.\tENTAILMENT\n"
    data.write_text(entailment + "".join(f"{p.pair_id}\t{p.premise}\t{p.hypothesis}\tCONTRADICTION\n"
                                         for p in contradictions[:3]), encoding="utf-8")
    setup: Setup = get_setup("C2E")
    attacked: list[str] = []

    def interrupting(polarized, *args, **kwargs):
        attacked.append(polarized.sentence.text)
        if len(attacked) == 2:
            raise KeyboardInterrupt
        return generate_candidates(polarized, *args, **kwargs)

    db = tmp_path / "runs.sqlite"
    with RunStore.open(db) as store, pytest.raises(KeyboardInterrupt):
        run_attacks(store, RunSpec("resume", data, "tsv", setup, "tiny"), dataclasses.replace(attack, generate=interrupting),
                    victim, hooks=RunHooks(progress=False))
    with RunStore.open(db) as store:
        assert store.done_pair_indices(store.run("resume").id) == {1}
        report = run_attacks(store, RunSpec("resume", data, "tsv", setup, "tiny"), attack, victim,
                             hooks=RunHooks(progress=False))
        assert (report.selected, report.resumed, report.attacked) == (3, 1, 2)
        assert report.run.config["runtime"]["lm_dtype"] == lm_dtype_name(settings)
        stored = store.attacks(report.run.id)
    assert sorted(a.record.pair_index for a in stored) == [1, 2, 3]
    assert all(a.record.status is AttackStatus.SUCCESS and a.record.queries == 2 for a in stored)
    assert stored[0].record.operators and stored[0].record.trace["rounds"][0]["queried"]
    assert all(a.item_id is None for a in stored)  # the bare runs store knows nothing of annotation items
    # The annotation layer, opening the same file, makes each successful attack an item to judge.
    with Store.open(db, settings) as annotated:
        items = annotated.attacks(report.run.id)
        assert all(a.item_id is not None for a in items)
        assert annotated.sync_items() == 0  # once
        kinds = [row["kind"] for row in annotated.db.query("SELECT kind FROM items ORDER BY id")]
    assert kinds.count("attack") == 3 and kinds.count("gold") == 3


def test_select_pairs_is_seeded_and_keeps_file_order(shared_data: Path) -> None:
    pairs = read_pairs(shared_data / "snli_test.tsv")
    setup = get_setup("E2E")
    first = select_pairs(pairs, setup, 20, seed=1)
    assert first == select_pairs(pairs, setup, 20, seed=1) != select_pairs(pairs, setup, 20, seed=2)
    assert [k for k, _ in first] == sorted(k for k, _ in first)
    assert all(pairs[k] == p and p.label == "entailment" for k, p in first)




def _fresh_slice(path: Path, hypotheses: list[str]) -> Path:
    path.write_text("".join(f"{900 + k}\tA dog runs in the park.\t{h}\tCONTRADICTION\n" for k, h in enumerate(hypotheses)),
                    encoding="utf-8")
    return path


def test_a_run_scores_the_next_hypotheses_under_the_float32_lm_in_one_batch(
        victim: Victim, attack: Attack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack.warm: each attack's validity features read its H's float32 perplexity, one forward pass
    of one sentence when scored alone; a run scores the next pairs' H together instead. The tiny
    victim answers contradiction to everything, so each C2E attack succeeds at once (and scores its
    H* alone, for the reported perplexity)."""
    assert attack.ranker.gate is not None
    # the attack a run of a TSV file makes (the recipe's readings resolved for the format)
    perplexity = attack.for_data(tmp_path / "any.tsv", "tsv").ranker.perplexity
    setup = get_setup("C2E")

    def passes_for(name: str, hypotheses: list[str]) -> int:
        before = perplexity.forward_passes
        with RunStore.open(tmp_path / f"{name}.sqlite") as store:
            report = run_attacks(store, RunSpec(name, _fresh_slice(tmp_path / f"{name}.tsv", hypotheses), "tsv",
                                                setup, "tiny"), attack, victim, hooks=RunHooks(progress=False))
        assert (report.attacked, report.successful) == (3, 3)
        return perplexity.forward_passes - before

    warmed = passes_for("warm", ["A cat sleeps on a blue sofa.", "Two birds sing in a tall tree.",
                                 "A girl paints a small boat."])
    monkeypatch.setattr(Attack, "warm", lambda self, hypotheses: None)
    alone = passes_for("alone", ["A horse eats green grass.", "An old man reads a thick book.",
                                 "Three boys kick a red ball."])
    assert alone - warmed == 2  # three H scored in one pass instead of three


def test_warm_leaves_out_what_the_search_refuses_and_scores_nothing_without_a_gate(attack: Attack) -> None:
    perplexity = attack.ranker.perplexity
    before = perplexity.forward_passes
    attack.warm(["  A tall woman climbs a steep hill.  ", "", "x" * 100_000])
    assert perplexity.forward_passes == before + 1
    perplexity.score(["A tall woman climbs a steep hill."])  # stripped as the search strips it: scored already
    assert perplexity.forward_passes == before + 1
    ungated = dataclasses.replace(attack, ranker=dataclasses.replace(attack.ranker, gate=None))
    ungated.warm(["A short man walks down a gentle slope."])
    assert perplexity.forward_passes == before + 1
