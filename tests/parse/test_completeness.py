"""The source check: hypotheses cut off mid-sentence are not attacked (every edit of them reads as
broken English), on real parses of HELP's truncated hypotheses; complete sentences and SNLI-style
captions without a verb pass, and an attack on a cut-off H is skipped with the reason."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from engine.attack.build import Attack
from engine.attack.search import Target, attack_pair
from engine.core.errors import InputError
from engine.core.settings import Settings, SettingsError
from engine.data.readers import read_pairs
from engine.edits.candidates import generate_candidates
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.parse.completeness import incomplete_reason
from engine.victim.model import Victim
from tests.attacking import attack_of


@pytest.mark.parametrize("text,why", [
    ("Tom told me that he", "subject pronoun 'he'"),
    ("We have the boots in green , blue", "list cut before its conjunction"),
    ("Either you go now", "'Either' has no or"),
    ("I grabbed my little sister 's hand ,", "ends with ','"),
    ("If you find a bad wife", "main clause is missing"),
    ("I 'm going to live my life , with", "'with', which needs"),
    ("Two dogs play with a", "'a', which needs"),
    ("A man rides his bike and", "'and', which needs"),
    ("It it is no longer in operation as of March 2016.", "'It' is doubled"),
])
def test_cut_off_hypotheses_are_recognised(text: str, why: str, settings: Settings) -> None:
    reason = incomplete_reason(parse(text, settings=settings))
    assert reason is not None and why in reason


@pytest.mark.parametrize("text", [
    "two people running a race",                # a caption without a verb
    "A man with his outfit",
    "There are many boats out.",                # an adverbial particle ends the sentence
    "A boy is watching a boat float by.",
    "The UK has not won the contest since.",
    "They helped one another.",                 # a pronominal determiner
    "Parwati Bagla Road is a major artery in Kanpur, India.",  # a place's apposition
    "Either you go now or I will make you go.",
    "He said that that was fine.",
    "The house he lives in",                    # a stranded preposition in a relative clause
])
def test_complete_sentences_pass(text: str, settings: Settings) -> None:
    assert incomplete_reason(parse(text, settings=settings)) is None


def test_snli_hypotheses_are_not_flagged(shared_data: Path, settings: Settings) -> None:
    """SNLI's hypotheses were written by people: at most 1 in 200 of a seeded sample is flagged."""
    pairs = read_pairs(shared_data / "snli_test.tsv")
    texts = sorted({p.hypothesis for p in pairs})
    random.Random(3).shuffle(texts)
    flagged = [t for t in texts[:400] if incomplete_reason(parse(t, settings=settings))]
    assert len(flagged) <= 2, flagged


def test_help_truncations_are_flagged(shared_data: Path, settings: Settings) -> None:
    """HELP builds hypotheses by deleting a conjunct; some are left cut off, and are flagged."""
    pairs = read_pairs(shared_data / "help" / "leskexppmb_or.tsv", "help")
    flagged = set()
    for pair in pairs:
        try:
            parsed = parse(pair.hypothesis, settings=settings)
        except InputError:  # several sentences: the attack reports those itself
            continue
        if incomplete_reason(parsed):
            flagged.add(pair.hypothesis)
    assert {"Either you go now", "He 's either crazy", "Watch your step ,"} <= flagged


def test_attack_skips_a_cut_off_hypothesis(victim: Victim, attack: Attack, settings: Settings) -> None:
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        return generate_candidates(*args, **kwargs)

    premise = "A man rides his bike to work."
    target = Target.of(premise, "A man rides his bike to", "contradiction", get_setup("C2E"))
    result = attack_pair(dataclasses.replace(attack, generate=spy), target, victim)
    assert result.status == "skipped" and calls == [] and result.rounds == ()
    assert result.reason.startswith("hypothesis is not a complete sentence") and "'to'" in result.reason
    off = settings.with_overrides(source_check="off")
    attacked = attack_pair(attack_of(off), target, victim)
    assert attacked.status != "skipped" and attacked.rounds


def test_unknown_source_check_is_one_line(settings: Settings) -> None:
    """A choice setting is checked when it is read, before any attack starts."""
    with pytest.raises(SettingsError, match="setting 'source_check': 'strict' is not one of complete, off"):
        settings.with_overrides(source_check="strict")
