"""Models and stores built once per server process (``st.cache_resource``), never per rerun."""

from __future__ import annotations

import sys

import streamlit as st

from engine.api import get_settings
from engine.attack.recipe import AttackRecipe, load_recipe
from engine.attack.search import AttackTools, with_alt_lm
from engine.core.settings import Settings
from engine.edits.records import FillIn
from engine.lexicon.senses import SenseChooser, build_sense_chooser
from engine.parse import Parser, load_parser
from engine.ranking.fill_in import build_fill_in
from engine.ranking.scoring import Scorer, build_scorer
from engine.validity.estimate import ValidityGate
from engine.victim.model import Victim, load_victim


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


@st.cache_resource(show_spinner="Loading the fluency scorer…")
def scorer() -> Scorer:
    return build_scorer(settings())


@st.cache_resource(show_spinner="Preparing the AltLM operator…")
def fill_in() -> FillIn | None:
    return build_fill_in(with_alt_lm(settings(), True), scorer())


@st.cache_resource(show_spinner="Loading the sentence encoder for word senses…")
def sense_chooser() -> SenseChooser:
    return build_sense_chooser(settings())


@st.cache_resource(show_spinner=False)
def recipe(name: str) -> AttackRecipe:
    """A named attack recipe, under the configured settings."""
    return load_recipe(name, settings())


@st.cache_resource(show_spinner="Loading the fluency scorer…")
def scorer_for(name: str) -> Scorer:
    """The ranking scorer ``name`` (the configured one is :func:`scorer`)."""
    return scorer() if name == settings().scorer else build_scorer(settings().with_overrides(scorer=name))


@st.cache_resource(show_spinner="Loading the word-sense chooser…")
def sense_chooser_for(wsd: str) -> SenseChooser:
    """The word-sense strategy ``wsd`` (the configured one is :func:`sense_chooser`)."""
    return sense_chooser() if wsd == settings().wsd else build_sense_chooser(settings().with_overrides(wsd=wsd))


@st.cache_resource(show_spinner="Loading the victim model…")
def victim(name: str, label_map: str = "") -> Victim:
    return load_victim(name, label_map or None, settings())


@st.cache_resource(show_spinner="Loading the language models (fluency ranking, AltLM, validity estimate)…")
def attack_tools(alt_lm: bool | None = None, recipe_name: str = "default") -> AttackTools:
    """The tools of an attack under the named recipe (its scorer, word senses and validity gate)."""
    return AttackTools.build(recipe(recipe_name).apply(settings()), alt_lm=alt_lm)


def validity_gate() -> ValidityGate | None:
    """The validity gate the attack uses (None when ``validity_estimate`` is ``none``)."""
    return attack_tools().gate
