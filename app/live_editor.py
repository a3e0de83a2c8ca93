"""A text box that tells the page what is typed while it is typed: each pause of ``delay_ms`` in
typing sends the text (a Streamlit components-v2 element, its state ``text``), so the page reruns
without a button or Enter. The page keeps the text in ``st.session_state[state_key]``; setting it
there (a one-click candidate) and raising ``version`` puts a new text in the box."""

from __future__ import annotations

import streamlit as st

_JS = """
export default function(component) {
  const { data, setStateValue, parentElement } = component;
  const area = parentElement.querySelector('textarea');
  // What was typed lives beside the page, by the editor's id: a rerun that draws the box anew gives it
  // back the text typed so far (and the focus), not the text of the last rerun; only a new version
  // (a text set by the page) replaces it.
  const editors = (window.__natlogEditors = window.__natlogEditors || {});
  const state = editors[data.id] || (editors[data.id] = { version: null, text: '', focused: false });
  area.setAttribute('aria-label', data.label);
  if (state.version !== data.version) {
    state.version = data.version;
    state.text = data.value;
    area.value = data.value;
  } else if (area.value !== state.text) {
    area.value = state.text;
    if (state.focused) { area.focus(); area.setSelectionRange(area.value.length, area.value.length); }
  }
  if (!area.dataset.bound) {
    area.dataset.bound = '1';
    let timer = null;
    const send = () => { clearTimeout(timer); timer = null; setStateValue('text', area.value); };
    area.addEventListener('input', () => {
      state.text = area.value;
      clearTimeout(timer);
      timer = setTimeout(send, data.delay_ms);
    });
    area.addEventListener('focus', () => { state.focused = true; });
    area.addEventListener('blur', () => { state.focused = false; if (timer !== null) { send(); } });
  }
}
"""
_CSS = """
textarea { width: 100%; box-sizing: border-box; font: inherit; font-size: 1.25rem; padding: 0.5rem 0.75rem;
           border: 1px solid var(--st-border-color, #d0d0d0); border-radius: 0.5rem; resize: vertical;
           color: var(--st-text-color); background: var(--st-secondary-background-color); }
textarea:focus { outline: 2px solid var(--st-primary-color); }
"""
_EDITOR = st.components.v2.component("natlog_live_editor", html="<textarea rows='2' spellcheck='true'></textarea>",
                                     css=_CSS, js=_JS)
#: The pause in typing, in milliseconds, after which the text is sent.
DELAY_MS = 300


def live_editor(key: str, state_key: str, *, version: int, label: str, max_chars: int) -> str:
    """Draw the box (showing ``st.session_state[state_key]`` when ``version`` is new to it) and
    return the text the page works on: the last text typed, or the one set in ``state_key``."""

    def typed() -> None:
        text = (st.session_state.get(key) or {}).get("text")
        if isinstance(text, str):
            st.session_state[state_key] = text

    _EDITOR(key=key, data={"id": key, "value": st.session_state.get(state_key, ""), "version": version, "label": label,
                           "max_chars": max_chars, "delay_ms": DELAY_MS}, on_text_change=typed)
    return str(st.session_state.get(state_key, ""))
