"""Links between pages that open in the same tab and keep the sign-in."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

PAGES = Path(__file__).resolve().parent.parent / "pages"


def stepper_link(attack_id: int) -> None:
    """A link that opens a stored attack in the stepper in this tab, keeping the sign-in (a plain
    relative link when the page runs on its own, outside the app's navigation)."""
    label = f"Open attack {int(attack_id)} in the stepper"
    try:
        st.page_link(str(PAGES / "attack.py"), label=label, icon=":material/bolt:",
                     query_params={"attack": str(int(attack_id))})
    except StreamlitPageNotFoundError:
        st.markdown(f":material/bolt: [{label}](attack?attack={int(attack_id)})")


def profile_pair_link(run_id: int, pair_index: int, setup: str, label: str) -> None:
    """A link that opens a profiled pair in the stepper (its premise, hypothesis, gold label, setup and
    the run's victim filled in) in this tab, keeping the sign-in. ``label`` is shown as text."""
    params = {"profile": str(int(run_id)), "pair": str(int(pair_index)), "setup": setup}
    try:
        st.page_link(str(PAGES / "attack.py"), label=label, icon=":material/bolt:", query_params=params)
    except StreamlitPageNotFoundError:
        from urllib.parse import urlencode

        st.markdown(f":material/bolt: [{label}](attack?{urlencode(params)})")
