"""A profile run: for each pair and each setup of its gold label, ask the victim a few of the best
candidates of every phenomenon the pair's first round has, and store what fooled it.

An attack stops at its first success, so it says *that* a pair fell, not *to what*. A profile asks
each phenomenon (:mod:`engine.profile.phenomena`) on its own: the round of H is generated, checked
and ordered as the attack's first round is (:func:`engine.attack.round.propose`, the recipe's
order), its candidates grouped by phenomenon, and up to ``budget`` of each group asked in that
order. A phenomenon fools the victim on a pair when one of them does. Only one-edit H* are asked:
the card reads "the victim falls to a hypernym under 'no'", not to a chain of three edits.

Pairs whose (P, H) the victim already gets wrong are skipped (recorded as such), as an attack skips
them; pairs it trained on are left out unless asked for, as attack runs leave them out. Each pair is
stored with its cells in one transaction, so a run resumes where it stopped.

In: a data file's pairs, setups, a built attack, a victim. Out: the stored profile run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from engine.attack.build import Attack
from engine.attack.identity import recipe_digest, victim_identity
from engine.attack.round import propose
from engine.core.errors import InputError
from engine.data.readers import NLIPair, file_digest, pair_key, read_pairs
from engine.natlog.polarity import polarize
from engine.natlog.setups import SETUPS, Setup
from engine.parse import parse
from engine.profile.phenomena import phenomenon
from engine.store.profile_runs import ProfileCell, ProfilePair, ProfileRun
from engine.store.store import RunStore
from engine.victim.model import Victim
from engine.victim.training import trained_pair_keys

__all__ = ["DEFAULT_BUDGET", "ProfileReport", "ProfileSpec", "profile_pair", "profile_setups", "run_profile",
           "select_profile_pairs"]

#: How many of a phenomenon's candidates a pair asks at most (issue 50: "a small budget").
DEFAULT_BUDGET = 5


@dataclass(frozen=True)
class ProfileSpec:
    """What a profile run covers: its name, the data file (format, split), the setups (each pair is
    profiled in those of its gold label), the victim's name, a seeded sample of ``limit`` pairs,
    ``budget`` asks per phenomenon, whether pairs the victim trained on are profiled too, and the
    candidates a round keeps (``top_k``: the recipe's when None)."""

    name: str
    data: Path
    fmt: str
    setups: tuple[Setup, ...]
    victim_name: str
    limit: int | None = None
    seed: int = 0
    split: str | None = None
    budget: int = DEFAULT_BUDGET
    include_trained: bool = False
    top_k: int | None = None


@dataclass(frozen=True)
class ProfileReport:
    """What one invocation did: the run, pairs chosen, resumed, profiled and skipped, seconds."""

    run: ProfileRun
    selected: int
    resumed: int
    profiled: int
    skipped: int
    seconds: float
    stopped: bool = False


def select_profile_pairs(pairs: Sequence[NLIPair], setups: Sequence[Setup], limit: int | None, seed: int,
                         exclude: frozenset[str] = frozenset()) -> list[tuple[int, NLIPair]]:
    """The pairs a profile covers: those whose gold label is the source label of one of ``setups``
    and whose key is not in ``exclude``, a seeded sample of ``limit`` of them, in file order."""
    sources = {s.source_label for s in setups}
    eligible = [(k, p) for k, p in enumerate(pairs)
                if p.label in sources and (not exclude or pair_key(p.premise, p.hypothesis) not in exclude)]
    if limit is not None and limit < len(eligible):
        eligible = sorted(random.Random(seed).sample(eligible, limit), key=lambda item: item[0])
    return eligible


def profile_pair(attack: Attack, victim: Victim, index: int, pair: NLIPair, setup: Setup, budget: int,
                 top_k: int | None = None) -> ProfilePair:
    """Profile one pair in one setup (its gold label must be the setup's source label)."""
    if pair.label != setup.source_label:
        raise InputError(f"pair {index} is {pair.label}, not {setup.source_label} as {setup.name} needs")
    original = victim.predict([(pair.premise, pair.hypothesis)])[0]

    def stored(status: str, cells: tuple[ProfileCell, ...] = ()) -> ProfilePair:
        return ProfilePair(index, setup.name, pair.premise, pair.hypothesis, pair.label, status, original.probs, cells)

    if original.label != pair.label:
        return stored("skipped")
    try:
        polarized = polarize(parse(pair.hypothesis, settings=attack.settings), conventions=attack.reading)
    except InputError:
        return stored("unparsable")
    (proposal,) = propose(attack, polarized, [setup], pair.premise, top_k)
    groups: dict[str, list] = {}
    for candidate in proposal.candidates:  # in the order the attack asks
        groups.setdefault(phenomenon(candidate, polarized), []).append(candidate)
    asked = {name: group[:budget] for name, group in groups.items()}
    texts = list(dict.fromkeys(c.text for group in asked.values() for c in group))
    answers = dict(zip(texts, victim.predict([(pair.premise, t) for t in texts]))) if texts else {}
    target = setup.target_label
    cells = []
    for name, group in asked.items():
        fooled = [c for c in group if answers[c.text].label != target]
        example = fooled[0] if fooled else min(group, key=lambda c: answers[c.text].prob(target))
        cells.append(ProfileCell(
            phenomenon=name, candidates=len(groups[name]), asked=len(group), fooled=len(fooled),
            example=example.text, example_target_prob=round(answers[example.text].prob(target), 4),
            example_validity=example.validity, example_natural=example.naturalness))
    return stored("profiled", tuple(cells))


def run_profile(store: RunStore, spec: ProfileSpec, attack: Attack, victim: Victim, *,
                pairs: Sequence[NLIPair] | None = None, progress: bool = True,
                on_pair: Callable[[int, int], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> ProfileReport:
    """Profile the selected pairs of ``spec.data`` in every setup of ``spec.setups`` that their gold
    label has, storing each; pairs already stored for the run are not asked again (resume).
    ``on_pair(done, total)`` hears the progress; ``should_stop()`` ends the run early, resumable."""
    if not spec.setups:
        raise InputError("a profile needs at least one setup")
    if spec.budget < 1:
        raise InputError(f"the budget per phenomenon must be at least 1, not {spec.budget}")
    pairs = read_pairs(spec.data, spec.fmt, spec.split) if pairs is None else pairs
    attack = attack.for_data(spec.data, spec.fmt)
    # pairs the victim trained on are left out unless asked for, as attack runs leave them out
    exclude = frozenset() if spec.include_trained else (trained_pair_keys(victim.name) or frozenset())
    chosen = select_profile_pairs(pairs, spec.setups, spec.limit, spec.seed, exclude)
    config = {"recipe": attack.recipe.name, "recipe_hash": recipe_digest(attack.recipe.to_json()),
              "victim": victim_identity(victim.name, ",".join(victim.labels)),
              "data": {"sha256": file_digest(spec.data), "format": spec.fmt, "split": spec.split,
                       "limit": spec.limit, "seed": spec.seed, "include_trained": spec.include_trained},
              "top_k": spec.top_k}
    run = store.start_profile_run(spec.name, spec.victim_name, str(spec.data), spec.fmt,
                                  [s.name for s in spec.setups], spec.budget, config)
    done = store.done_profile_pairs(run.id)
    todo = [(k, p, s) for k, p in chosen for s in spec.setups
            if p.label == s.source_label and (k, s.name) not in done]
    total = sum(1 for _, p in chosen for s in spec.setups if p.label == s.source_label)
    began, profiled, skipped, stopped = time.monotonic(), 0, 0, False
    bar = tqdm(todo, desc=f"profile {spec.victim_name}", unit="pair", disable=not progress)
    for k, pair, setup in bar:
        if should_stop is not None and should_stop():
            stopped = True
            break
        found = profile_pair(attack, victim, k, pair, setup, spec.budget, spec.top_k)
        store.record_profile_pair(run.id, found)
        profiled += found.status == "profiled"
        skipped += found.status != "profiled"
        if on_pair is not None:
            on_pair(total - len(todo) + profiled + skipped, total)
    bar.close()
    if not stopped:
        store.finish_profile_run(run.id)
    return ProfileReport(run, len(chosen), total - len(todo), profiled, skipped, time.monotonic() - began, stopped)


def profile_setups(names: str) -> tuple[Setup, ...]:
    """``E2E,C2C`` as setups (InputError naming the known ones for an unknown name)."""
    out = []
    for name in (n.strip().upper() for n in names.split(",") if n.strip()):
        if name not in SETUPS:
            raise InputError(f"unknown setup {name!r}: choose from {', '.join(SETUPS)}")
        out.append(SETUPS[name])
    if not out:
        raise InputError(f"name at least one setup ({', '.join(SETUPS)})")
    return tuple(out)

