"""Attacks a person writes: H edited into H* by hand against the victim, stored as an attack of a run
whose system is the author (``human:NAME``), beside NatLog's and the peers' runs.

The Write page asks the victim about each try and shows natural logic's verdict on it
(:func:`engine.verify.edit_label.label_after_edit`); when the author submits, :func:`authored_record`
makes the :class:`~engine.store.records.AttackRecord` the runs store keeps: the victim's outputs on
(P, H) and (P, H*), the queries the author spent on this pair (distinct H* asked), the verdict with
its derivation, and the target label the author intended. The attack is successful when the victim's
label for (P, H*) is not that target, as for every other system, so the same HVASR counts it.

One run per author, setup, victim and data file (:func:`authored_run`): Results then puts the author
beside NatLog and PWWS on the same victim and data. Its identity names the system, the victim and
the data file's content, not the code, so that a new version of the studio never refuses an
author's next submission.

In: the pair, the author's H*, the victim's predictions, the verdict. Out: a run's identity and name,
and an attack record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.core.errors import InputError
from engine.core.vocab import LABELS, AttackStatus, NLILabel
from engine.data.readers import file_digest
from engine.natlog.setups import Setup
from engine.store.records import AttackRecord
from engine.verify.edit_label import EditLabel
from engine.victim.base import Prediction

__all__ = ["AUTHOR_PREFIX", "AUTHORED_OPERATOR", "TYPED_PAIRS", "AuthoredRun", "authored_record",
           "authored_run", "author_of", "author_system", "check_edit"]

#: The system name of a person's runs is this prefix and their name: ``human:alice``.
AUTHOR_PREFIX = "human:"
#: The operator an authored H* records (per-operator tables show people's edits as one row).
AUTHORED_OPERATOR = "HumanEdit"
#: The data path of a run whose pairs the author typed (no data file).
TYPED_PAIRS = "typed pairs"


def author_system(name: str) -> str:
    """The system name of ``name`` 's runs."""
    return f"{AUTHOR_PREFIX}{name}"


def author_of(system: str) -> str | None:
    """The author a system name stands for (``human:alice`` -> ``alice``), None for an attack system."""
    return system[len(AUTHOR_PREFIX):] if system.startswith(AUTHOR_PREFIX) else None


def check_edit(hypothesis: str, hstar: str, max_chars: int) -> str:
    """The author's H*, stripped, or an InputError saying in one line why it cannot be asked: empty,
    longer than ``max_chars``, or the same as H (spaces and case aside)."""
    text = " ".join(hstar.split())
    if not text:
        raise InputError("H* is empty: edit the hypothesis")
    if len(text) > max_chars:
        raise InputError(f"H* has {len(text)} characters; at most {max_chars} are asked")
    if text.lower() == " ".join(hypothesis.split()).lower():
        raise InputError("H* is H unchanged: edit it first")
    return text


@dataclass(frozen=True)
class AuthoredRun:
    """Where an author's submissions on one setup, victim and data file are stored: the run's name,
    setup, victim, data path and format, and identity (``config``)."""

    name: str
    setup: str
    victim: str
    data_path: str
    data_format: str
    config: dict[str, Any]


def authored_run(author: str, setup: Setup, victim: str, victim_identity: dict[str, Any],
                 data_file: str | Path | None, data_format: str = "auto") -> AuthoredRun:
    """The run that holds ``author`` 's attacks in ``setup`` against ``victim`` on pairs of
    ``data_file`` (None: pairs the author typed)."""
    if data_file is None:
        data: dict[str, Any] = {"file": TYPED_PAIRS}
        path, fmt = TYPED_PAIRS, "typed"
    else:
        file = Path(data_file)
        if not file.is_file():
            raise InputError(f"no data file {str(file)!r}")
        data = {"file": file.name, "sha256": file_digest(file)[:16], "format": data_format}
        path, fmt = str(file), data_format
    system = {"name": author_system(author), "kind": "human"}
    config = {"system": system, "victim": dict(victim_identity), "data": data}
    short = victim.rstrip("/").split("/")[-1] or victim
    where = data["file"] if data_file is not None else "typed"
    return AuthoredRun(f"{author_system(author)} {setup.name} {short} {where}", setup.name, victim, path, fmt, config)


def _probabilities(prediction: Prediction) -> dict[str, float]:
    return {label.value: float(p) for label, p in zip(LABELS, prediction.probs)}


def authored_record(pair_index: int, *, premise: str, hypothesis: str, gold_label: str | None, setup: Setup,
                    hstar: str, original: Prediction, adversarial: Prediction, queries: int,
                    verdict: EditLabel, tries: Sequence[dict[str, Any]] = (), source: dict[str, Any] | None = None,
                    started_at: datetime | None = None, finished_at: datetime | None = None) -> AttackRecord:
    """The record of an author's submitted H* for (``premise``, ``hypothesis``) in ``setup`` (its
    source label is the pair's label as the author took it, its target the label they intend).
    Successful when the victim's label for (P, H*) is not the target. ``tries``: the author's earlier
    tries on this pair (H*, the victim's label), kept in the trace with ``source`` (the data file and
    line of the pair)."""
    if original.hypothesis != hypothesis or adversarial.hypothesis != hstar:
        raise InputError("the victim's predictions are not for this H and H*")
    target = setup.target_label
    status = AttackStatus.SUCCESS if adversarial.label != target else AttackStatus.FAILED
    gold = NLILabel.parse(gold_label, "the pair's gold label") if gold_label else None
    steps = [s.to_json() for s in verdict.verdict.steps] if verdict.verdict is not None else []
    return AttackRecord(
        pair_index=pair_index, premise=premise, hypothesis=hypothesis, gold_label=gold, status=status,
        source_label=setup.source_label, target_label=target,
        original_prediction=original.label, original_probabilities=_probabilities(original),
        adversarial_hypothesis=hstar, adversarial_prediction=adversarial.label,
        adversarial_probabilities=_probabilities(adversarial),
        queries=max(int(queries), 1), operators=(AUTHORED_OPERATOR,), derivation=steps,
        trace={"system": "human", "verdict": verdict.to_json(), "intended": target.value,
               "tries": list(tries), "source": source or {}},
        started_at=started_at, finished_at=finished_at,
    )
