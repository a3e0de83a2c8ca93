"""The engine's small public API, for the app, ``annotations`` and ``bench/``: the configuration,
read once here, and the entry points of each stage.

The configuration is read at the edges only (the command line, this module and the callers of this
module) and passed down: no stage below calls :func:`get_settings` (``tests/test_layers.py`` keeps
it so). Everything here is defined in its stage's folder; this module names what callers need::

    from engine import api

    recipe = api.load_recipe("natlog2023", api.get_settings())
    settings = recipe.apply(api.get_settings())
    tools = api.AttackTools.build(settings)          # the ranking LM, word senses, validity gate
    polarized = api.polarize(api.parse("Every dog sees some cat", settings=settings),
                             conventions=api.Conventions.of(settings))
    (proposal,) = api.propose(polarized, [api.get_setup("E2E")], tools.scorer, settings=settings,
                              operators=recipe.build_operators(), chain=recipe.build_chain())

In: nothing (the configuration files and environment are read on the first call). Out: the
settings, and the stages' entry points.
"""

from __future__ import annotations

from engine.attack.recipe import AttackRecipe, load_recipe, recipe_names
from engine.attack.round import Proposal, candidate_round, no_candidate_reason, propose
from engine.attack.search import AttackResult, AttackSearch, AttackTools, attack_pair, start_search
from engine.core.errors import InputError
from engine.core.settings import DEFAULT_SETTINGS, Settings, SettingsError, get_settings
from engine.natlog.polarity import Conventions, polarize
from engine.natlog.setups import SETUPS, get_setup
from engine.natlog.verifier import verify
from engine.parse import parse
from engine.victim.model import load_victim

__all__ = [
    "DEFAULT_SETTINGS", "SETUPS", "AttackRecipe", "AttackResult", "AttackSearch", "AttackTools", "Conventions",
    "InputError", "Proposal", "Settings", "SettingsError", "attack_pair", "candidate_round", "get_settings",
    "get_setup", "load_recipe", "load_victim", "no_candidate_reason", "parse", "polarize", "propose", "recipe_names",
    "start_search", "verify",
]
