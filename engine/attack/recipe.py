"""A run's identity: the whole attack recipe, the data it read, the victim it asked and the code.

Everything that changes what an attack produces is recorded with each run (``runs.config``) with a
hash of it, so that a resumed run is the same attack as the one it continues, and two runs can be
compared field by field:

- ``recipe``: the operators that run (by name, in registry order), the constraint chain in order,
  every setting that shapes candidates, ranking and search (scorer, the dtype and device the LMs
  really run in, torch threads, WSD, conventions, budget, top-k, fluency floor, edit cap, ...),
  and the content hash of the modifier inventory;
- ``victim``: the victim's identity, ``NAME@sha256`` of its weights for a folder (the offline
  victim included), the hub id otherwise, and its label map;
- ``data``: the content hash of the data file, its format and split, the pair sample (limit, seed)
  and whether pairs the victim trained on are attacked;
- ``code``: the package version and a digest of the engine's source (``commit``, the git commit,
  is recorded beside it for provenance and not compared: a commit that does not touch the engine
  resumes).

:func:`engine.store.identity.differences` names the fields in which two identities differ; the runs
store refuses a resume with any difference in one line that names them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from engine.core.settings import PROJECT_ROOT, Settings
from engine.data.readers import file_digest
from engine.ranking.models import lm_dtype_name, resolve_device

#: Settings that shape an attack's output, recorded as they are (the rest are derived below).
RECIPE_SETTINGS = (
    "parser", "spacy_model", "causal_lm", "masked_lm", "scorer", "torch_threads", "max_chars", "top_k",
    "query_budget", "wordnet_distance", "wordnet_senses", "wsd", "wsd_prior", "sentence_encoder", "min_zipf",
    "alt_lm", "alt_lm_pool", "alt_lm_top", "insertions_per_slot", "source_check", "definite_reading",
    "numeral_reading", "indefinite_reading", "max_edits", "fluency_floor", "insertion_cost", "validity_estimate", "min_validity",
    "validity_weight",
)
#: Where the code's digest is taken: every Python file of the packages an attack runs through.
CODE_PACKAGES = ("engine",)


def attack_recipe(settings: Settings, alt_lm: str) -> dict[str, Any]:
    """The recipe of an attack under ``settings``; ``alt_lm`` is the AltLM back-end really in use
    (``none`` when off)."""
    from engine.constraints.chain import registered_constraints
    from engine.edits.operators import select_operators

    recipe: dict[str, Any] = {name: getattr(settings, name) for name in RECIPE_SETTINGS}
    recipe["alt_lm"] = alt_lm
    recipe["operators"] = [op.name for op in select_operators(settings.disabled_operators)]
    recipe["constraints"] = [c.name for c in registered_constraints()]
    recipe["lm_dtype"] = lm_dtype_name(settings)
    recipe["device"] = resolve_device(settings).type
    inventory = Path(settings.pp_inventory)
    recipe["pp_inventory"] = f"sha256:{file_digest(inventory)[:16]}" if inventory.is_file() else "built-in"
    from engine.validity.estimate import estimate_path

    estimate = estimate_path(settings)
    recipe["validity_estimate"] = (
        "none" if estimate is None else
        f"{settings.validity_estimate}@sha256:{file_digest(estimate)[:16]}" if estimate.is_file() else
        f"{settings.validity_estimate} (missing)")
    return dict(sorted(recipe.items()))


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))


def digest(value: Any, length: int = 16) -> str:
    """A short sha256 of ``value`` 's canonical JSON."""
    return hashlib.sha256(canonical(value).encode()).hexdigest()[:length]


@lru_cache(maxsize=16)
def _weights_digest(folder: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _, _ in stamp:
        h.update(name.encode())
        h.update(bytes.fromhex(file_digest(Path(folder) / name)))
    return h.hexdigest()[:16]


WEIGHT_FILES = ("config.json", "model.safetensors", "pytorch_model.bin")


def model_identity(location: str) -> str:
    """``NAME@sha256:…`` of a local model folder's config and weights (the same from any path it is
    copied to), ``hub:ID`` for anything else."""
    folder = Path(location)
    if not folder.is_dir():
        return f"hub:{location}"
    stamp = tuple((name, (folder / name).stat().st_size, (folder / name).stat().st_mtime_ns)
                  for name in WEIGHT_FILES if (folder / name).is_file())
    return f"{folder.name}@sha256:{_weights_digest(str(folder), stamp)}"


def victim_identity(location: str, label_map: str | None = None) -> dict[str, Any]:
    """``{"model": …, "label_map": …}`` (``location`` as :func:`engine.victim.model.victim_location`
    resolves it)."""
    return {"model": model_identity(location), "label_map": label_map or None}


@lru_cache(maxsize=1)
def code_version() -> dict[str, Any]:
    """The package version, a digest of the engine's source, and the git commit when there is one."""
    try:
        version = metadata.version("natlog-studio")
    except metadata.PackageNotFoundError:
        version = "unknown"
    h = hashlib.sha256()
    for package in CODE_PACKAGES:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            h.update(path.relative_to(PROJECT_ROOT).as_posix().encode())
            h.update(path.read_bytes())
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                                timeout=10, check=False).stdout.strip() or None
    except OSError:
        commit = None
    return {"version": version, "engine": h.hexdigest()[:16], "commit": commit}


def run_identity(recipe: Mapping[str, Any], victim: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """What a run stores as its config: the three parts, the code, and the recipe's hash."""
    code = code_version()
    identity: dict[str, Any] = {"recipe": dict(recipe), "victim": dict(victim), "data": dict(data), "code": code}
    compared = {**identity, "code": {k: v for k, v in code.items() if k != "commit"}}
    identity["recipe_hash"] = digest(compared)
    return identity
