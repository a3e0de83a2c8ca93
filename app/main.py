"""NatLog Studio: ``streamlit run app/main.py``."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app.auth import current_role  # noqa: E402

st.set_page_config(page_title="NatLog Studio", page_icon="⇅", layout="wide")

PAGES = {
    "Explore": [
        st.Page(ROOT / "pages" / "inspector.py", title="Parse & polarity", icon=":material/account_tree:", default=True),
        st.Page(ROOT / "pages" / "candidates.py", title="Candidates", icon=":material/format_list_numbered:"),
    ],
    "Attack": [
        st.Page(ROOT / "pages" / "attack.py", title="Attack stepper", icon=":material/bolt:"),
        st.Page(ROOT / "pages" / "results.py", title="Results", icon=":material/leaderboard:"),
    ],
    "Validate": [
        st.Page(ROOT / "pages" / "annotate.py", title="Annotate", icon=":material/how_to_vote:"),
        st.Page(ROOT / "pages" / "admin.py", title="Admin", icon=":material/admin_panel_settings:"),
    ],
}
# Annotators see the public tools and their queue; admin pages stay gated by sign-in for everyone else.
if current_role() == "annotator":
    PAGES = {"Explore": PAGES["Explore"], "Validate": PAGES["Validate"][:1]}
st.navigation(PAGES).run()
