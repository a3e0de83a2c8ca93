"""The constraint chain: registered checks in order, one tally per constraint, the same chain in
the attack, the CLI and the Candidates page; a new constraint is one class."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.attack.build import Attack
from engine.attack.recipe import DEFAULT_CONSTRAINTS, AttackRecipe
from engine.attack.round import propose
from engine.attack.search import Target, start_search
from engine.constraints import (
    CheckContext,
    Constraint,
    ConstraintChain,
    describe_rejected,
    register_constraint,
    registered_constraints,
)
from engine.constraints import chain as constraints
from engine.core.errors import InputError
from engine.edits.candidates import generate_candidates
from engine.edits.records import Candidate
from engine.natlog.polarity import polarize
from engine.natlog.setups import get_setup
from engine.natlog.triggers import Conventions
from engine.parse import parse
from engine.victim.model import Victim
from tests.attacking import attack_of


def test_default_chain_and_descriptions() -> None:
    names = [c.name for c in ConstraintChain.named(DEFAULT_CONSTRAINTS).constraints]
    assert names == [c.name for c in registered_constraints()] and names[:2] == ["relation-guard", "premise-check"]
    assert describe_rejected({"relation-guard": 0, "premise-check": 2}) == "2 by premise-check"
    assert describe_rejected({"relation-guard": 0}) == "none rejected"
    with pytest.raises(InputError, match="unknown constraint"):
        ConstraintChain.named(["nope"])


def test_candidates_cli_path_runs_the_premise_check(settings, attack: Attack) -> None:
    polarized = polarize(parse("A man sweeps.", settings=settings))
    premise = "A man in a red shirt sweeps the floor of a shop."
    (with_premise,) = propose(attack, polarized, [get_setup("E2N")], premise, top_k=500)
    (without,) = propose(attack, polarized, [get_setup("E2N")], top_k=500)
    assert with_premise.rejected["premise-check"] > 0 and without.rejected["premise-check"] == 0
    assert with_premise.generated == without.generated
    texts = {c.text for c in with_premise.candidates}
    assert "A man in a red shirt sweeps." not in texts
    assert len(texts) == with_premise.generated - sum(with_premise.rejected.values())


def test_a_new_constraint_is_one_class_and_counted_in_the_round(monkeypatch: pytest.MonkeyPatch, settings,
                                                                victim: Victim, contradictions) -> None:
    """A registered constraint runs where a recipe names it (here: last), never in the default chain
    by registering alone."""
    monkeypatch.setattr(constraints, "_REGISTRY", constraints._REGISTRY.copy())

    @register_constraint
    class NoPrefixes(Constraint):
        name = "no-prefixes"
        description = "no 'It is ... that' prefixes"

        def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
            return [c for c in candidates if not c.text.startswith("It is")]

    pair = contradictions[0]
    small = settings.with_overrides(query_budget=3, top_k=2)
    default = AttackRecipe.from_settings(small)
    assert "no-prefixes" not in [s.name for s in default.constraints]
    recipe = default.with_changes({"constraints": [*DEFAULT_CONSTRAINTS, "no-prefixes"]})
    attack = attack_of(small, recipe)
    search = start_search(attack, Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2E")), victim)
    first = search.step()
    polarized = polarize(parse(pair.hypothesis, settings=settings))
    prefixed = [c for c in generate_candidates(polarized, get_setup("C2E").relations, settings=settings,
                                               senses=attack.senses, premise=pair.premise)
                if c.text.startswith("It is")]
    assert list(first.rejected) == [c.name for c in registered_constraints()]
    assert list(first.rejected)[-1] == "no-prefixes"
    # It sees what the constraints before it let through, so it drops at most every prefixed candidate.
    assert 0 < first.rejected["no-prefixes"] <= len(prefixed)
    assert first.rejected_by_operator["no-prefixes"].keys() <= {"SentenceNegation", "DoubleNegation"}
    assert not [c for c in first.candidates if c.text.startswith("It is")]
    assert first.to_json()["rejected"]["no-prefixes"] == first.rejected["no-prefixes"]


def test_insertion_fit_drops_costly_modifiers_by_the_lm(settings, attack: Attack) -> None:
    """The cost is H*'s extra negative log-likelihood per inserted token under the real ranking LM:
    the constraint keeps exactly the insertions at or under the limit, and leaves other edits alone."""
    import math

    from engine.constraints import CheckContext, InsertionFit

    scorer = attack.ranker.scorer
    polarized = polarize(parse("The gang is structured.", settings=settings))
    found = generate_candidates(polarized, get_setup("E2N").relations, setup="E2N", settings=settings)
    inserted = [c for c in found if c.operator == "Insertion"]
    assert len(inserted) >= 3
    counts = scorer.token_counts([polarized.sentence.text, *(c.text for c in inserted)])
    scores = scorer.score([polarized.sentence.text, *(c.text for c in inserted)])
    base = counts[0] * math.log(scores[0])
    cost = {c.text: (n * math.log(s) - base) / max(1, n - counts[0])
            for c, n, s in zip(inserted, counts[1:], scores[1:])}
    limit = sorted(cost.values())[len(cost) // 2]  # the median: some go, some stay
    check = CheckContext(get_setup("E2N"), source=polarized, settings=settings, scorer=scorer)
    kept = {c.text for c in InsertionFit(limit).keep(found, check) if c.operator == "Insertion"}
    # (The LM may run in bfloat16, whose rounding depends on the batch: costs within 0.1 of the
    # limit can fall either way.)
    assert {t for t, v in cost.items() if v <= limit - 0.1} <= kept
    assert not kept & {t for t, v in cost.items() if v > limit + 0.1}
    kept_all = InsertionFit(limit).keep(found, check)
    assert [c for c in kept_all if c.operator != "Insertion"] == [c for c in found if c.operator != "Insertion"]
    # At the default limit (3 nats a token) a group that "is structured" gets no place or manner.
    default = CheckContext(get_setup("E2N"), source=polarized, settings=settings, scorer=scorer)
    dropped = {c.text for c in inserted} - {c.text for c in InsertionFit().keep(found, default)}
    default_cost = InsertionFit().insertion_cost
    assert dropped and {t for t, v in cost.items() if v > default_cost + 0.1} <= dropped
    assert not dropped & {t for t, v in cost.items() if v <= default_cost - 0.1}
    assert InsertionFit(0).keep(found, default) == list(found)


def test_verb_fit_drops_swapped_verbs_the_words_after_them_do_not_fit(settings, attack: Attack) -> None:
    """A WordNet swap of "putting" gives "moving chicken into" and "setting chicken into": the
    ranking LM finds the object after the new verb much less likely (real WordNet, real parse,
    SmolLM2). The check drops exactly the verb swaps whose next three tokens cost more than the
    limit, leaves every other candidate alone, and is off at 0."""
    from engine.constraints import VERB_FIT_TOKENS, VERB_SWAPS, VerbFit

    polarized = polarize(parse("A man is putting chicken into the container", settings=settings))
    found = generate_candidates(polarized, get_setup("E2E").relations, setup="E2E", settings=settings)
    words = [t.token.text for t in polarized.tokens]
    verbs = [c for c in found if c.operator in VERB_SWAPS and polarized.tokens[c.site].token.upos == "VERB"]
    assert len(verbs) >= 2 and any(c not in verbs for c in found)
    nll = attack.ranker.scorer.continuation_nll(
        [pair for c in verbs for pair in ((" ".join(words[:c.span[1]]), " ".join(words[c.span[1]:])),
                                          (" ".join(c.words[:c.new_span[1]]), " ".join(c.words[c.new_span[1]:])))],
        VERB_FIT_TOKENS)
    cost = {c.text: nll[2 * k + 1] - nll[2 * k] for k, c in enumerate(verbs)}
    check = CheckContext(get_setup("E2E"), source=polarized, settings=settings, scorer=attack.ranker.scorer)
    kept = VerbFit().keep(found, check)
    dropped = {c.text for c in found} - {c.text for c in kept}
    # (bfloat16 rounding moves a cost by a little: within 0.1 of the limit either way is fine.)
    assert {"A man is moving chicken into the container", "A man is setting chicken into the container"} <= dropped
    default_cost = VerbFit().verb_fit_cost
    assert {t for t, v in cost.items() if v > default_cost + 0.1} <= dropped
    assert not dropped & {t for t, v in cost.items() if v <= default_cost - 0.1}
    assert [c for c in kept if c not in verbs] == [c for c in found if c not in verbs]
    assert VerbFit(0).keep(found, check) == list(found)
    limit = sorted(cost.values())[0] - 0.2  # below every cost: every verb swap goes, nothing else
    assert VerbFit(limit).keep(found, check) == [c for c in found if c not in verbs]


def test_no_repeat_drops_an_edit_that_doubles_a_word_h_does_not_double(settings, attack: Attack) -> None:
    """A second hyponym of "basketball" inside "professional basketball" gives "professional
    professional basketball" (real WordNet, real parse); a word H itself doubles stays allowed."""
    from engine.constraints import NoRepeat

    polarized = polarize(parse("Two men play professional basketball.", settings=settings),
                         conventions=Conventions(indefinite="scene"))
    found = generate_candidates(polarized, get_setup("C2C").relations, setup="C2C", settings=settings,
                                senses=attack.senses)
    doubled = [c for c in found if "professional professional" in c.text.lower()]
    assert doubled, [c.text for c in found]
    kept = NoRepeat().keep(found, CheckContext(get_setup("C2C"), source=polarized, settings=settings))
    assert kept == [c for c in found if c not in doubled]
    had = polarize(parse("He had had a very long day.", settings=settings))
    again = generate_candidates(had, get_setup("E2E").relations, setup="E2E", settings=settings)
    assert [c for c in again if "had had" in c.text]
    assert NoRepeat().keep(again, CheckContext(get_setup("E2E"), source=had, settings=settings)) == again


def test_no_repeat_compares_phrases_with_hyphens_as_spaces() -> None:
    from engine.constraints.wording import _doubled

    assert _doubled("A boy sleeping in a hot air hot-air balloon.") == {("hot", "air")}
    assert _doubled("Two men play professional professional basketball.") == {("professional",)}
    assert _doubled("A man and a man talk.") == set()  # repeated, but not back to back
    assert _doubled("He had had a long day.") == {("had",)}
