"""A run's identity: the whole attack recipe, what it ran on, the data it read, the victim it asked
and the code.

Everything that changes what an attack produces is recorded with each run (``runs.config``) with
hashes of it, so that a resumed run is the same attack as the one it continues, and two runs can be
compared field by field:

- ``recipe``: the whole :class:`engine.attack.recipe.AttackRecipe` (operators with their
  parameters, the constraint chain in order, search, ranking, lexicon, conventions), and
  ``recipe_hash``, the hash of what it does;
- ``runtime``: what the recipe ran on: the dtype and device the LMs really run in, torch threads,
  the content hashes of the modifier inventory and of the validity estimate file;
- ``victim``: the victim's identity (:mod:`engine.victim.identity`, by kind): ``NAME@sha256`` of
  its weights for a folder (the offline victim included), the hub id for a hub model, the URL and
  the model id the server reports for an HTTP victim; and its label map;
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
from engine.models.language import lm_dtype_name, resolve_device
from engine.victim.identity import victim_identity as victim_identity  # moved; runs import it from here

#: Where the code's digest is taken: every Python file of the packages an attack runs through.
CODE_PACKAGES = ("engine",)


def runtime_identity(settings: Settings) -> dict[str, Any]:
    """What an attack under ``settings`` runs on, beside its recipe: the LMs' dtype and device, torch
    threads, and the content hashes of the modifier inventory and the validity estimate file (and of
    the natural estimate file where one orders the rounds)."""
    from engine.validity.estimate import estimate_path, natural_path

    inventory = Path(settings.pp_inventory)
    estimate = estimate_path(settings)
    natural = natural_path(settings)
    # The natural estimate is named only where it orders rounds, so that runs stored before it keep
    # their identity (their recipes read ``natural_estimate = none``).
    ordering = {} if natural is None else {"natural_estimate": (
        f"{settings.natural_estimate}@sha256:{file_digest(natural)[:16]}" if natural.is_file() else
        f"{settings.natural_estimate} (missing)")}
    return {
        "lm_dtype": lm_dtype_name(settings), "device": resolve_device(settings).type,
        "torch_threads": settings.torch_threads,
        "pp_inventory": f"sha256:{file_digest(inventory)[:16]}" if inventory.is_file() else "built-in",
        "validity_estimate": (
            "none" if estimate is None else
            f"{settings.validity_estimate}@sha256:{file_digest(estimate)[:16]}" if estimate.is_file() else
            f"{settings.validity_estimate} (missing)"),
        **ordering,
    }


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))


def digest(value: Any, length: int = 16) -> str:
    """A short sha256 of ``value`` 's canonical JSON."""
    return hashlib.sha256(canonical(value).encode()).hexdigest()[:length]


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


def recipe_digest(recipe: Mapping[str, Any]) -> str:
    """The hash of what a recipe does: its JSON without its name and description."""
    return digest({k: v for k, v in recipe.items() if k not in ("name", "description")})


def run_identity(recipe: Mapping[str, Any], victim: Mapping[str, Any], data: Mapping[str, Any],
                 runtime: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a run stores as its config: the recipe (its JSON), the runtime, victim and data, the code,
    the recipe's hash and the hash of the whole identity."""
    code = code_version()
    identity: dict[str, Any] = {"recipe": dict(recipe), **({"runtime": dict(runtime)} if runtime is not None else {}),
                                "victim": dict(victim), "data": dict(data), "code": code}
    compared = {**identity, "code": {k: v for k, v in code.items() if k != "commit"}}
    identity["recipe_hash"] = recipe_digest(recipe)
    identity["identity_hash"] = digest(compared)
    return identity
