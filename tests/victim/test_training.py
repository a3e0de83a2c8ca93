"""``train-victim`` on a tiny real BERT backbone and a slice of real SICK pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.core.vocab import LABELS
from engine.victim.model import load_victim
from engine.victim.training import CARD_FILE, DataSource, TrainConfig, train_victim
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
    from engine.core.errors import InputError
    from engine.victim.training import DataSource

    for bad in ("limit=0", "limit=-1"):
        with pytest.raises(InputError, match="limit must be at least 1"):
            DataSource.parse(f"snli_test.tsv,{bad}")
    with pytest.raises(InputError, match="whole number"):
        DataSource.parse("snli_test.tsv,limit=many")


def test_same_card_from_two_checkouts(backbone: Path, shared_data: Path, tmp_settings, tmp_path: Path) -> None:
    """The same recipe run from two folders (two checkouts, each with its copy of the data and of the
    backbone) samples the same pairs and gives the same card: training-pair hash, accuracy table."""
    import shutil

    cards = []
    for place in ("checkout-a/data", "elsewhere/x/y/shared/data"):
        folder = tmp_path / place
        folder.mkdir(parents=True)
        shutil.copy(shared_data / "sick_corrected.tsv", folder / "sick_corrected.tsv")
        (folder / "snli").mkdir()
        shutil.copy(shared_data / "snli_test.tsv", folder / "snli" / "snli_test.tsv")
        model = shutil.copytree(backbone, folder.parent / "backbone")
        config = TrainConfig(
            backbone=str(model), epochs=1, batch_size=16, seed=5,
            train=(DataSource.parse("sick_corrected.tsv,format=sick,split=TRAIN,limit=150", folder),
                   DataSource.parse("snli/snli_test.tsv,format=tsv,split=TRAIN,limit=90", folder)),
        )
        held_out = [DataSource.parse("snli/snli_test.tsv,format=tsv,split=TEST,limit=40", folder)]
        cards.append(train_victim(config, tmp_settings, folder.parent / "victim", held_out, progress=False).card)
    first, second = cards
    for key in ("config", "train_pairs_sha256", "dev_pairs_sha256", "label_counts", "steps", "accuracy"):
        assert first[key] == second[key], key
    assert str(tmp_path) not in json.dumps(first["config"])  # no absolute path in what identifies the model
    trained = (tmp_path / "checkout-a" / "victim" / "trained_pairs.txt").read_text().split()
    assert len(trained) == first["train_pairs"] and trained == sorted(trained)


def test_sample_depends_on_content_not_path(shared_data: Path, tmp_path: Path) -> None:
    import shutil

    a, b = tmp_path / "a", tmp_path / "b" / "deeper"
    for folder in (a, b):
        folder.mkdir(parents=True)
        shutil.copy(shared_data / "snli_test.tsv", folder / "snli_test.tsv")
    sample = DataSource(a / "snli_test.tsv", "tsv", limit=50).load(3)
    assert sample == DataSource(b / "snli_test.tsv", "tsv", limit=50).load(3)
    # A changed file is another sample (its content hash seeds it).
    lines = (b / "snli_test.tsv").read_text().splitlines(keepends=True)
    (b / "snli_test.tsv").write_text("".join(lines[1:]))
    assert [p.pair_id for p in sample] != [p.pair_id for p in DataSource(b / "snli_test.tsv", "tsv", limit=50).load(3)]
