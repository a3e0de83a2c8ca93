"""The victim: what any victim offers, and where each kind is loaded from.

:class:`Victim` is the protocol every victim satisfies (:mod:`engine.victim.base`): ``predict``,
``cached``, ``counter`` and ``identity``, with ``name`` and ``labels``. :class:`CachedVictim`
implements it around one batch method; :class:`HFVictim` is a Hugging Face classifier
(:mod:`engine.victim.huggingface`), :class:`HTTPVictim` a classifier served over HTTP
(:mod:`engine.victim.http_victim`). :func:`load_victim` picks the kind from the victim spec
(:mod:`engine.victim.registry`): ``offline``, a model folder or a hub id, or an http(s) URL.

Queries are counted per attack by a :class:`QueryCounter`: a *query* is one distinct pair the
attack asked the victim about (the first time it asks); asking again about the same pair in the
same attack is a *cache hit*. ``CachedVictim.evaluations`` counts pairs the victim really computed
and ``CachedVictim.forward_passes`` the batches they took.
"""

from __future__ import annotations

from engine.victim.base import CachedVictim, Prediction, QueryCounter, Victim, parse_label_map, resolve_labels
from engine.victim.http_victim import HTTPVictim
from engine.victim.huggingface import MAX_TOKENS, OFFLINE_VICTIM_DIR, HFVictim, hub_reachable, offline_victim_dir
from engine.victim.registry import VICTIM_KINDS, VictimKind, load_victim, victim_kind, victim_labels, victim_location

__all__ = [
    "MAX_TOKENS", "OFFLINE_VICTIM_DIR", "VICTIM_KINDS", "CachedVictim", "HFVictim", "HTTPVictim", "Prediction",
    "QueryCounter", "Victim", "VictimKind", "hub_reachable", "load_victim", "offline_victim_dir", "parse_label_map",
    "resolve_labels", "victim_kind", "victim_labels", "victim_location",
]
