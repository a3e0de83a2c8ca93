"""Models and stores built once per server process (``st.cache_resource``), never per rerun."""

from __future__ import annotations

import sys

import streamlit as st

from engine.api import (
    Attack,
    AttackRecipe,
    Parser,
    Resources,
    Settings,
    Victim,
    build,
    get_settings,
    load_parser,
    load_recipe,
    load_victim,
    recipe_names,
)


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    return get_settings()


@st.cache_resource(show_spinner=False)
def announce_bootstrap_code() -> bool:
    """Once per server process: on a store without an admin, a one-time code for creating the first
    one, printed on the server's console (never in a page). Whether one was printed."""
    from annotations import Store
    from annotations.auth import has_admin, issue_bootstrap_code

    configured = settings()
    with Store.open(configured.db_path, configured) as store:
        if has_admin(store):
            return False
        code = issue_bootstrap_code(store)
    print(f"\nNatLog Studio: {configured.db_path} has no admin yet. To create the first one, open the Admin "
          f"page and enter this one-time bootstrap code:\n\n    {code}\n", file=sys.stderr, flush=True)
    return True


@st.cache_resource(show_spinner="Loading the parser…")
def parser(name: str) -> Parser:
    return load_parser(name, settings().spacy_model, settings().nltk_data)


@st.cache_resource(show_spinner=False)
def recipe(name: str) -> AttackRecipe:
    """A named attack recipe, under the configured settings."""
    return load_recipe(name, settings())


def recipe_index(settings: Settings) -> int:
    """Where the configured recipe (``settings.recipe``) stands in the pages' recipe lists (0, the
    first, for a recipe file: a page offers the registered names)."""
    names = recipe_names()
    return names.index(settings.recipe) if settings.recipe in names else 0


@st.cache_resource(show_spinner="Loading the victim model…")
def victim(name: str, label_map: str = "") -> Victim:
    return load_victim(name, label_map or None, settings=settings())


@st.cache_resource(show_spinner="Loading the language models (fluency ranking, AltLM, validity estimate)…")
def attack(recipe_name: str = "default", alt_lm: bool | None = None) -> Attack:
    """The attack the named recipe describes (AltLM as the user's switch has it), built once per
    server process: its scorer, word senses, validity gate, operators and constraint chain."""
    return build(recipe(recipe_name).with_alt_lm(alt_lm), Resources.of(settings()))
