"""Session state, created in one place, and mirrored in the URL so a teacher can share a view.

The URL carries the language, the sentence, the layer and the head (the page is the URL's path).
Values read from the URL are validated: a hand-edited link can never crash a page.
"""

from __future__ import annotations

import streamlit as st

from .text import LANGUAGES

DEFAULT_TEXT = {
    "zh": "我去电影院看电影，电影很好看。",
    "en": "She opened the door and walked into the room.",
}
MAX_URL_TEXT = 2000  # characters of the sentence kept in a shared link
URL_KEYS = ("lang", "text", "layer", "head")


def _int_param(value, default: int, upper: int = 1024) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return number if 0 <= number < upper else default


def init_state() -> None:
    """Fill session state on a session's first run: from the URL where it says something, else defaults."""
    if st.session_state.get("_initialised"):
        return
    params = st.query_params
    lang = params.get("lang")
    lang = lang if lang in LANGUAGES else st.session_state.get("lang", LANGUAGES[0])
    st.session_state["lang"] = lang if lang in LANGUAGES else LANGUAGES[0]
    text = params.get("text")
    st.session_state.setdefault("text", text[:MAX_URL_TEXT] if isinstance(text, str) else DEFAULT_TEXT[lang])
    st.session_state.setdefault("layer", _int_param(params.get("layer"), 0))
    st.session_state.setdefault("head", _int_param(params.get("head"), 0))
    st.session_state.setdefault("model_choice", "embedded")
    st.session_state.setdefault("model_folder", "")
    st.session_state["_initialised"] = True


def sync_url() -> None:
    """Write the shareable part of the state into the address bar."""
    wanted = {
        "lang": st.session_state["lang"],
        "text": st.session_state["text"][:MAX_URL_TEXT],
        "layer": str(st.session_state["layer"]),
        "head": str(st.session_state["head"]),
    }
    if any(st.query_params.get(k) != v for k, v in wanted.items()):
        st.query_params.update(wanted)


def bind(name: str) -> str:
    """Widget key for a value that must outlive the page that shows its widget.

    Streamlit forgets a widget's state when its page is left; the value itself lives under ``name`` and
    the widget under ``w_<name>``, refreshed from it on every run. Pass ``on_change=store, args=(name,)``.
    """
    widget_key = f"w_{name}"
    st.session_state[widget_key] = st.session_state[name]
    return widget_key


def store(name: str) -> None:
    st.session_state[name] = st.session_state[f"w_{name}"]
