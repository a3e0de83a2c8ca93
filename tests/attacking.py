"""Building the attack a test runs: the recipe its settings describe (or ``recipe``), built under them."""

from __future__ import annotations

from engine.attack.build import Attack, Resources, build
from engine.attack.recipe import AttackRecipe
from engine.core.settings import Settings


def attack_of(settings: Settings, recipe: AttackRecipe | None = None, alt_lm: bool | None = False) -> Attack:
    """The attack of ``recipe`` (default: the one ``settings`` describe), AltLM off unless asked, built
    under ``settings``."""
    recipe = recipe if recipe is not None else AttackRecipe.from_settings(settings)
    return build(recipe.with_alt_lm(alt_lm), Resources.of(settings))
