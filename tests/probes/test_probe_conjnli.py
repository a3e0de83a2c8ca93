"""The ConjNLI suite: the released dev file read and described, a malformed file refused in one
line, generated items reproducible and re-derivable, and the suite's reports."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.parse import parse
from engine.probes import conjnli
from engine.probes.record import ProbeItem
from engine.probes.suites import get_suite


@pytest.fixture(scope="module")
def dev_items(shared_data: Path, settings) -> list[ProbeItem]:
    path = shared_data / "conjnli" / "conj_dev.tsv"
    if not path.is_file():
        pytest.skip(f"ConjNLI dev file not found at {path}")
    return conjnli.read(path, settings=settings)


def test_suite_is_registered() -> None:
    suite = get_suite("conjnli")
    assert suite is conjnli.SUITE and suite.read is conjnli.read and suite.generate is conjnli.generate


def test_reader_describes_the_dev_file(dev_items: list[ProbeItem]) -> None:
    assert len(dev_items) == 623
    assert Counter(i.label for i in dev_items) == {"neutral": 281, "entailment": 204, "contradiction": 138}
    assert all(i.suite == "conjnli" and i.form == "" for i in dev_items)
    categories = Counter(i.category for i in dev_items)
    assert set(categories) <= {"and", "or", "but", "nor", "none"}
    assert categories["and"] > 200 and categories["or"] > 200 and categories["but"] > 60 and categories["nor"] > 15
    assert categories["none"] < 30
    groups = Counter(i.group for i in dev_items)
    assert set(groups) == set(conjnli.EDIT_GROUPS)
    assert groups["removed"] > 150 and groups["added"] > 150 and groups["replaced"] > 80 and groups["other"] < 200
    assert all(set(i.meta) == {"quantifier", "negation", "boolean", "risk"} for i in dev_items)
    assert 50 < sum(i.meta["quantifier"] for i in dev_items) < 300
    assert 30 < sum(i.meta["negation"] for i in dev_items) < 200
    flagged = [i for i in dev_items if not i.meta["boolean"]]
    assert flagged and all(i.meta["risk"] for i in flagged)
    # Removing a conjunct of "and" is mostly entailment in the gold labels too.
    removed_and = Counter(i.label for i in dev_items if (i.category, i.group) == ("and", "removed"))
    assert removed_and.most_common(1)[0][0] == "entailment"


def test_malformed_file_is_one_line_error_with_file_and_line(tmp_path: Path, settings) -> None:
    good = "John and Mary sing.\tJohn sings.\tentailment\n"
    short = tmp_path / "short.tsv"
    short.write_text("\ufeffPremise\tHypothesis\tLabel\n" + good + "John sings.\tentailment\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"short\.tsv:3: expected at least 3 tab-separated columns") as caught:
        conjnli.read(short, settings=settings)
    assert "\n" not in str(caught.value)
    label = tmp_path / "label.tsv"
    label.write_text("Premise\tHypothesis\tLabel\n" + good + "A or B.\tA.\tmaybe\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"label\.tsv:3"):
        conjnli.read(label, settings=settings)
    ok = tmp_path / "ok.tsv"
    ok.write_text("\ufeffPremise\tHypothesis\tLabel\n" + good, encoding="utf-8")
    (item,) = conjnli.read(ok, settings=settings)
    assert (item.category, item.group, item.label, item.meta["boolean"]) == ("and", "removed", "entailment", True)


@pytest.mark.parametrize("premise,hypothesis,category,group", [
    ("John and Mary sing.", "John sings.", "and", "removed"),
    ("He plays the guitar or the piano.", "He plays the guitar, the piano or the drums.", "or", "added"),
    ("She is tall but thin.", "She is tall but strong.", "but", "replaced"),
    ("Neither John nor Mary sings.", "Nobody sings.", "nor", "other"),
    ("The dog sleeps.", "The cat sleeps.", "none", "other"),
])
def test_pairs_get_their_connective_and_edit(premise: str, hypothesis: str, category: str, group: str, settings) -> None:
    got = conjnli.describe_pair(parse(premise, settings=settings), parse(hypothesis, settings=settings), premise, hypothesis)
    assert got[:2] == (category, group)


def test_quantifier_and_negation_words() -> None:
    assert conjnli.has_quantifier("every dog and cat".split()) and conjnli.has_quantifier("at least two".split())
    assert not conjnli.has_quantifier("a dog and a cat".split())
    assert conjnli.has_negation("neither a nor b".split()) and conjnli.has_negation("did n't go".split())
    assert not conjnli.has_negation("a dog and a cat".split())


def test_generated_items_are_reproducible_and_derivable(shared_data: Path, settings) -> None:
    items = conjnli.generate(12, 3, settings=settings)
    assert len(items) == 12 and items == conjnli.generate(12, 3, settings=settings)
    for item in items:
        conjnli.check(item)
        assert item.label in ("entailment", "neutral") and item.meta["safe"] and item.meta["boolean"]
        assert item.category in ("and", "or", "but") and item.group in ("removed", "added", "replaced")
        assert item.premise != item.hypothesis
    broken = ProbeItem(items[0].premise, items[0].hypothesis, "contradiction", "conjnli", items[0].category,
                       items[0].group, form=items[0].form)
    with pytest.raises(ValueError, match="gives"):
        conjnli.check(broken)


def test_generation_falls_back_to_built_in_sentences_and_tags_unsafe_edits(monkeypatch: pytest.MonkeyPatch, settings) -> None:
    monkeypatch.setattr(conjnli, "TRAIN_FILE", Path("no-such-folder") / "none.tsv")
    items = conjnli.generate(200, 0, include_unsafe=True, settings=settings)
    assert {i.premise for i in items} <= set(conjnli.BUILTIN_SENTENCES)
    unsafe = [i for i in items if not i.meta["safe"]]
    assert unsafe and all(i.meta["unsafe"] for i in unsafe)
    safe = conjnli.generate(200, 0, settings=settings)
    assert all(i.meta["safe"] for i in safe) and len(safe) == len(items) - len(unsafe)
    # "No student read the book or watched the film": the disjunct's ⊐ flips to ⊏ under "no".
    flipped = [i for i in safe if i.premise.startswith("No student") and i.group == "removed"]
    assert flipped and all(i.label == "entailment" and "⊐ ↓ ⊏" in i.form for i in flipped)


def item(category: str, group: str, label: str, quantifier: bool, negation: bool) -> ProbeItem:
    return ProbeItem("P.", "H.", label, "conjnli", category, group,
                     meta={"quantifier": quantifier, "negation": negation, "boolean": True, "risk": []})


def test_report_cells() -> None:
    items = [item("and", "removed", "entailment", True, False), item("and", "added", "neutral", False, False),
             item("or", "removed", "neutral", False, True), item("but", "replaced", "contradiction", True, True)]
    predicted = ["entailment", "entailment", "neutral", "neutral"]
    report = conjnli.report(items, predicted, [[1.0, 0.0, 0.0]] * 4)
    assert report["by_conjunction"] == [{"conjunction": "and", "items": 2, "accuracy": 0.5},
                                        {"conjunction": "or", "items": 1, "accuracy": 1.0},
                                        {"conjunction": "but", "items": 1, "accuracy": 0.0}]
    assert report["by_quantifier_negation"] == [
        {"feature": "quantifier", "present": True, "items": 2, "accuracy": 0.5},
        {"feature": "quantifier", "present": False, "items": 2, "accuracy": 0.5},
        {"feature": "negation", "present": True, "items": 2, "accuracy": 0.5},
        {"feature": "negation", "present": False, "items": 2, "accuracy": 0.5},
    ]
    assert report["by_edit"] == [{"edit": "removed", "items": 2, "accuracy": 1.0},
                                 {"edit": "added", "items": 1, "accuracy": 0.0},
                                 {"edit": "replaced", "items": 1, "accuracy": 0.0}]
