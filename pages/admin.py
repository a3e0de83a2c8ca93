"""Admin: annotators and tokens, judging progress, agreement and HVASR, export."""

import io
from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from annotations.access import sign_in
from annotations.aggregation import HVASR_GROUPS, agreement_reading, state_counts
from annotations.auth import bootstrap_admin, has_admin
from annotations.export import EXPORT_FORMATS, write_export
from annotations.records import ROLES
from app.auth import admin_session, open_store, signin_link, start_session
from app.text import show_chart
from app.widgets import HVASR_HEADINGS, HVASR_HELP, md_escape, shown_ratios
from engine.api import InputError

st.title("Annotation admin")


def show_token_once(name: str, token: str, what: str = "Created", annotator_id: int | None = None) -> None:
    # Names are letters, digits and _.@+- only: a code span shows them as typed (no autolink, no
    # invisible character in what an admin copies).
    shown = ("Their sign-in link and access token are shown only this once; copy them now."
             if annotator_id is not None else "The access token is shown only this once; copy it now.")
    st.success(f"{what} `{name}`. {shown}")
    if annotator_id is not None:
        st.caption("Sign-in link: one click signs them in (the secret then leaves the address bar). Anyone holding "
                   "it can judge as them until you revoke or re-issue their token; send it privately.")
        st.code(signin_link(annotator_id, token), language=None)
    st.caption("Access token (for the sign-in form, or if the link cannot be used):")
    st.code(token, language=None)


def person_id(session, name: str) -> int:  # noqa: ANN001 - an AdminSession
    return next(a.id for a in session.annotators() if a.name == name.strip())


