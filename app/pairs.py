"""Choosing the pair a page works on: from a data file under the data folders (pairs the victim
trained on hidden unless asked for), or typed in. The Attack stepper and the Write page share it."""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from app import cached
from app.widgets import md_escape
from engine.api import (
    FORMATS,
    LABELS,
    InputError,
    NLIPair,
    ResourceError,
    data_folders,
    inside_folders,
    pair_key,
    read_pairs,
    trained_pair_keys,
    victim_location,
)


class ChosenPair(NamedTuple):
    """The pair chosen: premise, hypothesis, its label, and the data file, format and line it came
    from (None for a typed pair)."""

    premise: str
    hypothesis: str
    label: str
    file: str | None = None
    fmt: str | None = None
    line: int | None = None


@st.cache_data(show_spinner="Reading the data file…", max_entries=8)
def load_pairs(path: str, fmt: str, mtime: float) -> list[NLIPair]:
    return read_pairs(path, fmt)


def trained_keys(victim_name: str) -> frozenset[str]:
    """The pairs the victim trained on (its ``trained_pairs.txt``), none when it lists none or is
    not trained yet."""
    settings = cached.settings()
    try:
        return trained_pair_keys(victim_location(victim_name.strip() or settings.victim, settings)) or frozenset()
    except (InputError, ResourceError):
        return frozenset()


def choose_pair(victim_name: str, prefix: str = "", typed: tuple[str, str] = (
        "A man is playing a guitar on stage.", "A man is playing an instrument.")) -> ChosenPair | None:
    """The pair to work on, from a data file or typed in (widget keys start with ``prefix``); None,
    with a one-line message, when the file cannot be read or holds no pair."""
    settings = cached.settings()
    source = st.radio("Pair", ["From a data file", "Type a pair"], horizontal=True, key=f"{prefix}pair_source")
    if source == "Type a pair":
        premise = st.text_area("Premise", typed[0], height=70, key=f"{prefix}premise")
        hypothesis = st.text_input("Hypothesis", typed[1], key=f"{prefix}hypothesis")
        label = st.selectbox("Gold label", LABELS, key=f"{prefix}gold")
        if not premise.strip() or not hypothesis.strip():
            st.error("Type a premise and a hypothesis.")
            return None
        return ChosenPair(premise.strip(), hypothesis.strip(), str(label))
    left, right = st.columns([3, 1])
    path = left.text_input("Data file", str(settings.shared_data_dir / "snli_test.tsv"), key=f"{prefix}data_file")
    fmt = right.selectbox("Format", FORMATS, key=f"{prefix}data_format")
    try:  # only files under the data folders: the field must not open any path on the server
        file = inside_folders(path, data_folders(settings.shared_data_dir, settings.data_dir))
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return None
    if not file.is_file():
        st.error(f"No such file: {md_escape(str(file))}")
        return None
    try:
        pairs = load_pairs(str(file), fmt, file.stat().st_mtime)
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return None
    if not pairs:
        st.error(f"{md_escape(str(file))} holds no labelled pairs.")
        return None
    trained = trained_keys(victim_name)
    hidden = sum(1 for p in pairs if pair_key(p.premise, p.hypothesis) in trained)
    if hidden and not st.checkbox(f"Include the {hidden} pairs the victim trained on", key=f"{prefix}include_trained",
                                  help="Hidden by default: attacking a pair the victim learnt measures memory, "
                                       "not reasoning (its model card lists them)."):
        pairs = [p for p in pairs if pair_key(p.premise, p.hypothesis) not in trained]
        st.caption(f"{hidden} pairs of this file are hidden: the victim trained on them.")
    if not pairs:
        st.error("The victim trained on every pair of this file: include them above, or choose another file.")
        return None
    index = st.number_input(f"Pair index (0 – {len(pairs) - 1})", 0, len(pairs) - 1, min(1, len(pairs) - 1),
                            key=f"{prefix}pair_index")
    pair = pairs[int(index)]
    st.markdown(f"**P:** {md_escape(pair.premise)}  \n**H:** {md_escape(pair.hypothesis)}  \n"
                f"**gold:** {md_escape(str(pair.label))} (line {pair.line} of {md_escape(str(pair.source))})")
    return ChosenPair(pair.premise, pair.hypothesis, pair.label, str(file), fmt, pair.line)
