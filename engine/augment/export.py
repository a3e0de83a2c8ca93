"""``engine augment``: the successful H* of attack and profile runs as a training file.

Adversarial training, as TextAttack's ``train --attack`` does it, but with labels that hold by
construction and are validated: each example is (P, H*) with the setup's target label, which natural
logic derives from the pair's gold label. An example is kept when the study judged it valid (the
majority gave the target label and fewer than half read H* as broken), or, where nobody judged it,
when its validity estimate is at least ``min_validity``. Examples whose source pair, or whose
(P, H*), is one of the held-out pairs (the pairs a victim is evaluated, profiled or attacked on
afterwards) are never exported: that is what keeps the repair loop's measurement honest.

The file is JSON Lines that :func:`engine.data.readers.read_pairs` reads (``sentence1``,
``sentence2``, ``gold_label``), each line with its provenance: the run, its kind, the pair's index,
setup and text, the phenomenon or operators, the estimate and the verdict.

In: a runs store, run names, optional verdicts (``python -m annotations export --format jsonl``),
held-out data files. Out: the file and a report of what was kept and dropped, and why.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.errors import InputError
from engine.core.vocab import LABELS
from engine.data.readers import pair_key, read_pairs
from engine.natlog.setups import SETUPS
from engine.store.store import RunStore

#: A verdict: (premise, H*) -> whether the study judged it valid (target label, not broken).
Verdicts = Mapping[tuple[str, str], bool]

#: The validity estimate an unjudged H* needs by default: the estimate's own "more likely valid
#: than not" (it predicts the target label and not broken English; engine/validity).
DEFAULT_MIN_VALIDITY = 0.5


@dataclass(frozen=True)
class AugmentExample:
    """One training pair made from a successful H*, with where it came from."""

    premise: str
    hypothesis: str
    label: str
    source_hypothesis: str
    source_label: str
    run: str
    kind: str  # "attack", "profile", or "anchor" (a profile cell the victim got right)
    pair_index: int
    setup: str
    what: str  # the phenomenon (profile runs) or the operators (attack runs)
    validity: float | None
    judged: bool | None  # the study's verdict, None when nobody judged it
    target_prob: float | None = None  # the victim's probability of the label (anchors: how near it came)

    @property
    def source_key(self) -> str:
        return pair_key(self.premise, self.source_hypothesis)

    @property
    def key(self) -> str:
        return pair_key(self.premise, self.hypothesis)

    def to_json(self) -> dict[str, Any]:
        return {"sentence1": self.premise, "sentence2": self.hypothesis, "gold_label": self.label,
                "source": {"run": self.run, "kind": self.kind, "pair_index": self.pair_index, "setup": self.setup,
                           "hypothesis": self.source_hypothesis, "label": self.source_label,
                           "key": self.source_key, "what": self.what},
                "validity": self.validity, "judged": self.judged,
                **({"target_prob": self.target_prob} if self.kind == "anchor" else {})}


@dataclass(frozen=True)
class AugmentReport:
    """What an export kept and what it dropped, and why."""

    path: Path
    kept: int
    found: int
    held_out: int = 0
    low_validity: int = 0
    judged_invalid: int = 0
    duplicates: int = 0
    by_what: dict[str, int] = field(default_factory=dict)
    by_label: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        anchors = f" ({self.by_kind['anchor']} of them anchors the victim got right)" if self.by_kind.get("anchor") else ""
        return (f"{self.kept} of {self.found} H* exported to {self.path}{anchors}; dropped: {self.held_out} on "
                f"held-out pairs, {self.judged_invalid} judged invalid, {self.low_validity} unjudged under the "
                f"validity threshold, {self.duplicates} repeated")


def read_verdicts(path: Path) -> dict[tuple[str, str], bool]:
    """Verdicts from ``python -m annotations export --format jsonl``: each resolved item's (premise, H*)
    -> the majority gave the target label and fewer than half of the votes read H* as broken."""
    if not path.is_file():
        raise InputError(f"{path}: no such verdicts file (write one with python -m annotations export --format jsonl)")
    out: dict[tuple[str, str], bool] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            premise, h_star = row["premise"], row["adversarial_hypothesis"]
            state, majority, target = row.get("state"), row.get("majority"), row["target_label"]
            fluency = row.get("fluency_votes") or {}
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{path}, line {number}: not a row of an annotations export ({exc})") from None
        if state != "resolved" or not h_star:
            continue
        votes = sum(int(v) for v in fluency.values()) if isinstance(fluency, dict) else 0
        broken = int(fluency.get("broken", 0)) if isinstance(fluency, dict) else 0
        out[(premise, h_star)] = majority == target and broken * 2 < max(votes, 1)
    return out


def held_out_keys(sources: Iterable[Any]) -> frozenset[str]:
    """The keys of every pair of the held-out data sources (whole files or splits, never samples:
    a pair outside today's sample may be in tomorrow's)."""
    keys: set[str] = set()
    for source in sources:
        keys.update(pair_key(p.premise, p.hypothesis) for p in read_pairs(source.path, source.fmt, source.split))
    return frozenset(keys)


def profile_examples(store: RunStore, name: str, verdicts: Verdicts | None = None) -> list[AugmentExample]:
    """Each (pair, phenomenon) of profile run ``name`` that fooled the victim, as an example: the
    cell's H* with the setup's target label."""
    return _profile_cells(store, name, verdicts, fooled=True)


def profile_anchors(store: RunStore, name: str, verdicts: Verdicts | None = None) -> list[AugmentExample]:
    """Each (pair, phenomenon) of profile run ``name`` that did *not* fool the victim, as an example: the
    cell's hardest asked H* (the one with the lowest probability of the target label) with the setup's
    target label. Trained beside the fooled ones (:func:`balance_anchors`), they keep a phenomenon
    from becoming a label of its own: double negations that fooled the victim are all entailments (E2E),
    and without neutral and contradicted double negations a victim learns "double negation means
    entailment"."""
    return _profile_cells(store, name, verdicts, fooled=False)


