"""Candidates: every natural-logic edit H* of a hypothesis for an attack setup, ranked by fluency."""

import streamlit as st

from app import cached
from app.widgets import (
    candidate_html,
    candidates_table,
    derivation_lines,
    md_escape,
    polarity_html,
    validity_line,
)
from engine.api import (
    LABELS,
    SETUPS,
    InputError,
    ResourceError,
    ask_reason,
    describe_by_operator,
    describe_rejected,
    format_relations,
    no_candidate_reason,
    parse,
    polarize,
    propose,
    recipe_names,
    setups_for_label,
)

st.title("Attack candidates")
st.caption("Natural-logic edits of H whose relation to H keeps (or flips) the label as the setup asks, "
           "ranked by language-model fluency (lower perplexity first). With a premise, each gets a validity "
           "estimate (the probability that blind judges would give (P, H*) the target label in plain English); "
           "the attack does not ask candidates under min_validity. The list is in the order the attack asks: "
           "fluency weighed against the natural estimate (valid and natural English), the swaps of a verb "
           "after the others (verb_swaps_last), and candidates estimated under natural_floor (double negations, "
           "rare words) last; the max-hvasr recipe orders by the validity estimate instead.")

settings = cached.settings()
with st.form("candidates-form"):
    premise = st.text_input("Premise P (optional; the premise check of neutral targets reads it)", "",
                            key="cand_premise")
    hypothesis = st.text_input("Hypothesis H", "A goose is a large bird", key="cand_hypothesis")
    left, mid, recipe_column, right = st.columns(4)
    label = left.selectbox("Gold label of (P, H)", LABELS, key="cand_label")
    top_k = mid.number_input("Keep the best", 1, 500, min(settings.top_k, 100), key="cand_top")
    recipe_name = recipe_column.selectbox("Attack recipe", recipe_names(), key="cand_recipe", index=cached.recipe_index(settings),
                                          help="the operators, constraint chain and conventions of a round "
                                               "(default: the shipped defaults; natlog2023: the paper's Algorithm 1)")
    alt_lm = right.toggle("AltLM operator (slower)", value=False, key="cand_alt_lm")
    generate = st.form_submit_button("Generate candidates", type="primary")

if not generate:
    st.info("Type a hypothesis, pick its gold label and generate.")
    st.stop()

try:
    attack = cached.attack(recipe_name, alt_lm)
    polarized = polarize(parse(hypothesis, settings=attack.settings), conventions=attack.reading)
    with st.spinner("Generating and ranking candidates…"):
        # The search's first round: the same pipeline as the attack and `engine candidates`.
        proposals = propose(attack, polarized, setups_for_label(label), premise.strip() or None, int(top_k))
except (InputError, ResourceError) as exc:
    st.error(md_escape(str(exc)))
    st.stop()

st.html(polarity_html(polarized))
tabs = st.tabs([f"{p.setup.name} ({p.setup.source_label} → {p.setup.target_label})" for p in proposals])
for proposal, tab in zip(proposals, tabs):
    setup, rows = proposal.setup, list(proposal.candidates)
    with tab:
        st.caption(f"{SETUPS[setup.name].description}. Relations H → H* allowed: "
                   + format_relations(setup.relations, " ") + f". {proposal.generated} generated; dropped by "
                   f"the constraints: {describe_rejected(proposal.rejected)}; {len(rows)} ranked.")
        if proposal.rejected_by_operator:
            st.caption("Dropped per operator: " + md_escape(describe_by_operator(proposal.rejected_by_operator)))
        if not rows:
            st.info(md_escape(no_candidate_reason(attack, polarized, proposal, premise.strip() or None)))
            continue
        table = candidates_table(rows)
        if rows:  # where each candidate stands in the order the attack asks, and why
            table["asked because"] = [ask_reason(c, polarized, attack.search, proposal.natural_floor,
                                                windowed=proposal.windows > 0) for c in rows]
        st.dataframe(table, width="stretch", height=min(460, 36 * len(rows) + 40))
        st.html("<br>".join(f"{k}. {candidate_html(c)}" for k, c in enumerate(rows[:15], start=1)))
        pick = st.number_input("Derivation of candidate #", 1, len(rows), 1, key=f"derive-{setup.name}")
        chosen = rows[int(pick) - 1]
        st.html(candidate_html(chosen))
        st.markdown("\n".join(f"- {line}" for line in derivation_lines(chosen)))
        estimate = proposal.estimates.get(chosen.text)
        if estimate is not None:
            st.markdown(validity_line(estimate))
        if proposal.below_validity:
            with st.expander(f"{len(proposal.below_validity)} under min_validity ({attack.search.min_validity:.2f}), not asked"):
                st.dataframe(candidates_table(proposal.below_validity), width="stretch")
