"""Parse & polarity inspector: UD parse of one sentence."""

import streamlit as st

from app import cached
from app.widgets import dependency_svg, token_table
from engine.errors import InputError
from engine.parse import PARSERS, parse
from engine.resources import ResourceError

st.title("Parse & polarity inspector")
st.caption("Type one sentence (a hypothesis). NatLog Studio parses it into Universal Dependencies v2.")

settings = cached.settings()
with st.form("parse-form"):
    text = st.text_input("Sentence", value="The dog did not bark at every cat", max_chars=settings.max_chars * 2)
    left, right = st.columns(2)
    backend = left.selectbox("Parser", PARSERS, index=PARSERS.index(settings.parser))
    pretokenized = right.checkbox("Pre-tokenized (split on spaces)")
    st.form_submit_button("Parse", type="primary")

try:
    sentence = parse(text, pretokenized=pretokenized, parser=cached.parser(backend), settings=settings)
except (InputError, ResourceError) as exc:
    st.error(str(exc))
    st.stop()

st.subheader("Dependency tree")
st.markdown(f"<div style=\"overflow-x:auto\">{dependency_svg(sentence)}</div>", unsafe_allow_html=True)
st.subheader("Tokens")
st.dataframe(token_table(sentence), width="stretch")
