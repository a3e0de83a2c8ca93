"""Offline resources: WordNet arranged from Debian files, the shipped models, doctor."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core import resources
from engine.core.settings import Settings


def test_lexnames_has_45_numbered_lines() -> None:
    lines = resources.lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3"
    assert lines[5] == "05\tnoun.animal\t1"
    assert lines[44] == "44\tadj.ppl\t3"


def test_debian_wordnet_is_readable_by_nltk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (resources.WORDNET_DEBIAN_DIR / "data.noun").is_file():
        pytest.skip("Debian wordnet-base is not installed")
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    settings = Settings(nltk_data=tmp_path / "nltk_data")
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))  # NLTK only reads from its data path
    resources.use_nltk_data(settings)
    target = resources.install_wordnet_from_debian(settings)
    wn = WordNetCorpusReader(str(target), None)
    assert wn.get_version() == "3.0"
    dog = wn.synset("dog.n.01")
    assert dog.lexname() == "noun.animal"
    assert "canine.n.02" in {s.name() for s in dog.hypernyms()}
    assert wn.synset("good.a.01").lemmas()[0].antonyms()[0].name() == "bad"


def test_missing_debian_files_name_the_packages(tmp_path: Path) -> None:
    settings = Settings(nltk_data=tmp_path / "nltk_data")
    with pytest.raises(resources.ResourceError, match="wordnet-base wordnet-sense-index"):
        resources.install_wordnet_from_debian(settings, source=tmp_path / "empty")


def test_shipped_model_files_are_found() -> None:
    assert resources.smollm2_gguf_path().suffix == ".gguf"
    assert (resources.minilm_path() / "model.safetensors").is_file()


def test_doctor_reports_every_required_resource_found(settings: Settings) -> None:
    report = {r.name: r for r in resources.doctor(settings)}
    missing = [r.name for r in report.values() if not r.found and not r.optional]
    assert missing == []
    assert report["stanza:en"].found or "stanza.download('en')" in report["stanza:en"].fix


def test_the_project_reads_wordnet_without_nltks_map_of_it_onto_itself() -> None:
    """NLTK maps the multilingual offsets of "wordnet" onto every copy it loads, and for WordNet 3.0
    maps 3.0 onto itself (two sense indexes read, seconds per process). The project's reader skips
    that, and reads the same WordNet: the same senses, relations and sense counts as NLTK's."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from engine.core.settings import get_settings
    from engine.core.wordnet import wordnet

    settings = get_settings()
    ours = wordnet(settings)
    if not resources.check_wordnet(settings).found:
        pytest.skip("WordNet is not provisioned")
    assert ours.map30 is None and ours.get_version() == "3.0"
    assert wordnet(Settings(nltk_data=settings.nltk_data)) is ours  # one reader per copy, not per settings
    plain = WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)
    assert plain.map30  # what NLTK builds at each load
    for word in ("dog", "run", "bank", "quickly", "green", "play"):
        assert ours.synsets(word) == plain.synsets(word)
        for a, b in zip(ours.synsets(word), plain.synsets(word)):
            assert sorted(a.hyponyms()) == sorted(b.hyponyms()) and a.hypernyms() == b.hypernyms()
            assert [lemma.count() for lemma in a.lemmas()] == [lemma.count() for lemma in b.lemmas()]
