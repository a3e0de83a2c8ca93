"""Records of the runs store (defined once, reused by the engine, annotations and the app)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.core.vocab import AttackStatus, NLILabel

#: The attack system of a run whose identity names none (every NatLog run).
NATLOG_SYSTEM = "NatLog"


def system_name(config: Mapping[str, Any]) -> str:
    """The attack system a run's identity names (``config["system"]["name"]``: a peer such as
    ``PWWS``), :data:`NATLOG_SYSTEM` when it names none."""
    system = config.get("system")
    name = system.get("name") if isinstance(system, Mapping) else None
    return str(name) if name else NATLOG_SYSTEM


@dataclass(frozen=True)
class Run:
    """One batch attack run: a setup against a victim over one data file, by NatLog or by a peer
    attack system recorded beside it (:attr:`system`)."""

    id: int
    name: str
    setup: str
    victim: str
    data_path: str
    data_format: str
    seed: int
    config: dict[str, Any]
    created_at: str
    finished_at: str | None

    @property
    def system(self) -> str:
        return system_name(self.config)


@dataclass(frozen=True)
class AttackRecord:
    """What the attack engine hands to the store for one source pair.

    ``original_*`` fields describe the victim on (premise, hypothesis);
    ``adversarial_*`` fields describe it on (premise, H*). ``derivation`` and
    ``trace`` must be JSON-serialisable.
    """

    pair_index: int
    premise: str
    hypothesis: str
    gold_label: NLILabel | None
    status: AttackStatus
    source_label: NLILabel
    target_label: NLILabel
    original_prediction: NLILabel | None = None
    original_probabilities: dict[str, float] | None = None
    adversarial_hypothesis: str | None = None
    adversarial_prediction: NLILabel | None = None
    adversarial_probabilities: dict[str, float] | None = None
    queries: int = 0
    cache_hits: int = 0
    perplexity: float | None = None
    operators: tuple[str, ...] = ()
    polarity: str | None = None
    derivation: Any = None
    trace: Any = None
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def validity_estimate(self) -> float | None:
        """The validity estimate of H* (its last derivation step's), for a successful attack whose run
        had a validity gate; None otherwise."""
        steps = self.derivation if isinstance(self.derivation, list) else []
        if self.status != AttackStatus.SUCCESS or not steps or not isinstance(steps[-1], dict):
            return None
        value = steps[-1].get("validity")
        return float(value) if isinstance(value, (int, float)) else None

    def edit_values(self, group: str) -> tuple[str, ...]:
        """The distinct ``operator`` s, or edit ``polarity`` marks (↑ ↓ =), of H*'s derivation, in
        order of first use; ``("none",)`` when it has none. A value used twice counts once."""
        values = self.operators if group == "operator" else tuple(self.polarity or ())
        return tuple(dict.fromkeys(values)) or ("none",)


@dataclass(frozen=True)
class StoredAttack:
    """An attack as read back from the store, with its run's identity."""

    id: int
    run_id: int
    run_name: str
    pair_id: int
    item_id: int | None
    record: AttackRecord
