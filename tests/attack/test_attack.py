"""The NatLogAttack search on real parses, real WordNet candidates, SmolLM2 ranking and a tiny
real BERT victim whose output bias makes it answer "contradiction" on every input."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest
import torch

from engine.attack.build import Attack
from engine.attack.recipe import DEFAULT_CONSTRAINTS
from engine.attack.search import Target, allowed_next, attack_pair, start_search
from engine.constraints import CheckContext, ConstraintChain, PremiseCheck, RelationGuard, said_words
from engine.core.errors import InputError
from engine.data.readers import read_pairs
from engine.edits.candidates import generate_candidates
from engine.models.language import lm_dtype
from engine.natlog.polarity import polarize
from engine.natlog.relations import Relation, join_sets
from engine.natlog.setups import SETUPS, get_setup
from engine.parse import parse
from engine.validity.features import ValidityInput
from engine.victim.model import Victim, load_victim
from tests.attacking import attack_of
from tests.tiny_models import build_tiny_classifier

R = Relation


def test_reported_perplexity_is_scored_in_float32(attack: Attack, settings) -> None:
    """The ranking scorer runs in the configured ``lm_dtype`` (``auto``: bfloat16 on CPUs with native
    bf16), the reported perplexity in float32; ``rel=0.1`` covers bf16's rounding (2.5 % here), so the
    comparison holds in either precision."""
    scorer, perplexity = attack.ranker.scorer, attack.ranker.perplexity
    ranking = next(scorer.lm.model.parameters()).dtype
    assert ranking == lm_dtype(scorer.lm.device, settings.lm_dtype)
    assert next(perplexity.lm.model.parameters()).dtype == torch.float32
    texts = ["A dog runs in the park.", "Park the in runs dog a."]
    fast, exact = scorer.score(texts), perplexity.score(texts)
    assert fast[0] < fast[1] and exact[0] < exact[1]
    assert fast[0] == pytest.approx(exact[0], rel=0.1)


def small(settings, **values) -> Attack:
    """The test attack under ``settings`` with ``values`` for some of its fields."""
    return attack_of(settings.with_overrides(**values))


def test_allowed_next_follows_the_join_table() -> None:
    for setup in SETUPS.values():
        assert allowed_next(frozenset({R.EQUIVALENCE}), setup) == setup.relations
    assert allowed_next(frozenset({R.ALTERNATION}), get_setup("E2C")) == {R.EQUIVALENCE, R.REVERSE}
    assert allowed_next(frozenset({R.NEGATION}), get_setup("C2E")) == {R.EQUIVALENCE, R.FORWARD}
    assert allowed_next(frozenset({R.FORWARD}), get_setup("E2E")) == {R.EQUIVALENCE, R.FORWARD}


def test_guard_drops_candidates_whose_composed_relation_leaves_the_setup(settings) -> None:
    polarized = polarize(parse("A man plays a guitar on the stage.", settings=settings))
    setup = get_setup("E2C")
    # A generator that ignores the restriction: real candidates for every E2C relation.
    found = generate_candidates(polarized, setup.relations, setup=setup.name, settings=settings)
    assert found and {c.relation for c in found} <= {R.NEGATION, R.ALTERNATION}
    after_alternation = frozenset({R.ALTERNATION})
    guard = RelationGuard()
    kept = guard.keep(found, CheckContext(setup, composed=after_alternation))
    # After H | H', join(|, ^) = {⊏} and join(|, |) = {≡, ⊏, ⊐, |, #}: neither is inside {^, |}.
    assert kept == []
    assert guard.keep(found, CheckContext(setup)) == found
    # The chain tallies what each constraint dropped, in chain order.
    checked = ConstraintChain.named(DEFAULT_CONSTRAINTS).apply(found, CheckContext(setup, "A man plays.", after_alternation))
    assert checked.kept == [] and checked.rejected["relation-guard"] == len(found)
    assert set(checked.rejected.values()) == {len(found), 0} and checked.by_operator["relation-guard"]
    for c in found:
        assert not join_sets(after_alternation, {c.relation}) <= setup.relations


def test_premise_check_keeps_neutral_targets_neutral(settings) -> None:
    e2n = get_setup("E2N")
    found = generate_candidates(polarize(parse("A man sweeps.", settings=settings)), e2n.relations, settings=settings)
    premise = "A man in a red shirt sweeps the floor of a shop."
    check = PremiseCheck()
    kept = {c.text for c in check.keep(found, CheckContext(e2n, premise, settings=settings))}
    texts = {c.text for c in found}
    assert "A man in a red shirt sweeps." in texts and "A man in a red shirt sweeps." not in kept
    assert "A man with a hat sweeps." in kept
    # An H* that says only what P talks about is decided by P: the double negation of "A man sweeps"
    # says that a man sweeps, which P entails.
    assert "It is not true that a man does not sweep." in texts and "It is not true that a man does not sweep." not in kept
    assert check.keep(found, CheckContext(get_setup("C2C"), premise, settings=settings)) == found  # P contradicts every stronger H*


def test_premise_check_drops_what_the_premise_decides(settings) -> None:
    """N2N: "There is no lion pacing tiredly in a pen" is neutral to "A lion is slowly walking";
    deleting the participle gives "There is no lion", which P contradicts. Deleting "tiredly" keeps
    the pen, which P does not mention."""
    n2n = get_setup("N2N")
    found = generate_candidates(polarize(parse("There is no lion pacing tiredly in a pen", settings=settings)),
                                n2n.relations, settings=settings, setup="N2N")
    texts = {c.text for c in found}
    kept = {c.text for c in PremiseCheck().keep(found, CheckContext(n2n, "A lion is slowly walking", settings=settings))}
    assert "There is no lion" in texts and "There is no lion" not in kept
    assert kept and all("pen" in t or "pace" in t or "pacing" in t for t in kept)
    # Base forms count: "walks" in H* is what "walking" in P says.
    assert said_words("A lion walks.", settings) <= said_words("A lion is slowly walking", settings)
    assert said_words("It is not true that there is no lion.", settings) == {"lion"}
    assert "two" in said_words("Two men re-entered the room", settings) and "re-enter" in said_words(
        "Two men re-entered the room", settings)


def test_skipped_pair_is_never_attacked(victim: Victim, attack: Attack, settings, shared_data: Path) -> None:
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        return generate_candidates(*args, **kwargs)

    pair = next(p for p in read_pairs(shared_data / "snli_test.tsv") if p.label == "entailment")
    result = attack_pair(dataclasses.replace(attack, generate=spy),
                         Target.of(pair.premise, pair.hypothesis, "entailment", get_setup("E2E")), victim)
    assert result.status == "skipped" and result.original.label == "contradiction"
    assert result.rounds == () and result.queries == 1 and calls == []
    now = datetime.now(UTC)
    record = result.to_record(7, now, now)
    assert record.status == "skipped" and record.adversarial_hypothesis is None


def test_label_flip_succeeds_with_a_derivation(victim: Victim, attack: Attack, settings, contradictions) -> None:
    pair = contradictions[0]
    result = attack_pair(attack, Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2E")), victim)
    assert result.status == "success"
    assert result.adversarial.label != "entailment"
    (step,) = result.derivation
    assert step.candidate.text == result.adversarial_hypothesis
    assert step.candidate.relation in {R.NEGATION, R.COVER} and result.relation == {step.candidate.relation}
    # The trace says whether the verifier re-derives H -> H* (C2E allows ^ and ‿).
    assert result.self_check is not None and result.self_check.status == "re-derived"
    now = datetime.now(UTC)
    assert result.to_record(0, now, now).trace["self_check"]["status"] == "re-derived"
    assert result.queries == 2  # the original pair, then the best-ranked candidate
    assert result.perplexity == pytest.approx(attack.ranker.perplexity.score([result.adversarial_hypothesis])[0])
    first = result.rounds[0]
    assert first.queried[0].text == first.candidates[0].text
    assert [c.score for c in first.candidates] == sorted(c.score for c in first.candidates)


def test_a_success_pool_keeps_the_success_rated_most_natural(tmp_path: Path, attack: Attack, settings,
                                                             shared_data: Path) -> None:
    """With ``success_pool`` the round asks that many more candidates after its first success (each a
    query) and keeps the success the estimate that orders the round rates highest: the natural
    estimate by default, the validity estimate without one (``max-hvasr``); 0 keeps the first, as the
    paper."""
    assert attack.ranker.gate is not None
    says_entailment = load_victim(str(build_tiny_classifier(tmp_path / "victim", bias=(3.0, 0.0, 0.0))),
                                  settings=settings)
    pair = next(p for p in read_pairs(shared_data / "snli_test.tsv", "snli")
                if p.label == "entailment" and p.hypothesis == "A man is playing a guitar.")

    def run(pool: int, **overrides):
        return attack_pair(small(settings, top_k=12, success_pool=pool, **overrides),
                           Target.of(pair.premise, pair.hypothesis, "entailment", get_setup("E2N")), says_entailment)

    first, pooled = run(0), run(3)
    assert first.status == pooled.status == "success"  # this victim misses every neutral H*
    assert first.queries == 2 and first.rounds[0].chosen == 0
    (round_,) = pooled.rounds
    assert len(round_.queried) == 4 and pooled.queries == 5  # the original pair, the first success, 3 more
    natural = [c.naturalness for c in round_.candidates[:4]]
    assert None not in natural
    assert round_.chosen == max(range(4), key=lambda k: (natural[k], -k)) != 0  # not the first here
    validity = [c.validity for c in round_.candidates[:4]]
    assert None not in validity and round_.chosen != max(range(4), key=lambda k: (validity[k], -k))  # natural decides
    assert pooled.adversarial_hypothesis == round_.candidates[round_.chosen].text
    assert pooled.adversarial == round_.queried[round_.chosen].prediction
    assert round_.queried[0].text == first.adversarial_hypothesis  # the same order, only the pick differs

    # without the natural estimate, the validity estimate picks
    (valid_round,) = run(3, natural_estimate="none").rounds
    assert all(c.naturalness is None for c in valid_round.candidates)
    estimates = [attack.ranker.gate.estimator.estimate([ValidityInput(pair.premise, pair.hypothesis, q.text,
                                                              (c.operator,), "neutral", 1)])[0].probability
                 for q, c in zip(valid_round.queried, valid_round.candidates)]
    assert valid_round.chosen == max(range(4), key=lambda k: (estimates[k], -k))


def test_a_dead_end_backtracks_to_the_best_candidate_not_followed(victim: Victim, attack: Attack, settings,
                                                                 contradictions) -> None:
    """Candidates only for H itself: round 1 asks them all, round 2 (from the one chosen) has none,
    and the search resumes from the asked candidate with the next lowest P(target), up to
    ``max_backtracks`` times; then it stops with the dead end's reason."""
    pair = contradictions[1]

    def only_from_h(polarized, *args, **kwargs):
        return generate_candidates(polarized, *args, **kwargs)[:30] if polarized.sentence.text == pair.hypothesis else []

    def run(backtracks: int):
        search = start_search(dataclasses.replace(small(settings, top_k=8, max_backtracks=backtracks),
                                                  generate=only_from_h),
                              Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2C")), victim)
        return search.run()

    greedy, backtracking = run(0), run(2)
    assert greedy.status == backtracking.status == "failed"
    assert greedy.reason == backtracking.reason == "no-candidates"
    assert [r.outcome for r in greedy.rounds] == ["exhausted", "no-candidates"]
    assert greedy.rounds[1].resumed is None
    first, *dead_ends = backtracking.rounds
    assert first.outcome == "exhausted" and len(first.queried) >= 3
    assert [r.outcome for r in dead_ends] == ["no-candidates"] * 3
    by_target = sorted(range(len(first.queried)), key=lambda k: first.queried[k].prediction.prob("contradiction"))
    assert by_target[0] == first.chosen and dead_ends[0].hypothesis == first.candidates[first.chosen].text
    # each dead end resumes from the next-best asked candidate, the last one (backtracks spent) from none
    assert [r.resumed for r in dead_ends] == [first.candidates[by_target[1]].text,
                                             first.candidates[by_target[2]].text, None]
    assert [r.hypothesis for r in dead_ends[1:]] == [r.resumed for r in dead_ends[:-1]]
    assert dead_ends[1].composed == frozenset({first.candidates[by_target[1]].relation})
    assert backtracking.queries == greedy.queries  # resuming asks nothing new when nothing follows
    assert backtracking.to_json()["rounds"][1]["resumed"] == first.candidates[by_target[1]].text


def test_a_paused_round_asks_the_rest_at_a_dead_end(victim: Victim, attack: Attack, settings,
                                                   contradictions) -> None:
    """``round_patience``: a round pauses once that many asks in a row left its lowest P(target)
    where it was; the search goes on from the lowest asked at once, and at the dead end it comes
    back for the paused round's other candidates (before any backtrack). Every candidate is asked
    once, as without patience; only the order of the rounds differs."""
    pair = contradictions[1]

    def only_from_h(polarized, *args, **kwargs):
        return generate_candidates(polarized, *args, **kwargs)[:30] if polarized.sentence.text == pair.hypothesis else []

    def run(patience: int, lazy: bool = False):
        # 30 candidates for 8 places: the eager round here (``lazy_round`` off); the lazy one below
        return start_search(dataclasses.replace(small(settings, top_k=8, max_backtracks=0, round_patience=patience,
                                                      lazy_round=lazy), generate=only_from_h),
                            Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2C")), victim).run()

    whole, patient = run(0), run(1)
    assert [r.outcome for r in whole.rounds] == ["exhausted", "no-candidates"]
    assert whole.to_json()["rounds"][0].keys() == patient.to_json()["rounds"][0].keys() - {"back_to"}
    first = patient.rounds[0]
    assert first.outcome == "paused" and 2 <= len(first.queried) < len(first.candidates) == 8
    probs = [q.prediction.prob("contradiction") for q in first.queried]
    best = min(range(len(probs)), key=probs.__getitem__)
    assert first.chosen == best and len(probs) == best + 2  # one ask after the lowest, then the pause
    assert patient.rounds[1].hypothesis == first.candidates[best].text
    assert patient.rounds[1].outcome == "no-candidates" and patient.rounds[1].back_to == 1
    assert patient.rounds[1].resumed == pair.hypothesis
    # the rounds back at H ask exactly the candidates round 1 left, in its order
    from_h = [r for r in patient.rounds if r.hypothesis == pair.hypothesis]
    asked = [q.text for r in from_h for q in r.queried]
    assert asked == [c.text for c in whole.rounds[0].candidates]
    assert from_h[1].candidates == first.candidates[len(first.queried):]
    assert patient.status == whole.status == "failed" and patient.reason == "no-candidates"
    assert patient.queries == whole.queries  # every candidate once, whatever the order
    # A lazy round pauses the same way: its rest, unchecked windows included, is asked at the dead end.
    whole, patient = run(0, lazy=True), run(1, lazy=True)
    first = patient.rounds[0]
    assert first.outcome == "paused" and first.windows >= 1
    from_h = [r for r in patient.rounds if r.hypothesis == pair.hypothesis]
    assert [q.text for r in from_h for q in r.queried] == [q.text for q in whole.rounds[0].queried]
    assert patient.queries == whole.queries and len(whole.rounds[0].queried) <= 8


def test_budget_rounds_and_composition(victim: Victim, attack: Attack, settings, contradictions) -> None:
    pair = contradictions[1]
    budget = 7

    def first_six(*args, **kwargs):  # real candidates, fewer of them to rank: keeps the test fast
        return generate_candidates(*args, **kwargs)[:6]

    search = start_search(dataclasses.replace(small(settings, query_budget=budget, top_k=3, max_backtracks=0),
                                              generate=first_six),  # the greedy search
                          Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2C")), victim)
    rounds = []
    heard: list[list[tuple[str, float]]] = []
    while not search.done:
        heard.append([])
        rounds.append(search.step(progress=lambda what, fraction: heard[-1].append((what, fraction))))
    result = search.result()
    # The stepper's bar within a round: parse, generate and rank, then one step per candidate asked.
    for said, done in zip(heard, rounds):
        assert said[0][0].startswith("parsing") and any(w.startswith("generating") for w, _ in said)
        asks = [w for w, _ in said if w.startswith("asking the victim")]
        assert len(asks) >= len(done.queried) and [f for _, f in said] == sorted(f for _, f in said)
        assert all(0.0 <= f <= 1.0 for _, f in said)
    # The victim always says "contradiction", the target label of C2C: the attack can only fail.
    assert result.status == "failed" and result.reason in ("budget", "no-candidates")
    assert result.queries <= budget
    if result.reason == "budget":
        assert result.queries == budget
    assert len(rounds) >= 2
    assert sum(q.counted for r in rounds for q in r.queried) + 1 == result.queries
    composed = frozenset({R.EQUIVALENCE})
    for done, after in zip(rounds, rounds[1:]):
        assert done.outcome == "exhausted" and len(done.queried) == len(done.candidates)
        target = [q.prediction.prob("contradiction") for q in done.queried]
        picked = done.candidates[done.chosen]
        assert target[done.chosen] == min(target)
        assert after.hypothesis == picked.text
        composed = join_sets(composed, {picked.relation})
        assert after.composed == composed <= get_setup("C2C").relations
    texts = [q.text for r in rounds for q in r.queried]
    assert len(texts) == len(set(texts)) and pair.hypothesis not in texts
    with pytest.raises(InputError, match="over"):
        search.step()


def test_queries_are_evaluated_in_few_growing_batches(tmp_path: Path, attack: Attack, settings,
                                                      contradictions) -> None:
    """A failing search computes exactly the pairs it asks (never beyond the budget), in a handful
    of doubling batches rather than one forward pass per query."""
    fresh = load_victim(str(build_tiny_classifier(tmp_path / "victim", bias=(0.0, 0.0, 3.0))), settings=settings)
    pair = contradictions[1]  # "A man walks by an ad.": one round has enough licensed edits to spend it
    result = attack_pair(small(settings, query_budget=40),
                         Target.of(pair.premise, pair.hypothesis, "contradiction", get_setup("C2C")), fresh)
    assert (result.status, result.reason, result.queries) == ("failed", "budget", 40)
    assert fresh.evaluations == result.queries
    # The original pair, then per round batches of 8, 16, 32 (capped by what is left): not one pass per query.
    assert fresh.forward_passes <= 1 + 3 * len(result.rounds) < result.queries / 4


def test_wrong_setup_for_label(victim: Victim, attack: Attack, settings) -> None:
    with pytest.raises(InputError, match="attacks contradiction pairs"):
        start_search(attack, Target.of("A dog runs.", "An animal runs.", "entailment", get_setup("C2E")), victim)


def test_edit_polarity_is_the_polarity_of_the_edited_site(settings) -> None:
    from engine.attack.search import edit_polarity
    from engine.edits.candidates import generate_candidates
    from engine.natlog.polarity import polarize
    from engine.natlog.setups import get_setup
    from engine.parse import parse

    polarized = polarize(parse("No dog barked", settings=settings))
    found = generate_candidates(polarized, get_setup("E2E").relations, settings=settings)
    on_dog = [c for c in found if c.old == "dog"]
    assert on_dog and all(edit_polarity(polarized, c) == "↓" for c in on_dog)
    flips = generate_candidates(polarized, get_setup("E2C").relations, settings=settings)
    sentence_level = [c for c in flips if c.site is None]
    assert sentence_level and all(edit_polarity(polarized, c) == "↑" for c in sentence_level)


def test_a_round_skips_a_seen_text_whatever_the_case_of_its_first_letter(attack: Attack, settings) -> None:
    """Swapping "kid" back to "child" re-capitalises H: "The child was 18 years old" is the seen
    "the child was 18 years old", not a new candidate (real parse, real WordNet)."""
    from engine.attack.round import RoundStart, candidate_round

    polarized = polarize(parse("The kid was 18 years old", settings=settings))
    setup = get_setup("C2C")
    guarded = dataclasses.replace(attack, chain=ConstraintChain.named(["relation-guard"]))

    def texts(seen: set[str]) -> set[str]:
        found = candidate_round(guarded, RoundStart(polarized, setup, "the child was 18 years old",
                                                    seen=frozenset(seen)))
        return {c.text for c in found.ranked}

    unseen = texts(set())
    assert "The child was 18 years old" in unseen
    again = texts({"the child was 18 years old", "The kid was 18 years old"})
    assert again == unseen - {"The child was 18 years old"}


def test_a_round_asks_the_swaps_of_a_verb_after_every_other_candidate(attack: Attack, settings) -> None:
    """``verb_swaps_last``: the swaps of "eating" (a verb in the parse) come after the round's other
    candidates, each group in the order it had; off, the round asks in the ranked order, where some
    verb swap comes before another candidate (real parse, WordNet and SmolLM2 ranking)."""
    from engine.attack.round import RoundStart, candidate_round
    from engine.constraints import swaps_a_verb

    polarized = polarize(parse("A man is eating a sandwich in the kitchen.", settings=settings))
    setup = get_setup("E2E")

    def asked(verbs_last: bool):
        guarded = dataclasses.replace(small(settings, verb_swaps_last=verbs_last),
                                      chain=ConstraintChain.named(["relation-guard"]))
        return candidate_round(guarded, RoundStart(polarized, setup, polarized.sentence.text))

    plain, ordered = asked(False), asked(True)
    verbs = [c for c in plain.ranked if swaps_a_verb(c, polarized)]
    others = [c for c in plain.ranked if not swaps_a_verb(c, polarized)]
    assert verbs and others and {c.old for c in verbs} == {"eating"}
    assert plain.kept == plain.ranked and plain.ranked.index(verbs[0]) < plain.ranked.index(others[-1])
    assert ordered.ranked == plain.ranked
    assert ordered.kept == tuple(others) + tuple(verbs)
