"""The process's caches: bounded, least recently used out first, counted by name; an attack's
trace says what each round hit and missed."""

from __future__ import annotations

from functools import lru_cache

import pytest

from engine.attack.search import Target, attack_pair
from engine.core import caches
from engine.core.caches import CacheCounts, Memo
from engine.natlog.setups import get_setup


def test_a_memo_keeps_the_most_recently_used_and_counts_each_lookup() -> None:
    memo: Memo[str, int] = Memo("test.memo", 2)
    before = caches.counts()
    assert memo.missing(["a", "b", "a"]) == ["a", "b"]  # "a" is looked up once, not twice
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo["a"] == 1  # "a" is now the most recent: "b" goes first
    memo.put("c", 3)
    assert "b" not in memo and "a" in memo and "c" in memo and len(memo) == 2
    assert memo.get_or("c", lambda: 99) == 3
    assert memo.get_or("d", lambda: 4) == 4 and "a" not in memo
    assert caches.since(before)["test.memo"] == CacheCounts(hits=1, misses=3)


def test_memos_of_one_name_count_together_after_they_are_gone() -> None:
    before = caches.counts()
    for _ in range(3):
        Memo("test.shared", 4).get_or("x", lambda: 1)
    assert caches.since(before)["test.shared"] == CacheCounts(hits=0, misses=3)


def test_functions_cached_by_lru_cache_are_counted_and_bad_sizes_refused() -> None:
    @lru_cache(maxsize=8)
    def square(n: int) -> int:
        return n * n

    caches.register_function("test.square", square)
    before = caches.counts()
    assert [square(n) for n in (2, 3, 2, 2)] == [4, 9, 4, 4]
    counted = caches.since(before)["test.square"]
    assert (counted.hits, counted.misses, counted.hit_rate) == (2, 2, 0.5)
    with pytest.raises(ValueError, match="size must be at least 1"):
        Memo("test.bad", 0)


def test_each_round_of_an_attack_records_its_cache_lookups(attack, victim) -> None:
    """Attacking the same pair twice: the second attack's rounds find their parses and LM scores
    in the caches the first one filled (and the trace says so). The pair is one no other test
    attacks: the caches live as long as the process."""
    target = Target.of("A violinist tunes her cello backstage.", "The violinist in green is asleep backstage.",
                       "contradiction", get_setup("C2E"))
    first = attack_pair(attack, target, victim)
    second = attack_pair(attack, target, victim)
    assert first.rounds and all(r.caches for r in first.rounds)
    assert second.adversarial_hypothesis == first.adversarial_hypothesis
    scores_first, scores_second = first.caches["lm.scores"], second.caches["lm.scores"]
    assert scores_first.misses > 0 and scores_second.misses == 0 and scores_second.hits > 0
    assert second.caches["parse"].misses == 0
    trace = second.to_json()
    assert trace["caches"]["lm.scores"]["hit_rate"] == 1.0
    assert trace["rounds"][0]["caches"]["parse"]["misses"] == 0
