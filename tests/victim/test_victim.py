"""The victim: label mapping, refusal of unknown labels, batched inference, cache and counters."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.vocab import LABELS
from engine.victim.model import load_victim, parse_label_map, resolve_labels
from tests.tiny_models import build_tiny_classifier

PAIRS = [
    ("A man is playing a guitar on stage.", "A man plays music."),
    ("Two dogs run through a field.", "Animals are outside."),
    ("A woman in a red dress is dancing at a long party with many friends.", "Nobody dances."),
    ("Kids.", "Children are asleep in the back of the car."),
]


@pytest.fixture(scope="module")
def shuffled_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model whose outputs are in the order contradiction, entailment, neutral."""
    return build_tiny_classifier(
        tmp_path_factory.mktemp("shuffled"), {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
    )


@pytest.fixture(scope="module")
def anonymous_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_classifier(tmp_path_factory.mktemp("anon"), {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_outputs_are_reordered_by_id2label(shuffled_folder: Path, tmp_settings) -> None:
    victim = load_victim(str(shuffled_folder), settings=tmp_settings)
    assert victim.labels == ("contradiction", "entailment", "neutral")
    premise, hypothesis = PAIRS[0]
    encoded = victim.tokenizer(premise, hypothesis, return_tensors="pt")
    with torch.no_grad():
        raw = torch.softmax(victim.model(**encoded).logits, dim=-1)[0].tolist()
    (pred,) = victim.predict([PAIRS[0]])
    assert pred.prob("contradiction") == pytest.approx(raw[0], abs=1e-5)
    assert pred.prob("entailment") == pytest.approx(raw[1], abs=1e-5)
    assert pred.prob("neutral") == pytest.approx(raw[2], abs=1e-5)
    assert pred.label == LABELS[max(range(3), key=lambda k: pred.probs[k])]


def test_batched_padded_inference_matches_one_by_one(shuffled_folder: Path, tmp_settings) -> None:
    victim = load_victim(str(shuffled_folder), settings=tmp_settings)
    batched = victim.predict(PAIRS)
    for pair, pred in zip(PAIRS, batched):
        encoded = victim.tokenizer(*pair, return_tensors="pt")
        with torch.no_grad():
            single = torch.softmax(victim.model(**encoded).logits, dim=-1)[0]
        assert pred.probs == pytest.approx([float(single[victim.labels.index(l)]) for l in LABELS], abs=1e-4)
        assert (pred.premise, pred.hypothesis) == pair


def test_anonymous_labels_are_refused_before_any_query(anonymous_folder: Path, tmp_settings) -> None:
    with pytest.raises(InputError, match="--label-map"):
        load_victim(str(anonymous_folder), settings=tmp_settings)
    victim = load_victim(str(anonymous_folder), label_map="neutral,entailment,contradiction", settings=tmp_settings)
    assert victim.labels == ("neutral", "entailment", "contradiction")
    assert victim.evaluations == 0


@pytest.mark.parametrize("text", ["entailment,neutral", "entailment,neutral,maybe", "0=entailment,2=neutral,3=x",
                                  "entailment,entailment,neutral"])
def test_bad_label_maps(text: str) -> None:
    with pytest.raises(InputError):
        parse_label_map(text)


def test_label_map_forms() -> None:
    assert parse_label_map("LABEL_1=neutral,LABEL_0=entailment,LABEL_2=contradiction") == LABELS
    with pytest.raises(InputError, match="2 outputs"):
        resolve_labels({0: "LABEL_0", 1: "LABEL_1"}, 2, "entailment,neutral,contradiction")
    with pytest.raises(InputError, match="cannot map"):
        resolve_labels({0: "entailment", 1: "not_entailment"}, 2)


def test_query_counter_is_honest(shuffled_folder: Path, tmp_settings) -> None:
    victim = load_victim(str(shuffled_folder), settings=tmp_settings)
    before = victim.evaluations
    first = victim.counter()
    first.predict(PAIRS[:2])
    first.predict([PAIRS[1], PAIRS[2], PAIRS[2]])
    assert (first.queries, first.cache_hits) == (3, 2)
    computed = victim.evaluations - before
    assert computed <= 3
    second = victim.counter()
    second.predict(PAIRS[:3])
    # Another attack asking the same pairs pays queries again, though the model is not rerun.
    assert (second.queries, second.cache_hits) == (3, 0)
    assert victim.evaluations - before == computed


def test_batches_and_cache_lookups(tmp_path: Path, tmp_settings) -> None:
    victim = load_victim(str(build_tiny_classifier(tmp_path / "fresh")), settings=tmp_settings)
    assert victim.batch_size == 32 and not victim.cached(PAIRS[0])
    victim.predict(PAIRS * 20)  # four distinct pairs: one forward pass
    assert (victim.evaluations, victim.forward_passes) == (4, 1) and victim.cached(PAIRS[0])
    victim.predict([(f"A dog number {k} barks.", "A dog barks.") for k in range(40)])
    assert (victim.evaluations, victim.forward_passes) == (44, 3)  # 32 + 8


def test_missing_victims(tmp_path: Path, tmp_settings) -> None:
    with pytest.raises(ResourceError, match="train-victim"):
        load_victim("offline", settings=tmp_settings)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no config.json"):
        load_victim(str(tmp_path / "empty"), settings=tmp_settings)


def test_an_unknown_hub_id_fails_at_once_when_the_hub_is_out_of_reach(monkeypatch) -> None:
    """Not a folder, not in the cache, and no Hub to ask: one clear line, without the hub client's
    retries (the offline case of this machine and CI)."""
    from huggingface_hub import constants

    from engine.core.resources import ResourceError
    from engine.victim.model import hub_reachable, victim_labels

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert not hub_reachable()
    with pytest.raises(ResourceError, match="the Hub cannot be reached from here"):
        victim_labels("someone/nonexistent-nli-model")
