"""NatLog Studio: ``streamlit run app/main.py`` (the project is installed, so ``app``, ``engine``,
``annotations`` and ``engine`` import from anywhere)."""

from pathlib import Path

import streamlit as st

from app import cached
from app.auth import current_role

ROOT = Path(__file__).resolve().parent.parent

st.set_page_config(page_title="NatLog Studio", page_icon="⇅", layout="wide")
cached.announce_bootstrap_code()  # on a store with no admin: a one-time code on the server's console

PAGES = {
    "Explore": [
        st.Page(ROOT / "pages" / "inspector.py", title="Parse & polarity", icon=":material/account_tree:", default=True),
        st.Page(ROOT / "pages" / "candidates.py", title="Candidates", icon=":material/format_list_numbered:"),
    ],
    "Attack": [
        st.Page(ROOT / "pages" / "attack.py", title="Attack stepper", icon=":material/bolt:"),
        st.Page(ROOT / "pages" / "runs.py", title="Runs", icon=":material/play_circle:"),
        st.Page(ROOT / "pages" / "results.py", title="Results", icon=":material/leaderboard:"),
        st.Page(ROOT / "pages" / "confidence.py", title="Confidence", icon=":material/query_stats:"),
        st.Page(ROOT / "pages" / "probes.py", title="Probes", icon=":material/science:"),
        st.Page(ROOT / "pages" / "report_card.py", title="Report card", icon=":material/grading:"),
    ],
    "Validate": [
        st.Page(ROOT / "pages" / "write.py", title="Write an attack", icon=":material/edit_note:"),
        st.Page(ROOT / "pages" / "annotate.py", title="Annotate", icon=":material/how_to_vote:"),
        st.Page(ROOT / "pages" / "admin.py", title="Admin", icon=":material/admin_panel_settings:"),
    ],
}
# Annotators see the public tools and their queue, authors the Write page too; admin pages stay
# gated by sign-in for everyone else.
role = current_role()
if role == "annotator":
    PAGES = {"Explore": PAGES["Explore"], "Validate": PAGES["Validate"][1:2]}
elif role == "author":
    PAGES = {"Explore": PAGES["Explore"], "Validate": PAGES["Validate"][:2]}
st.navigation(PAGES).run()
