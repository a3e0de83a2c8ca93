"""Attack recipes: what an attack is, as one object that can be named, written to a file, stored
with a run and compared.

An :class:`AttackRecipe` holds the edit operators (in generation order, each with its parameters),
the constraint chain (in an explicit order, each with its parameters) and four typed sections:
``search`` (budget, top-k, the source check, the validity gate), ``ranking`` (the scorer, its LMs
and the AltLM back-end), ``lexicon`` (WordNet distance and senses, word-sense choice, the
frequency floor) and ``conventions`` (the parser and the readings of "the", numerals and
indefinites). Paths, devices and the annotation study are not part of a recipe: they do not
change what an attack is.

Named recipes (``engine recipes`` lists them):

- ``default``: the shipped defaults, as the settings give them (so ``natlog.toml`` and
  ``NATLOG_*`` variables still shape it);
- ``max-hvasr``: the defaults with the validity estimate (label and not broken) ordering each round
  instead of the natural one: today's ``default`` before natural candidates came first;
- ``natlog2023``: Algorithm 1 of Zheng & Zhu (2023) as the paper describes it: the paper's
  operators only, the natural-logic relation guard as the only constraint, candidates ranked by
  LM perplexity, no validity gate, WordNet's first senses, MacCartney's existential reading of
  indefinites, every hypothesis attacked.

A recipe file (TOML, as ``engine recipe NAME --out FILE`` writes it) may name a ``base`` recipe
and give only what differs. ``engine attack --recipe NAME|FILE`` runs one; each run stores its
recipe whole with its hash (:mod:`engine.attack.identity`), a resume without ``--recipe`` continues
with the stored one, and a resume with another is refused.

In: settings (for ``default``) or a recipe file. Out: the recipe, a description; what runs is
built from it once, by :func:`engine.attack.build.build`.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import tomli_w

from engine.attack.identity import recipe_digest
from engine.constraints.chain import Constraint, ConstraintChain, get_constraint
from engine.core.errors import InputError
from engine.core.registry import ParamValue, Registry
from engine.core.settings import (
    CHOICES,
    ConventionsSection,
    IndefiniteReading,
    LexiconSection,
    RankingSection,
    SearchSection,
    Settings,
)
from engine.edits.operators import EditOperator, get_operator, select_operators

#: The version of the recipe format (a stored recipe with another is refused).
FORMAT = 1

#: The operators of the ``default`` recipe, in generation order (less ``disabled_operators``), and
#: its constraint chain, in run order. A component registered elsewhere joins a recipe that names it.
DEFAULT_OPERATORS = (
    "PerturbSyno", "PerturbHyper", "PerturbHypo", "PerturbCoHyper", "PerturbAnto", "AltLM", "Deletion", "Insertion",
    "PredicateNegation", "SentenceNegation", "DoubleNegation", "ConjunctDeletion", "DisjunctDeletion",
    "ConjunctInsertion", "DisjunctInsertion", "Commutation", "DeMorgan", "PerturbQuant", "NegatedAntonym",
)
#: Operators added to the default recipe for natural H* ("is not lying" for "It is not true that ...
#: is not sitting"); ``max-hvasr`` keeps the default recipe as it was before them.
NATURAL_OPERATORS = frozenset({"NegatedAntonym"})
DEFAULT_CONSTRAINTS = (
    "relation-guard", "premise-check", "max-edits", "no-repeat", "reparse-check", "fluency-floor", "insertion-fit",
    "verb-fit",
)


#: The settings sections a recipe is made of (their types: :mod:`engine.core.settings`).
SECTIONS: dict[str, type] = {
    "search": SearchSection, "ranking": RankingSection, "lexicon": LexiconSection, "conventions": ConventionsSection,
}


@dataclass(frozen=True)
class Step:
    """An operator or a constraint of a recipe: its registered name and its parameter values."""

    name: str
    params: tuple[tuple[str, ParamValue], ...] = ()

    def to_json(self) -> dict[str, ParamValue]:
        return {"name": self.name, **dict(self.params)}

    @classmethod
    def of(cls, component: EditOperator | Constraint) -> Step:
        return cls(component.name, tuple(sorted(component.params().items())))


@dataclass(frozen=True)
class AttackRecipe:
    """A whole attack: operators, constraint chain, search, ranking, lexicon and conventions."""

    name: str
    description: str
    operators: tuple[Step, ...]
    constraints: tuple[Step, ...]
    search: SearchSection
    ranking: RankingSection
    lexicon: LexiconSection
    conventions: ConventionsSection

    # -- building ----------------------------------------------------------------------------------

    @classmethod
    def from_settings(cls, settings: Settings, name: str = "default",
                      description: str = "the shipped defaults, as the settings give them") -> AttackRecipe:
        """The recipe the settings describe: the search, ranking, lexicon and conventions sections of
        ``settings``, the operators of :data:`DEFAULT_OPERATORS` that ``disabled_operators`` leaves on
        and the constraints of :data:`DEFAULT_CONSTRAINTS`, each with its own default parameters. A
        component registered later joins a recipe only where one names it."""
        sections = {key: getattr(settings, key) for key in SECTIONS}
        on = {op.name for op in select_operators(settings.disabled_operators)}
        return cls(name, description,
                   tuple(Step.of(get_operator(n)) for n in DEFAULT_OPERATORS if n in on),
                   tuple(Step.of(get_constraint(n)) for n in DEFAULT_CONSTRAINTS),
                   **sections)

    def with_changes(self, values: Mapping[str, Any], source: str = "recipe") -> AttackRecipe:
        """A copy with the fields of ``values`` (a recipe file's tables) replaced; InputError naming
        ``source`` for an unknown field, a value of the wrong type or an unknown component."""
        known = {"name", "description", "base", "format", "operators", "constraints", *SECTIONS}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InputError(f"{source}: unknown field {unknown[0]!r}; known: {', '.join(sorted(known))}")
        if "format" in values and values["format"] != FORMAT:
            raise InputError(f"{source}: recipe format {values['format']!r} is not {FORMAT}")
        changes: dict[str, Any] = {}
        for key in ("name", "description"):
            if key in values:
                changes[key] = _text(values[key], f"{source}: {key}")
        for key in SECTIONS:
            if key in values:
                changes[key] = _section(getattr(self, key), values[key], f"{source}: [{key}]")
        for key, lookup, kind in (("operators", get_operator, "operator"), ("constraints", get_constraint, "constraint")):
            if key in values:
                changes[key] = _steps(values[key], lookup, kind, f"{source}: {key}")
        return dataclasses.replace(self, **changes)

    def with_params(self, component: str, **values: ParamValue) -> AttackRecipe:
        """A copy whose operator or constraint ``component`` takes ``values`` for some of its parameters
        (InputError when the recipe has no such component or it no such parameter)."""
        for key in ("operators", "constraints"):
            steps: tuple[Step, ...] = getattr(self, key)
            if any(s.name == component for s in steps):
                table = [s.to_json() | values if s.name == component else s.to_json() for s in steps]
                return self.with_changes({key: table}, f"recipe {self.name}")
        raise InputError(f"recipe {self.name} has no operator or constraint {component!r}")

    def with_alt_lm(self, wanted: bool | None) -> AttackRecipe:
        """The recipe with AltLM as a user chose it (``--alt-lm``, the stepper's switch): None keeps the
        recipe's back-end, True turns it on (``offline`` unless the recipe names one), False off."""
        if wanted is None or wanted == (self.ranking.alt_lm != "none"):
            return self
        return self.with_changes({"ranking": {"alt_lm": "offline" if wanted else "none"}}, "the AltLM switch")

    # -- using -------------------------------------------------------------------------------------

    def build_operators(self) -> tuple[EditOperator, ...]:
        """The operators, in the recipe's order, built with their parameters (once per recipe)."""
        return _built(self)[0]

    def build_chain(self) -> ConstraintChain:
        """The constraint chain, in the recipe's order, each built with its parameters (once per recipe)."""
        return _built(self)[1]

    def for_data(self, data: Path, fmt: str) -> AttackRecipe:
        """The recipe for pairs of ``data``: ``indefinite_reading = auto`` resolved by the file's
        format (:func:`engine.natlog.triggers.indefinite_reading`), so a run records the reading its
        attacks used."""
        from engine.data.readers import detect_format
        from engine.natlog.triggers import indefinite_reading

        if self.conventions.indefinite_reading != "auto":
            return self
        reading = indefinite_reading("auto", detect_format(Path(data), fmt))
        return dataclasses.replace(self, conventions=dataclasses.replace(
            self.conventions, indefinite_reading=cast(IndefiniteReading, reading)))

    # -- identity and files ------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole recipe as plain JSON (what a run stores)."""
        return {
            "format": FORMAT, "name": self.name, "description": self.description,
            **{key: dataclasses.asdict(getattr(self, key)) for key in SECTIONS},
            "operators": [s.to_json() for s in self.operators],
            "constraints": [s.to_json() for s in self.constraints],
        }

    @property
    def hash(self) -> str:
        """A short sha256 of what the recipe does (its name and description left out)."""
        return recipe_digest(self.to_json())

    def to_toml(self) -> str:
        return f"# attack recipe {self.name} (hash {self.hash})\n" + tomli_w.dumps(self.to_json())

    @classmethod
    def from_json(cls, data: Mapping[str, Any], settings: Settings, source: str = "stored recipe") -> AttackRecipe:
        """A recipe read back from :meth:`to_json` (every field must be there)."""
        missing = sorted({"operators", "constraints", *SECTIONS} - set(data))
        if missing:
            raise InputError(f"{source}: not a whole recipe (no {', '.join(missing)})")
        # A field added after the recipe was stored takes the value that does what the code did then.
        data = {**data, **{section: {**FIELDS_ADDED.get(section, {}), **data[section]} for section in SECTIONS
                           if isinstance(data[section], Mapping)}}
        return cls.from_settings(settings).with_changes(data, source)


#: Recipe fields added after runs were stored, per section, with the value that reproduces what
#: the search did before them (a stored recipe without the field reads it so, whatever the
#: settings now say): before ``max_backtracks`` the search stopped at a dead end, before
#: ``wsd_margin`` a substitution needed to hold under the picked sense only, and before
#: ``success_pool`` a round kept its first success, before ``basic_hypernyms`` hypernyms stopped
#: at ``wordnet_distance``, before ``round_patience`` every round asked
#: all of its candidates before the search went on, before ``verb_swaps_last`` a round asked its
#: candidates in the gate's order, before ``natural_estimate`` the validity estimate ordered a round,
#: and before ``lazy_round`` every candidate of a round was checked and scored.
FIELDS_ADDED: dict[str, dict[str, Any]] = {"search": {"max_backtracks": 0, "success_pool": 0, "round_patience": 0,
                                                      "verb_swaps_last": False, "natural_estimate": "none",
                                                      "natural_floor": 0.0, "last_resort_waits": False,
                                                      "lazy_round": False},
                                            "lexicon": {"wsd_margin": 0.0, "basic_hypernyms": False}}


@lru_cache(maxsize=32)
def _built(recipe: AttackRecipe) -> tuple[tuple[EditOperator, ...], ConstraintChain]:
    operators = tuple(get_operator(s.name).configured(dict(s.params), "operator") for s in recipe.operators)
    chain = ConstraintChain(tuple(get_constraint(s.name).configured(dict(s.params), "constraint")
                                  for s in recipe.constraints))
    return operators, chain


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be text, not {value!r}")
    return value


def _section(current: object, values: object, what: str) -> object:
    if not isinstance(values, Mapping):
        raise InputError(f"{what} must be a table")
    kinds = {f.name: f.type for f in fields(cast(Any, current))}
    unknown = sorted(set(values) - set(kinds))
    if unknown:
        raise InputError(f"{what}: unknown field {unknown[0]!r}; known: {', '.join(kinds)}")
    changes = {}
    for key, value in values.items():
        old = getattr(current, key)
        if isinstance(old, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not type(old):
            raise InputError(f"{what}: {key} must be {type(old).__name__}, not {value!r}")
        choices = _choices(cast(Any, kinds[key]))
        if choices and value not in choices:
            raise InputError(f"{what}: {key} must be one of {', '.join(choices)}, not {value!r}")
        changes[key] = value
    return dataclasses.replace(cast(Any, current), **changes)


def _choices(annotation: object) -> tuple[str, ...]:
    """The values of a ``Literal`` alias named by a field's annotation; () for any other."""
    return CHOICES.get(str(annotation), ())


def _steps(items: object, lookup: Callable[[str], EditOperator | Constraint], kind: str,
           what: str) -> tuple[Step, ...]:
    if not isinstance(items, Sequence) or isinstance(items, str):
        raise InputError(f"{what} must be a list of tables, each with a name")
    steps, seen = [], set()
    for item in items:
        entry = {"name": item} if isinstance(item, str) else item
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise InputError(f"{what}: each {kind} needs a name")
        name = entry["name"]
        if name in seen:
            raise InputError(f"{what}: {kind} {name!r} is listed twice")
        seen.add(name)
        built = lookup(name).configured({k: v for k, v in entry.items() if k != "name"}, kind)
        steps.append(Step.of(built))
    return tuple(steps)


# -- named recipes ---------------------------------------------------------------------------------

RECIPES: Registry[Callable[[Settings], AttackRecipe]] = Registry("attack recipe")


@RECIPES.register("default")
def default_recipe(settings: Settings) -> AttackRecipe:
    return AttackRecipe.from_settings(settings)


@RECIPES.register("natlog2023")
def natlog2023(settings: Settings) -> AttackRecipe:
    """Algorithm 1 as Zheng & Zhu (2023) describe it (module docstring). The paper's AltLM reads a
    masked LM (BERT), which no offline install has: offline this recipe's AltLM uses the frequency
    fill-in ranked by the causal LM; a recipe file with ``[ranking] alt_lm = "masked"`` gives the paper's."""
    base = AttackRecipe.from_settings(settings)
    paper = [get_operator(n) for n in DEFAULT_OPERATORS if get_operator(n).paper_name]
    return dataclasses.replace(
        base, name="natlog2023",
        description="Algorithm 1 as the paper describes it: its operators, the relation guard, LM perplexity "
                    "ranking, no validity gate",
        operators=tuple(Step.of(op) for op in paper),
        constraints=(Step.of(get_constraint("relation-guard")),),
        search=dataclasses.replace(base.search, query_budget=500, source_check="off", validity_estimate="none",
                                   min_validity=0.0, validity_weight=0.0, max_backtracks=0,
                                   success_pool=0, round_patience=0, verb_swaps_last=False,
                                   natural_estimate="none", natural_floor=0.0, last_resort_waits=False,
                                   lazy_round=False),
        ranking=dataclasses.replace(base.ranking, scorer="causal",
                                    alt_lm=base.ranking.alt_lm if base.ranking.alt_lm != "none" else "offline"),
        lexicon=dataclasses.replace(base.lexicon, wsd="first"),
        conventions=dataclasses.replace(base.conventions, indefinite_reading="existential"),
    )


@RECIPES.register("max-hvasr")
def max_hvasr(settings: Settings) -> AttackRecipe:
    """The defaults before natural candidates came first: each round ordered by fluency weighed
    against the validity estimate (label and not broken), which asks double negations early. It
    maximises HVASR in the paper's reading and in "label and not broken", at the cost of natural H*.
    Its operators are those of that time: no :data:`NATURAL_OPERATORS`."""
    base = AttackRecipe.from_settings(settings)
    return dataclasses.replace(
        base, name="max-hvasr",
        description="the validity estimate orders each round (label and not broken), not naturalness",
        operators=tuple(s for s in base.operators if s.name not in NATURAL_OPERATORS),
        search=dataclasses.replace(base.search, natural_estimate="none", natural_floor=0.0,
                                   last_resort_waits=False, lazy_round=False),
    )


@RECIPES.register("every-operator")
def every_operator(settings: Settings) -> AttackRecipe:
    """The defaults with every registered operator on, no cap on edits, no insertion-fit cost and every
    hypothesis attacked (what ``bench/speed.py`` and ``bench/peers.py --all-operators`` time)."""
    base = AttackRecipe.from_settings(settings)
    return dataclasses.replace(
        base.with_changes({"operators": [op.name for op in select_operators("none")],
                           "search": {"source_check": "off"}}, "every-operator")
        .with_params("insertion-fit", insertion_cost=0.0).with_params("max-edits", max_edits=0),
        name="every-operator",
        description="every registered operator, no edit cap, no insertion-fit cost, every hypothesis attacked")


def recipe_names() -> tuple[str, ...]:
    return RECIPES.names()


def load_recipe(spec: str | None, settings: Settings) -> AttackRecipe:
    """The recipe ``spec`` names: a registered name, or a TOML file (``base`` = a registered name,
    ``default`` if absent; the file's fields replace the base's). None: the one ``settings.recipe``
    names (``default`` unless configured)."""
    if spec is None:
        spec = settings.recipe.strip() or "default"
    if spec in RECIPES:
        return RECIPES.get(spec)(settings)
    path = Path(spec).expanduser()
    if not path.is_file():
        raise InputError(f"no recipe {spec!r}: not a recipe name ({', '.join(recipe_names())}) nor a file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a valid TOML recipe ({exc})") from exc
    base_name = data.get("base", "default")
    if not isinstance(base_name, str) or base_name not in RECIPES:
        raise InputError(f"{path}: base {base_name!r} is not a recipe name ({', '.join(recipe_names())})")
    recipe = RECIPES.get(base_name)(settings)
    if "name" not in data:
        data = {**data, "name": path.stem}
    if "description" not in data:
        data = {**data, "description": f"{path.name}, based on {base_name}"}
    return recipe.with_changes(data, str(path))
