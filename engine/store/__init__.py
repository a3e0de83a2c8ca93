"""The runs store: SQLite tables for attack runs, their source pairs and attacks, probe runs and
batch jobs (schema and migrations per component).

In: ``AttackRecord`` s and probe records from the stages above. Out: ``Run`` and ``StoredAttack``
rows read back from one SQLite file.

It sits beside ``engine.core`` (whose vocabularies and error type it uses) and below everything
that persists: the stages that record runs and ``annotations``, which adds human judgments of the
attacks to the same file. It imports no other part of the engine.
"""

from engine.store.records import AttackRecord, Run, StoredAttack
from engine.store.store import RunStore

__all__ = ["AttackRecord", "Run", "RunStore", "StoredAttack"]
