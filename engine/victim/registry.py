"""The kinds of victim, one :class:`~engine.core.registry.Registry`, chosen from the victim spec.

A victim spec is what ``--victim`` (or ``settings.victim``) says: ``offline``, a model folder or a
hub id is the Hugging Face kind, an ``http://`` or ``https://`` URL the HTTP kind
(:mod:`engine.victim.http_victim`). Kinds are asked newest first whether they take a spec, so a
kind registered later (an ONNX file, another server protocol) is asked before the built-in ones;
the Hugging Face kind, registered first, takes any spec without ``://`` and comes last. A spec no
kind takes is a one-line InputError naming what each kind takes.

Every kind says how a spec becomes a location (a resolved folder, a checked URL), the NLI label of
each output before anything loads, how to load the victim, and its identity: what a run stores
and compares on resume (:func:`victim_identity`). See ``docs/victims.md``.

In: a victim spec. Out: its kind, location, labels, identity, or the loaded :class:`Victim`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from engine.core.errors import InputError
from engine.core.registry import Registry
from engine.core.settings import Settings
from engine.victim import http_victim, huggingface
from engine.victim.base import Victim


class VictimKind(ABC):
    """One kind of victim. A new kind implements :meth:`takes`, :meth:`load`, :meth:`labels` and
    :meth:`model_identity` (and usually a :class:`~engine.victim.base.CachedVictim` subclass) and is
    added to :data:`VICTIM_KINDS`."""

    name: ClassVar[str]
    #: What specs of this kind look like, for the error on a spec no kind takes.
    spec_help: ClassVar[str]

    @abstractmethod
    def takes(self, spec: str) -> bool:
        """Whether ``spec`` names a victim of this kind."""

    def locate(self, spec: str, settings: Settings) -> str:
        """``spec`` as a loadable location (checked: one-line errors)."""
        return spec

    @abstractmethod
    def load(self, location: str, label_map: str | None, settings: Settings) -> Victim:
        """The victim at ``location``, its outputs mapped by ``label_map`` when given."""

    @abstractmethod
    def labels(self, location: str, label_map: str | None = None) -> tuple[str, ...]:
        """The NLI label of each output, known before the victim loads (a run's identity is checked
        before any weights load)."""

    @abstractmethod
    def model_identity(self, location: str) -> str:
        """One string naming the model at ``location`` (weights hash, hub id, the server's model id)."""

    def run_identity(self, location: str, label_map: str | None = None) -> dict[str, Any]:
        """What a run stores of its victim and compares on resume."""
        return {"kind": self.name, "location": location, "model": self.model_identity(location),
                "label_map": label_map or None}


class HuggingFaceKind(VictimKind):
    name = "huggingface"
    spec_help = "'offline', a model folder or a hub id (org/name)"

    def takes(self, spec: str) -> bool:
        return "://" not in spec

    def locate(self, spec: str, settings: Settings) -> str:
        return huggingface.hf_location(spec, settings)

    def load(self, location: str, label_map: str | None, settings: Settings) -> Victim:
        return huggingface.load_hf(location, label_map, settings)

    def labels(self, location: str, label_map: str | None = None) -> tuple[str, ...]:
        return huggingface.hf_labels(location, label_map)

    def model_identity(self, location: str) -> str:
        return huggingface.weights_identity(location)

    def run_identity(self, location: str, label_map: str | None = None) -> dict[str, Any]:
        # No kind and no location: a folder is the same victim from any path (and runs stored
        # before victim kinds existed keep their identity).
        return {"model": self.model_identity(location), "label_map": label_map or None}


class HTTPKind(VictimKind):
    name = "http"
    spec_help = "an http:// or https:// URL serving the JSON protocol of docs/victims.md"

    def takes(self, spec: str) -> bool:
        return spec.lower().startswith(("http://", "https://"))

    def locate(self, spec: str, settings: Settings) -> str:
        return http_victim.check_url(spec)

    def load(self, location: str, label_map: str | None, settings: Settings) -> Victim:
        return http_victim.HTTPVictim(location, label_map)

    def labels(self, location: str, label_map: str | None = None) -> tuple[str, ...]:
        return http_victim.endpoint_labels(location, label_map)

    def model_identity(self, location: str) -> str:
        return http_victim.http_model_identity(location, http_victim.endpoint_model(location))

    def run_identity(self, location: str, label_map: str | None = None) -> dict[str, Any]:
        return {"kind": self.name, "location": location, "model": http_victim.endpoint_model(location),
                "label_map": label_map or None}


VICTIM_KINDS: Registry[VictimKind] = Registry("victim kind")
VICTIM_KINDS.add(HuggingFaceKind.name, HuggingFaceKind())
VICTIM_KINDS.add(HTTPKind.name, HTTPKind())


def victim_kind(spec: str) -> VictimKind:
    """The kind that takes ``spec`` (the newest registered first); InputError when none does."""
    for kind in reversed(VICTIM_KINDS.values()):
        if kind.takes(spec):
            return kind
    raise InputError(f"victim {spec!r}: no victim kind takes it; give "
                     + "; or ".join(kind.spec_help for kind in VICTIM_KINDS.values()))


def victim_location(name: str, settings: Settings) -> str:
    """A loadable location for victim spec ``name`` (a resolved folder, a hub id, a checked URL)."""
    return victim_kind(name).locate(name, settings)


def victim_labels(location: str, label_map: str | None = None) -> tuple[str, ...]:
    """The NLI label of each output of the victim at ``location``, known before it loads (a model's
    config, an endpoint's answer to an empty batch); unmappable labels are an InputError."""
    return victim_kind(location).labels(location, label_map)


def load_victim(name: str | None = None, label_map: str | None = None, *, settings: Settings) -> Victim:
    """The victim for spec ``name`` (default ``settings.victim``); unmappable labels are refused."""
    spec = name or settings.victim
    kind = victim_kind(spec)
    return kind.load(kind.locate(spec, settings), label_map or None, settings)
