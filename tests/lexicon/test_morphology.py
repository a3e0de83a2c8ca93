"""The memoised lemminflect look-ups answer as lemminflect does, and no caller can change them."""

from __future__ import annotations

import lemminflect
import pytest

from engine.core import morphology


@pytest.mark.parametrize(("lemma", "tag"), [("run", "VBD"), ("child", "NNS"), ("big", "JJR"), ("xyzzy", "VBZ")])
def test_inflections_are_lemminflects(lemma: str, tag: str) -> None:
    assert morphology.inflections(lemma, tag) == tuple(lemminflect.getInflection(lemma, tag=tag))


def test_lemmas_and_tables_are_lemminflects_and_read_only() -> None:
    assert morphology.lemmas("mice", "NOUN") == ("mouse",)
    assert dict(morphology.all_lemmas("ran")) == {k: tuple(v) for k, v in lemminflect.getAllLemmas("ran").items()}
    table = morphology.all_inflections("big", "ADJ")
    assert table["JJS"] == ("biggest",)
    with pytest.raises(TypeError):
        table["JJS"] = ("bigly",)  # type: ignore[index]
    assert morphology.all_inflections("big", "ADJ")["JJS"] == ("biggest",)
