"""The language switch: ``t("masking.title")`` returns the string in the session's language.

Strings live beside what shows them: each concept folder's ``text.py`` (``app/masking/text.py``: keys prefixed
``masking.``) and the shared ones in ``app/core/text/`` (``common.``, ``nav.``, ``model_facts.``). Each defines
``TEXT = {key: {"en": ..., "zh": ...}}``; the prefix keeps two folders' keys apart.
"""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import streamlit as st

from app.core import text
from app.core.numbers import Share
from app.core.registry import concept_modules

LANGUAGES = ("zh", "en")


def load_all() -> dict[str, dict[str, str]]:
    modules = {
        info.name: importlib.import_module(f"app.core.text.{info.name}") for info in pkgutil.iter_modules(text.__path__)
    }
    merged: dict[str, dict[str, str]] = {}
    for prefix, module in (modules | concept_modules("text")).items():
        for key, value in module.TEXT.items():
            merged[f"{prefix}.{key}"] = value
    return merged


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
    return text.format(**{k: shares(v) for k, v in values.items()}) if values else text


def shares(value):
    """A number as strings write it: a float's percentages by ``app.core.numbers.percent``; anything else as is."""
    return Share(value) if isinstance(value, float | np.floating) else value
