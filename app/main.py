"""NatLog Studio: ``streamlit run app/main.py``."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

st.set_page_config(page_title="NatLog Studio", page_icon="⇅", layout="wide")

PAGES = {
    "Explore": [
        st.Page(ROOT / "pages" / "inspector.py", title="Parse & polarity", icon=":material/account_tree:", default=True),
    ],
    "Validate": [
        st.Page(ROOT / "pages" / "annotate.py", title="Annotate", icon=":material/how_to_vote:"),
        st.Page(ROOT / "pages" / "admin.py", title="Admin", icon=":material/admin_panel_settings:"),
    ],
}
st.navigation(PAGES).run()
