"""Models and stores built once per server process (``st.cache_resource``), never per rerun."""

from __future__ import annotations

import streamlit as st

from engine.parse import Parser, load_parser
from engine.settings import Settings, get_settings


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    return get_settings()


@st.cache_resource(show_spinner="Loading the parser…")
def parser(name: str) -> Parser:
    return load_parser(name, settings().spacy_model)
