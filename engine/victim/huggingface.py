"""The Hugging Face victim kind: any ``AutoModelForSequenceClassification`` with three labels, from
``offline`` (the trained offline victim), a local model folder or a hub id.

Its output order comes from ``config.id2label``; models that only say ``LABEL_0..2`` need an
explicit label map, and a model whose labels cannot be mapped is refused when it is loaded, before
any query. Its identity is ``NAME@sha256:…`` of a folder's config and weights (the same from any
path the folder is copied to), ``hub:ID`` for a hub model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch

from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.settings import Settings
from engine.data.readers import file_digest
from engine.models.language import model_dtype, resolve_device
from engine.victim.base import CachedVictim, Pair, resolve_labels

OFFLINE_VICTIM_DIR = "victim-offline"
MAX_TOKENS = 256
#: The files of a model folder its identity hashes.
WEIGHT_FILES = ("config.json", "model.safetensors", "pytorch_model.bin")


class HFVictim(CachedVictim):
    """A three-way NLI Hugging Face classifier with batched, dynamically padded, cached inference."""

    kind = "huggingface"

    def __init__(
        self, model: Any, tokenizer: Any, labels: tuple[str, ...], name: str,
        device: torch.device | None = None, batch_size: int = 32, cache_size: int = 200_000,
    ) -> None:
        super().__init__(name, labels, batch_size=batch_size, cache_size=cache_size)
        self.device = device or torch.device("cpu")
        self.model = model.to(self.device, dtype=model_dtype(self.device)).eval()
        self.tokenizer = tokenizer

    @torch.inference_mode()
    def probabilities(self, batch: list[Pair]) -> Sequence[Sequence[float]]:
        encoded = self.tokenizer(
            [p for p, _ in batch], [h for _, h in batch], padding=True, truncation=True,
            max_length=MAX_TOKENS, return_tensors="pt",
        ).to(self.device)
        logits = self.model(**encoded).logits.float()
        rows: list[list[float]] = torch.softmax(logits, dim=-1).cpu().tolist()
        return rows

    def model_identity(self) -> str:
        return weights_identity(self.name)


def offline_victim_dir(settings: Settings) -> Path:
    """Where ``train-victim`` keeps the offline default victim."""
    return settings.models_dir / OFFLINE_VICTIM_DIR


def hf_location(name: str, settings: Settings) -> str:
    """A loadable location for ``name``: ``offline``, a local folder, or a hub id."""
    if name == "offline":
        folder = offline_victim_dir(settings)
        if not (folder / "config.json").is_file():
            raise ResourceError(
                f"the offline victim is not trained yet ({folder}): run `python -m engine train-victim`"
            )
        return str(folder)
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise InputError(f"{path}: not a model folder (no config.json)")
        return str(path.resolve())
    return name


def hf_labels(location: str, label_map: str | None = None) -> tuple[str, ...]:
    """The NLI label of each output of the model at ``location``, read from its config alone
    (no weights are loaded); unmappable labels are an InputError."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(location, local_files_only=True)  # a folder, or the hub's cache
    except OSError:
        if not hub_reachable():  # fail in seconds, not after the hub client's retries
            raise ResourceError(
                f"cannot load victim {location!r}: not a local model folder, not in the Hugging Face cache, and "
                "the Hub cannot be reached from here; give a model folder, or 'offline' (python -m engine "
                "train-victim)") from None
        try:
            config = AutoConfig.from_pretrained(location)
        except OSError as exc:
            raise ResourceError(
                f"cannot load victim {location!r}: not a local model folder, and the Hugging Face Hub "
                f"could not provide it ({str(exc).splitlines()[0]})"
            ) from exc
    return resolve_labels(dict(config.id2label or {}), int(config.num_labels), label_map)


def hub_reachable(timeout_s: float = 3.0) -> bool:
    """Whether the Hugging Face Hub's host answers a TCP connection within ``timeout_s`` (False at
    once when ``HF_HUB_OFFLINE`` is set)."""
    import socket
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    parts = urlsplit(constants.ENDPOINT)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


@lru_cache(maxsize=4)
def _load(location: str, label_map: str | None, device: str) -> HFVictim:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    labels = hf_labels(location, label_map)
    model = AutoModelForSequenceClassification.from_pretrained(location)
    tokenizer = AutoTokenizer.from_pretrained(location)
    return HFVictim(model, tokenizer, labels, name=location, device=torch.device(device))


def load_hf(location: str, label_map: str | None, settings: Settings) -> HFVictim:
    """The cached Hugging Face victim at ``location`` (as :func:`hf_location` resolves it)."""
    return _load(location, label_map or None, str(resolve_device(settings)))


@lru_cache(maxsize=16)
def _weights_digest(folder: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _, _ in stamp:
        h.update(name.encode())
        h.update(bytes.fromhex(file_digest(Path(folder) / name)))
    return h.hexdigest()[:16]


def weights_identity(location: str) -> str:
    """``NAME@sha256:…`` of a local model folder's config and weights (the same from any path it is
    copied to), ``hub:ID`` for anything else."""
    folder = Path(location)
    if not folder.is_dir():
        return f"hub:{location}"
    stamp = tuple((name, (folder / name).stat().st_size, (folder / name).stat().st_mtime_ns)
                  for name in WEIGHT_FILES if (folder / name).is_file())
    return f"{folder.name}@sha256:{_weights_digest(str(folder), stamp)}"
