"""Models and stores built once per server process (``st.cache_resource``), never per rerun."""

from __future__ import annotations

import streamlit as st

from engine.attack import AttackTools
from engine.edits import FillIn
from engine.fill_in import build_fill_in
from engine.parse import Parser, load_parser
from engine.scoring import Scorer, build_scorer
from engine.settings import Settings, get_settings
from engine.victim import Victim, load_victim


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    return get_settings()


@st.cache_resource(show_spinner="Loading the parser…")
def parser(name: str) -> Parser:
    return load_parser(name, settings().spacy_model)


@st.cache_resource(show_spinner="Loading the fluency scorer…")
def scorer() -> Scorer:
    return build_scorer(settings())


@st.cache_resource(show_spinner="Preparing the AltLM operator…")
def fill_in() -> FillIn:
    return build_fill_in(settings(), scorer())


@st.cache_resource(show_spinner="Loading the victim model…")
def victim(name: str, label_map: str = "") -> Victim:
    return load_victim(name, label_map or None, settings())


@st.cache_resource(show_spinner="Loading the language models (fluency ranking, AltLM)…")
def attack_tools(alt_lm: bool = True) -> AttackTools:
    return AttackTools.build(settings(), alt_lm=alt_lm)