with open_store() as store:
    if not has_admin(store):
        first_run = st.empty()  # cleared once the admin exists, so the form does not linger
        with first_run.container():
            st.info("This store has no admin yet. The server printed a one-time **bootstrap code** on its console "
                    "(the terminal where `make run` runs) when it started; enter it with the first admin's name. "
                    "From a terminal on the server, `python -m annotations bootstrap-code` prints a new code, and "
                    "`python -m annotations add-annotator NAME --role admin` creates an admin directly.")
            with st.form("bootstrap"):
                name = st.text_input("Admin name")
                code = st.text_input("Bootstrap code (from the server's console)", type="password")
                create = st.form_submit_button("Create admin", type="primary")
        if not create:
            st.stop()
        try:
            token = bootstrap_admin(store, name, code)
        except InputError as exc:
            st.error(md_escape(str(exc)))
            st.stop()
        first_run.empty()
        # The new admin is signed in in this tab at once (no page load, which would lose the token on
        # screen); the token is what signs them in after a reload or in another browser.
        start_session(store, sign_in(store, name, token).annotator.id, remember=False)
        show_token_once(name.strip(), token)
        st.caption("You are signed in in this tab. Keep this token: after a reload, and next time, you sign in "
                   "with it.")

    session = admin_session(store, "admin-sign-in")

    if (warning := session.resolution_warning()) is not None:
        st.warning(warning + " Add annotators below (each gets a sign-in link), or lower k (`annotations_k`) "
                             "before the study starts.")  # our own sentence: numbers only
    # The open tab is tracked, so a form that reruns the page (Set k) leaves its tab open.
    people, progress, agreement_tab, hvasr_tab, export = st.tabs(
        ["Annotators", "Progress", "Agreement", "HVASR", "Export"], key="admin-tab", on_change="rerun")

    with people:
        with st.form("add-annotator", clear_on_submit=True):
            left, right = st.columns([3, 1])
            new_name = left.text_input("Name")
            role = right.selectbox("Role", ROLES)
            add = st.form_submit_button("Add annotator", type="primary")
        if add:
            try:
                token = session.add_annotator(new_name, role)
                show_token_once(new_name.strip(), token, annotator_id=person_id(session, new_name))
            except InputError as exc:
                st.error(md_escape(str(exc)))
        everyone = session.annotators()
        st.dataframe(pd.DataFrame([asdict(a) for a in everyone]).set_index("id"), width="stretch")
        active = [a.name for a in everyone if a.revoked_at is None and a.source == "local"
                  and a.name != session.annotator.name]
        if active:
            with st.form("revoke"):
                person = st.selectbox("Revoke the token of", active)
                if st.form_submit_button("Revoke"):
                    session.revoke(person)
                    st.rerun()
        local = [a.name for a in everyone if a.source == "local" and a.name != session.annotator.name]
        if local:
            with st.form("reissue"):
                person = st.selectbox("Issue a new token for", local,
                                      help="The old token stops signing in; a revoked person is active again.")
                reissue = st.form_submit_button("Issue new token")
            if reissue:
                token = session.reissue_token(person)
                show_token_once(person, token, "New token (the old link and token no longer work) for",
                                annotator_id=person_id(session, person))

    report = session.agreement()
    with progress:
        results = session.item_results()
        counts = state_counts(results)
        columns = st.columns(4)
        columns[0].metric("Items", sum(counts.values()))
        for column, (state, count) in zip(columns[1:], counts.items()):
            column.metric(state.capitalize(), count)
        if not results:
            st.info("No attack items yet: record an attack run (Runs page or `python -m engine attack`); its "
                    "successful attacks become items here.")
        elif not report.annotators:
            active = sum(a.role == "annotator" and a.revoked_at is None for a in session.annotators())
            st.info("No votes yet. Add annotators on the Annotators tab and send each their sign-in link."
                    if not active else
                    f"No votes yet. {active} annotator{'s' if active != 1 else ''} can judge: send each their "
                    "sign-in link (a lost one is re-issued on the Annotators tab).")
        else:
            st.dataframe(pd.DataFrame([{"annotator": a.name, "votes": a.votes,
                                        "gold votes": a.gold_votes, "mean seconds": a.mean_seconds}
                                       for a in report.annotators]), width="stretch", hide_index=True)
        with st.form("study-k"):
            left, right = st.columns([1, 3])
            new_k = left.number_input("Judgments per item (k)", 1, 99, session.k, step=1,
                                      help="an odd k always ends in a majority; with an even k (2 for a study of "
                                           "two) a split vote waits for one more annotator")
            right.caption("Each item is done once k annotators have judged it and one label has the most votes; "
                          "a tie waits for one more vote, and stays a tie (not valid) if no one else can vote. k "
                          "larger than the number of active annotators would leave every item open forever, so it "
                          "is refused.")
            if st.form_submit_button("Set k"):
                try:
                    session.set_k(int(new_k))
                    st.rerun()
                except InputError as exc:
                    st.error(md_escape(str(exc)))
        waiting = session.open_items()
        if stuck := [o for o in waiting if o.stuck]:
            st.warning(f"{len(stuck)} item(s) can never finish as things stand: every active annotator who could "
                       "vote on them has voted or skipped. Add an annotator, lower k, or adjudicate a tie (export "
                       "it and decide); a tie left as it is counts as not valid.")
        if waiting:
            st.caption(f"Items still waiting for votes (k = {session.k} per item; a tie needs one more), the ones "
                       "that cannot finish first:")
            st.dataframe(pd.DataFrame([{"premise": o.premise, "hypothesis": o.hypothesis, "state": o.state,
                                        "votes": o.votes, "missing": o.missing, "can vote": o.can_vote,
                                        "what to do": o.advice} for o in waiting]), width="stretch", hide_index=True)

    with agreement_tab:
        left, right = st.columns(2)
        left.metric("Fleiss' kappa", "—" if report.fleiss_kappa is None
                    else f"{report.fleiss_kappa:.3f}", help=f"{report.fleiss_items} complete items")
        right.metric("Krippendorff's alpha", "—" if report.krippendorff_alpha is None
                     else f"{report.krippendorff_alpha:.3f}", help=f"{report.alpha_votes} votes")
        if (reading := agreement_reading(report)) is not None:
            st.caption(reading)  # our own sentence: numbers only
        table = pd.DataFrame([asdict(a) for a in report.annotators])
        if table.empty:
            st.info("No votes yet.")
        else:
            st.caption("odd share, broken share: the annotator's votes that read the hypothesis as odd "
                       "(understandable, not what a native speaker would write) and as broken (ungrammatical or "
                       "meaningless).")
            st.dataframe(table, width="stretch", hide_index=True)
            names = list(table["name"])
            figure = go.Figure([
                go.Bar(name="agreement with majority", x=names, y=table["agreement"]),
                go.Bar(name="gold accuracy", x=names, y=table["gold_accuracy"]),
            ])
            figure.update_layout(barmode="group", yaxis={"range": [0, 1], "title": "share"},
                                 height=360, margin={"t": 30})
            show_chart(figure, width="stretch")

    with hvasr_tab:
        group = st.selectbox("Group by", HVASR_GROUPS)
        rows = session.hvasr(group)
        if rows:
            st.caption(HVASR_HELP)
            st.dataframe(shown_ratios(pd.DataFrame([asdict(r) for r in rows]).drop(columns="group")),
                         width="stretch", hide_index=True, column_config=HVASR_HEADINGS)
        else:
            st.info("No attack runs in this store yet.")

    with export:
        fmt = st.radio("Format", EXPORT_FORMATS, horizontal=True)
        buffer = io.StringIO()
        write_export(session.export_rows(), fmt, buffer)
        st.download_button("Download attacks with votes", buffer.getvalue(),
                           file_name=f"natlog-annotations.{fmt}", mime="text/plain")
