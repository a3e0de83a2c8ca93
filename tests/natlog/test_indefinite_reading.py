"""The reading of an indefinite subject: MacCartney's strict existential one, and the scene reading
SNLI and SICK annotators give captions (the subject is the entity the premise describes), with
``auto`` choosing per data format; real parses and real WordNet."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.attack.recipe import AttackRecipe
from engine.core.errors import InputError
from engine.natlog.polarity import polarize
from engine.natlog.triggers import Conventions, indefinite_reading
from engine.parse import parse
from engine.verify.verifier import verify


def relation(premise: str, hypothesis: str, settings, reading: str) -> str:
    verdict = verify(premise, hypothesis, settings.with_overrides(indefinite_reading=reading))
    return verdict.relation.symbol if verdict.relation else "unknown"


@pytest.mark.parametrize(("hypothesis", "existential", "scene"), [
    ("A dog is not chasing a ball.", "‿", "^"),   # the same dog: its negation contradicts
    ("A cat is chasing a ball.", "#", "|"),       # the same animal cannot be a dog and a cat
    ("An animal is chasing a ball.", "⊏", "⊏"),   # a hypernym stays an entailment
    ("A puppy is chasing a ball.", "⊐", "⊐"),
    ("A dog is chasing a red ball.", "⊐", "⊐"),   # the object is no subject: unchanged
])
def test_the_scene_reading_fixes_the_subject_and_nothing_else(settings, hypothesis, existential, scene) -> None:
    premise = "A dog is chasing a ball."
    assert relation(premise, hypothesis, settings, "existential") == existential
    assert relation(premise, hypothesis, settings, "scene") == scene


def test_only_a_main_clause_subject_reads_as_the_scene(settings) -> None:
    embedded = ("A man says that a dog runs.", "A man says that a dog does not run.")
    there = ("There is a dog in the park.", "There is not a dog in the park.")
    for reading in ("existential", "scene"):
        assert relation(*embedded, settings, reading) == "‿"  # the embedded subject stays existential
        assert relation(*there, settings, reading) == "^"
    marked = polarize(parse("A tall man is holding a ball.", settings=settings),
                      conventions=Conventions(indefinite="scene"))
    names = [t.name for t in marked.triggers]
    assert "a (scene)" in names and names.count("a") == 1  # the object's "a" is still an existential


def test_auto_reads_snli_and_sick_as_scenes_and_everything_else_strictly(settings, tmp_path: Path) -> None:
    assert indefinite_reading("auto", "sick") == indefinite_reading("auto", "tsv") == "scene"
    assert indefinite_reading("auto", "help") == indefinite_reading("auto", "conjnli") == "existential"
    assert indefinite_reading("auto", None) == "existential"  # a typed pair
    assert indefinite_reading("existential", "sick") == "existential"  # an explicit setting wins
    snli = tmp_path / "pairs.tsv"
    snli.write_text("1\tA dog runs.\tA dog sleeps.\tcontradiction\n", encoding="utf-8")
    help_file = tmp_path / "help.tsv"
    help_file.write_text("sentence1\tsentence2\tgold_label\nA dog runs.\tA dog sleeps.\tcontradiction\n",
                         encoding="utf-8")
    auto = AttackRecipe.from_settings(settings.with_overrides(indefinite_reading="auto"))
    assert auto.for_data(snli, "auto").conventions.indefinite_reading == "scene"
    assert auto.for_data(help_file, "mnli").conventions.indefinite_reading == "existential"
    strict = AttackRecipe.from_settings(settings.with_overrides(indefinite_reading="existential"))
    assert strict.for_data(snli, "auto").conventions.indefinite_reading == "existential"
    from tests.attacking import attack_of

    assert attack_of(settings, auto).for_data(snli, "auto").settings.indefinite_reading == "scene"  # what it reads
    with pytest.raises(InputError, match="unknown indefinite reading"):
        Conventions(indefinite="generic")


@pytest.mark.parametrize(("premise", "hypothesis", "existential", "scene"), [
    # a bare numeral subject: "exactly two" strictly (noun and predicate =: no relation projects),
    # the two the scene shows
    ("Two men are sleeping.", "Two men are not sleeping.", "unknown", "^"),
    ("Two dogs are sleeping.", "Two animals are sleeping.", "unknown", "⊏"),
    ("Two men are sleeping.", "Three men are sleeping.", "|", "|"),  # the number still counts exactly  # the number still counts exactly
    # a bare plural subject: "some people" strictly, the people the scene shows
    ("People are eating.", "People are not eating.", "‿", "^"),
    ("Dogs are running.", "Animals are running.", "⊏", "⊏"),
    # inside the truth frame sentence negation writes, the subject is still the scene's
    ("Two men are sleeping.", "It is not true that two men are not sleeping.", "unknown", "≡"),
    ("A man is sleeping.", "It is not true that a man is not sleeping.", "⊐", "≡"),
])
def test_a_numeral_or_bare_plural_subject_is_the_scene_group(settings, premise, hypothesis, existential,
                                                             scene) -> None:
    assert relation(premise, hypothesis, settings, "existential") == existential
    assert relation(premise, hypothesis, settings, "scene") == scene


def test_only_a_bare_main_clause_numeral_or_plural_reads_as_the_scene(settings) -> None:
    def names(text: str) -> list[str]:
        marked = polarize(parse(text, settings=settings), conventions=Conventions(indefinite="scene"))
        return [t.name for t in marked.triggers]

    assert "two (scene)" in names("Two men are getting ready to play basketball.")
    assert "two (scene)" not in names("The two men sleep.")          # a definite group keeps its reading
    assert "two (scene)" not in names("A man sees two dogs.")        # an object numeral counts
    assert "bare plural (scene)" in names("Uniformed people are eating.")
    assert "bare plural (scene)" not in names("A man says that dogs bark.")  # an embedded subject
    assert "bare plural (scene)" not in names("A man drinks water.")         # an object mass noun


@pytest.mark.parametrize(("premise", "hypothesis", "existential", "scene"), [
    # a caption fragment ("Two kids playing ..."): its head noun is the group or the one the scene
    # shows, as a clause's subject is, and the participle after it is its predicate
    ("Two dogs running in a field.", "Two animals running in a field.", "unknown", "⊏"),
    ("Two kids playing on the playground.", "Two kids playing.", "unknown", "⊏"),
    ("Two men playing soccer.", "Three men playing soccer.", "|", "|"),  # the number still counts
    ("A dog running in a field.", "A cat running in a field.", "#", "|"),  # the same animal
])
def test_a_caption_fragment_reads_as_the_scene(settings, premise, hypothesis, existential, scene) -> None:
    assert relation(premise, hypothesis, settings, "existential") == existential
    assert relation(premise, hypothesis, settings, "scene") == scene


def test_only_a_fragment_head_reads_as_the_scene(settings) -> None:
    def marks(text: str, reading: str = "scene") -> str:
        marked = polarize(parse(text, settings=settings), conventions=Conventions(indefinite=reading))
        return " ".join(t.marked for t in marked.tokens)

    assert marks("Two kids playing on the playground.").startswith("Two= kids↑ playing↑")
    assert marks("Two kids playing on the playground.", "existential").startswith("Two= kids= playing=")
    # a numeral inside the fragment's predicate is an object's: read as it was
    for reading in ("scene", "existential"):
        assert marks("A man carrying two boxes.", reading) == "A↑ man↑ carrying↑ two= boxes↑ .↑"
