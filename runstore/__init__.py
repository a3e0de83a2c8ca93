"""The runs store: SQLite tables for attack runs, their source pairs and attacks.

It sits below both the engine (which records runs) and ``annotations`` (which adds human
judgments of the attacks to the same file), and imports neither. It also holds the small
vocabularies every layer shares (:mod:`runstore.vocab`) and the user-error type.
"""

from runstore.errors import InputError
from runstore.records import AttackRecord, Run, StoredAttack
from runstore.store import RunStore
from runstore.vocab import LABELS, AttackStatus, NLILabel

__all__ = ["LABELS", "AttackRecord", "AttackStatus", "InputError", "NLILabel", "Run", "RunStore", "StoredAttack"]
