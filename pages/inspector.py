"""Parse & polarity inspector: UD parse, polarity marks, trigger scopes, relation projection."""

import pandas as pd
import streamlit as st

from app import cached
from app.widgets import (
    allowed_edits_table,
    dependency_svg,
    md_escape,
    polarity_html,
    projection_table,
    scope_html,
    token_table,
)
from engine.api import (
    DEFINITE_READINGS,
    INDEFINITE_READINGS,
    NUMERAL_READINGS,
    PARSERS,
    RELATION_ORDER,
    SETUPS,
    Conventions,
    InputError,
    Relation,
    ResourceError,
    format_relations,
    indefinite_reading,
    parse,
    polarize,
    verify,
)

st.title("Parse & polarity inspector")
st.caption(
    "Type one sentence (a hypothesis). NatLog Studio parses it into Universal Dependencies v2, "
    "marks each word's monotonicity (↑ upward, ↓ downward, = non-monotone) and shows which local "
    "edits yield which sentence-level relation."
)

settings = cached.settings()
with st.form("parse-form"):
    text = st.text_input("Sentence", value="The dog did not bark at every cat")
    left, right = st.columns(2)
    backend = left.selectbox("Parser", PARSERS, index=PARSERS.index(settings.parser))
    pretokenized = right.checkbox("Pre-tokenized (split on spaces)")
    definite = left.selectbox(
        "Reading of “the”", DEFINITE_READINGS, index=DEFINITE_READINGS.index(settings.definite_reading),
        help="nonmonotone: “the N” refers, so N is non-monotone (the project's default); "
             "existential: “the N” reads like “some N” (upward).",
    )
    numerals = right.selectbox(
        "Reading of a bare subject numeral", NUMERAL_READINGS, index=NUMERAL_READINGS.index(settings.numeral_reading),
        help="exactly: “Two men sing” counts exactly two (noun and predicate non-monotone; the default); "
             "at-least: at least two (noun and predicate upward), the usual reading of image captions.",
    )
    configured = indefinite_reading(settings.indefinite_reading)
    indefinite = left.selectbox(
        "Reading of an indefinite subject", INDEFINITE_READINGS, index=INDEFINITE_READINGS.index(configured),
        help="existential: “A dog is chasing a ball” says some dog does (MacCartney's strict reading: "
             "negating the predicate gives ‿, “A cat …” #). scene: the dog the premise describes, as SNLI "
             "and SICK annotators read captions (negating the predicate gives ^, “A cat …” |). "
             f"The setting is {settings.indefinite_reading!r}"
             + (" (scene for SNLI and SICK files, existential for typed sentences)." if settings.indefinite_reading
                == "auto" else "."),
    )
    st.form_submit_button("Parse", type="primary")

if len(text.strip()) > settings.max_chars:  # a long paste is cut with a note, never silently dropped
    cut = text.strip()[: settings.max_chars].rsplit(" ", 1)[0]
    st.warning(f"The text is {len(text.strip())} characters long; only its first {len(cut)} are parsed "
               f"(the limit is {settings.max_chars}, NATLOG_MAX_CHARS).")
    text = cut
try:
    sentence = parse(text, pretokenized=pretokenized, parser=cached.parser(backend), settings=settings)
except (InputError, ResourceError) as exc:
    st.error(md_escape(str(exc)))
    st.stop()

polarized = polarize(sentence, conventions=Conventions(definite, numerals, indefinite))
for warning in polarized.warnings:
    st.warning(md_escape(warning))

st.subheader("Polarity")
st.html(polarity_html(polarized))
st.caption("Bold, underlined words are monotonicity triggers (quantifiers, negators, ...); hover a word to see the triggers over it.")

st.subheader("Operators and their scopes")
if polarized.triggers:
    for trigger in polarized.triggers:
        st.html(scope_html(polarized, trigger))
else:
    st.info("No monotonicity trigger found: every word is in an upward context.")

tab_projection, tab_edits, tab_parse = st.tabs(["Relation projection", "Allowed local edits", "Dependency parse"])
with tab_projection:
    st.caption("Each column: the sentence-level relation a lexical edit of that relation produces at this word.")
    st.dataframe(projection_table(polarized), width="stretch")
with tab_edits:
    mode = st.radio("Target", ["Attack setup", "Relation"], horizontal=True)
    if mode == "Attack setup":
        name = st.selectbox("Setup", list(SETUPS), format_func=lambda n: f"{n}: {SETUPS[n].description}")
        targets = SETUPS[name].relations
    else:
        chosen = st.multiselect(
            "Sentence-level relation(s) wanted between H and H*", RELATION_ORDER,
            default=[Relation.FORWARD], format_func=lambda r: f"{r.symbol} {r.name.lower()}",
        )
        targets = frozenset(chosen)
    if targets:
        st.caption("Target: " + ", ".join(f"{r.symbol} {r.name.lower()}" for r in RELATION_ORDER if r in targets))
        st.dataframe(allowed_edits_table(polarized, targets), width="stretch")
    else:
        st.info("Pick at least one relation.")
with tab_parse:
    # The tree is SVG, which st.html's sanitizer drops; displaCy escapes every word in it, and markdown
    # leaves a raw HTML block's content alone.
    st.markdown(f"<div style='overflow-x:auto'>{dependency_svg(sentence)}</div>", unsafe_allow_html=True)
    st.dataframe(token_table(sentence), width="stretch")

st.subheader("Verify a pair")
st.caption(
    "MacCartney's NatLog run forward: the two sentences are aligned into a few edits (substitution, "
    "insertion, deletion, negation); each edit's lexical relation (WordNet, determiners, modifiers, "
    "conjuncts, negation) is projected through the polarity of its place in the sentence edited so far, "
    "and the projections are joined left to right. Unknown when an edit has no licensed relation. "
    "Same as `python -m engine verify --premise P --hypothesis H`."
)
with st.form("verify-form"):
    premise = st.text_input("Premise (or H)", value="No dog barked")
    hypothesis = st.text_input("Hypothesis (or H*)", value="No poodle barked loudly")
    st.form_submit_button("Verify")
try:
    verdict = verify(premise, hypothesis, settings.with_overrides(definite_reading=definite, numeral_reading=numerals,
                                                                   indefinite_reading=indefinite))
except (InputError, ResourceError) as exc:
    st.error(md_escape(str(exc)))
else:
    relation = verdict.relation.symbol if verdict.relation else format_relations(verdict.relations)
    shown = st.warning if verdict.label == "unknown" else st.success
    shown(f"**{verdict.label}**" + (f" (relation {md_escape(relation)})" if verdict.relations else "")
          + (f": {md_escape(verdict.reason)}" if verdict.reason else ""))
    if verdict.steps:
        st.dataframe(pd.DataFrame([step.to_json() for step in verdict.steps]), width="stretch")
