"""The language switch: ``t("masking.title")`` returns the string in the session's language."""

from __future__ import annotations

import streamlit as st

from .text import LANGUAGES, load_all

STRINGS = load_all()


def lang() -> str:
    value = st.session_state.get("lang", LANGUAGES[0])
    return value if value in LANGUAGES else LANGUAGES[0]


def t(key: str, **values) -> str:
    """The string for ``key``; ``values`` fill its ``{placeholders}``. A missing key shows itself, not a crash."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang()) or entry.get("en") or key
    return text.format(**values) if values else text
