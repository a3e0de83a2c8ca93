"""``train-victim`` on a tiny real BERT backbone and a slice of real SICK pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import InputError
from engine.training import CARD_FILE, DataSource, TrainConfig, train_victim
from engine.victim import load_victim
from runstore.vocab import LABELS
from tests.tiny_models import build_tiny_classifier


@pytest.fixture(scope="module")
def backbone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_classifier(tmp_path_factory.mktemp("backbone"), {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_data_specs(tmp_path: Path) -> None:
    source = DataSource.parse("sick.tsv,format=sick,split=TRAIN,limit=50", base=tmp_path)
    assert source == DataSource(tmp_path / "sick.tsv", "sick", "TRAIN", 50)
    assert DataSource.parse("/abs/a.tsv", base=tmp_path).path == Path("/abs/a.tsv")
    with pytest.raises(InputError, match="options are"):
        DataSource.parse("a.tsv,sample=3")
    with pytest.raises(InputError, match="whole number"):
        DataSource.parse("a.tsv,limit=many")


def test_train_save_card_and_reuse(backbone: Path, shared_data: Path, tmp_settings, tmp_path: Path) -> None:
    config = TrainConfig(
        backbone=str(backbone), epochs=1, batch_size=16, max_minutes=5, balance=False,
        train=(DataSource(shared_data / "sick_corrected.tsv", "sick", "TRAIN", 200),),
    )
    held_out = [DataSource(shared_data / "sick_corrected.tsv", "sick", "TEST", 60)]
    out = tmp_path / "victim"
    result = train_victim(config, tmp_settings, out, held_out, progress=False)
    card = result.card
    assert not result.reused and (card["train_pairs"], card["dev_pairs"]) == (190, 10)
    assert card["steps"] == card["planned_steps"] == 12 and not card["stopped_early"]
    assert set(card["accuracy"]) == {"dev", "data/sick_corrected.tsv:TEST"}
    test_acc = card["accuracy"]["data/sick_corrected.tsv:TEST"]
    assert test_acc["pairs"] == 60 and 0 <= test_acc["accuracy"] <= 1 and set(test_acc["per_label"]) <= set(LABELS)
    assert json.loads((out / CARD_FILE).read_text())["pairs_per_source"] == {"data/sick_corrected.tsv:TRAIN": 200}
    readme = (out / "README.md").read_text()
    assert "sick_corrected.tsv" in readme and "| data/sick_corrected.tsv:TEST | 60 |" in readme
    # The saved model maps its own labels; the LABEL_k backbone needed no --label-map.
    assert load_victim(str(out), settings=tmp_settings).labels == LABELS
    again = train_victim(config, tmp_settings, out, held_out, progress=False)
    assert again.reused and again.card == card


def test_balanced_training_data(backbone: Path, shared_data: Path, tmp_settings, tmp_path: Path) -> None:
    config = TrainConfig(
        backbone=str(backbone), epochs=1, batch_size=64, max_minutes=5, dev_fraction=0.0,
        train=(DataSource(shared_data / "sick_corrected.tsv", "sick", "TRAIN", 300),),
    )
    card = train_victim(config, tmp_settings, tmp_path / "b", progress=False).card
    counts = card["label_counts"]
    # SICK is mostly neutral; balancing keeps as many pairs of each label as the rarest has.
    assert len(set(counts.values())) == 1 and counts["neutral"] == card["balanced_per_label"] < 100
    assert card["train_pairs"] == 3 * counts["neutral"]


def test_time_limit_stops_training(backbone: Path, shared_data: Path, tmp_settings, tmp_path: Path) -> None:
    config = TrainConfig(
        backbone=str(backbone), epochs=1, batch_size=16, max_minutes=1e-6,
        train=(DataSource(shared_data / "sick_corrected.tsv", "sick", "TRAIN", 40),),
    )
    card = train_victim(config, tmp_settings, tmp_path / "v", progress=False).card
    assert card["stopped_early"] and card["steps"] < card["planned_steps"]


def test_too_little_data(backbone: Path, tmp_path: Path, tmp_settings) -> None:
    data = tmp_path / "tiny.tsv"
    data.write_text("1\tA dog runs.\tAn animal runs.\tENTAILMENT\n", encoding="utf-8")
    config = TrainConfig(backbone=str(backbone), train=(DataSource(data, "tsv"),))
    with pytest.raises(InputError, match="at least 10"):
        train_victim(config, tmp_settings, tmp_path / "out", progress=False)


def test_data_spec_limit_must_be_positive() -> None:
    from engine.errors import InputError
    from engine.training import DataSource

    for bad in ("limit=0", "limit=-1"):
        with pytest.raises(InputError, match="limit must be at least 1"):
            DataSource.parse(f"snli_test.tsv,{bad}")
    with pytest.raises(InputError, match="whole number"):
        DataSource.parse("snli_test.tsv,limit=many")