def _profile_cells(store: RunStore, name: str, verdicts: Verdicts | None, fooled: bool) -> list[AugmentExample]:
    """The example of each cell of profile run ``name`` that fooled the victim (``fooled``) or did not,
    with the setup's target label; an anchor keeps the victim's probability of that label."""
    run = store.profile_run(name)
    out = []
    for pair in store.profile_pairs(run.id):
        if pair.status != "profiled":
            continue
        setup = SETUPS[pair.setup]
        for cell in pair.cells:
            if bool(cell.fooled) == fooled and cell.example:
                out.append(AugmentExample(
                    pair.premise, cell.example, setup.target_label, pair.hypothesis, pair.gold_label, run.name,
                    "profile" if fooled else "anchor", pair.pair_index, pair.setup, cell.phenomenon,
                    cell.example_validity, (verdicts or {}).get((pair.premise, cell.example)),
                    None if fooled else cell.example_target_prob))
    return out


def balance_anchors(fooled: Sequence[AugmentExample], anchors: Sequence[AugmentExample]) -> list[AugmentExample]:
    """Of ``anchors``, as many per phenomenon as ``fooled`` has examples of it, taken in turn from each
    target label, the label the fooled examples of that phenomenon have least first, and within a label
    the hardest first (lowest probability of the target label, then the pair's index). A phenomenon
    nothing fooled the victim on gets none: it has nothing to balance."""
    wanted = Counter(e.what for e in fooled)
    chosen: list[AugmentExample] = []
    for what, count in sorted(wanted.items()):
        by_label: dict[str, list[AugmentExample]] = {}
        for a in sorted((a for a in anchors if a.what == what),
                        key=lambda a: (1.0 if a.target_prob is None else a.target_prob, a.pair_index, a.setup)):
            by_label.setdefault(a.label, []).append(a)
        have = Counter(e.label for e in fooled if e.what == what)
        order = sorted(by_label, key=lambda label: (have[label], LABELS.index(label)))
        queues = [list(reversed(by_label[label])) for label in order]
        picked = 0
        while picked < count and any(queues):
            for queue in queues:
                if queue and picked < count:
                    chosen.append(queue.pop())
                    picked += 1
    return chosen


