"""Human validation of attacks: annotators, items, judgments, agreement, HVASR (over the runs store)."""

from annotations.records import (
    LABELS,
    Annotator,
    AttackRecord,
    AttackStatus,
    ImportReport,
    Judgment,
    NLILabel,
    Progress,
    QueueItem,
    Run,
    StoredAttack,
)
from annotations.store import Store

__all__ = [
    "LABELS", "Annotator", "AttackRecord", "AttackStatus", "ImportReport", "Judgment", "NLILabel",
    "Progress", "QueueItem", "Run", "Store", "StoredAttack",
]
