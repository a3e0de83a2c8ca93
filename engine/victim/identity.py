"""A victim's identity, whatever its kind (:mod:`engine.victim.registry`).

:func:`victim_identity` is what a run stores of its victim and compares on resume
(:func:`engine.attack.identity.run_identity` puts it under ``victim``): for a Hugging Face model
``{"model": NAME@sha256:… of a folder's weights or hub:ID, "label_map": …}`` (the same from any
path the folder is copied to); for another kind ``{"kind", "location", "model", "label_map"}``,
e.g. an HTTP victim's URL and the model id its server reports. :func:`model_identity` is one
string naming the model (a probe run stores it).
"""

from __future__ import annotations

from typing import Any

from engine.victim.registry import victim_kind


def model_identity(location: str) -> str:
    """``NAME@sha256:…`` of a local model folder's config and weights (the same from any path it is
    copied to), ``hub:ID`` for a hub id, ``ID@URL`` (or the URL) for an HTTP victim."""
    return victim_kind(location).model_identity(location)


def victim_identity(location: str, label_map: str | None = None) -> dict[str, Any]:
    """What a run stores of the victim at ``location`` (as :func:`engine.victim.model.victim_location`
    resolves it) with ``label_map`` (its labels in output order)."""
    return victim_kind(location).run_identity(location, label_map)
