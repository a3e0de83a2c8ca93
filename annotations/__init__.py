"""Annotation store and crowd validation: runs, attacks, judgments, agreement, HVASR."""

from annotations.records import (
    ATTACK_STATUSES, LABELS, Annotator, AttackRecord, ImportReport, Judgment, Progress,
    QueueItem, Run, StoredAttack,
)
from annotations.store import Store

__all__ = [
    "ATTACK_STATUSES", "LABELS", "Annotator", "AttackRecord", "ImportReport", "Judgment",
    "Progress", "QueueItem", "Run", "Store", "StoredAttack",
]