def with_anchors(examples: Sequence[AugmentExample], anchors: Sequence[AugmentExample], held_out: frozenset[str],
                 min_validity: float = DEFAULT_MIN_VALIDITY) -> list[AugmentExample]:
    """``examples`` and, balanced against those of them the export keeps, the anchors it may keep
    (:func:`balance_anchors`): what :func:`export_augmentation` is given when anchors are wanted."""
    usable = [e for e in examples if dropped_because(e, held_out, min_validity) is None]
    return [*examples, *balance_anchors(usable, [a for a in anchors if dropped_because(a, held_out, min_validity) is None])]


def attack_examples(store: RunStore, name: str, verdicts: Verdicts | None = None) -> list[AugmentExample]:
    """Each successful attack of run ``name`` as an example: H* with the run's target label."""
    run = store.run(name)
    out = []
    for attack in store.attacks(run.id, with_trace=False):
        record = attack.record
        if record.status != "success" or not record.adversarial_hypothesis:
            continue
        out.append(AugmentExample(
            record.premise, record.adversarial_hypothesis, str(record.target_label), record.hypothesis,
            str(record.source_label), run.name, "attack", record.pair_index, run.setup,
            "+".join(dict.fromkeys(record.operators)) or "none", record.validity_estimate,
            (verdicts or {}).get((record.premise, record.adversarial_hypothesis))))
    return out


def dropped_because(example: AugmentExample, held_out: frozenset[str], min_validity: float) -> str | None:
    """Why an example may not be trained on ("held_out", "judged_invalid", "low_validity"), or None.

    An anchor needs no validity estimate: the victim already gives it its label, so training on it
    keeps an answer rather than teaching a new one, and the estimate's doubt about a label is mostly
    doubt about the source pair's (neutral pairs above all, whose double negations it puts at 0.375
    where the entailed and contradicted ones are at 0.86: with the threshold no neutral double
    negation was left to anchor, and the victim learnt "double negation means not neutral"). A judged
    invalid anchor is still dropped, and a held-out one always."""
    if example.source_key in held_out or example.key in held_out:
        return "held_out"
    if example.judged is False:
        return "judged_invalid"
    if example.judged is None and example.kind != "anchor" and (example.validity is None
                                                                 or example.validity < min_validity):
        return "low_validity"
    return None


def export_augmentation(examples: Sequence[AugmentExample], out: Path, held_out: frozenset[str],
                        min_validity: float = DEFAULT_MIN_VALIDITY) -> AugmentReport:
    """Write the examples worth training on to ``out`` (JSON Lines) and say what was dropped: those on
    held-out pairs, those judged invalid, unjudged ones estimated under ``min_validity`` (or with no
    estimate), and repeats of one (P, H*)."""
    if not 0.0 <= min_validity <= 1.0:
        raise InputError(f"the validity threshold must be between 0 and 1, not {min_validity}")
    kept: list[AugmentExample] = []
    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for example in examples:
        if example.label not in LABELS:
            raise InputError(f"{example.run}, pair {example.pair_index}: {example.label!r} is not an NLI label")
        why = dropped_because(example, held_out, min_validity)
        if why:
            counts[why] += 1
        elif example.key in seen:
            counts["duplicates"] += 1
        else:
            seen.add(example.key)
            kept.append(example)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_text("".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in kept), encoding="utf-8")
    partial.replace(out)
    return AugmentReport(out, len(kept), len(examples), counts["held_out"], counts["low_validity"],
                         counts["judged_invalid"], counts["duplicates"],
                         dict(Counter(e.what for e in kept).most_common()), dict(Counter(e.label for e in kept)),
                         dict(Counter(e.kind for e in kept)))
