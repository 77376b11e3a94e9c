"""The language switch: ``t("masking.title")`` returns the string in the session's language.

Strings live beside what shows them: each concept folder's ``text.py`` (``app/masking/text.py``: keys prefixed
``masking.``) and the shared ones in ``app/core/text/`` (``common.``, ``nav.``, ``model_facts.``). Each defines
``TEXT = {key: {"en": ..., "zh": ...}}``; the prefix keeps two folders' keys apart.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import streamlit as st

LANGUAGES = ("zh", "en")
APP_DIR = Path(__file__).resolve().parents[1]


def string_modules() -> dict[str, str]:
    """Prefix -> module of every strings file: the concepts' ``text.py`` and core's ``text/*.py``."""
    modules = {info.name: f"app.core.text.{info.name}" for info in pkgutil.iter_modules([str(APP_DIR / "core/text")])}
    for folder in sorted(APP_DIR.iterdir()):
        if folder.name != "core" and (folder / "text.py").exists():
            modules[folder.name] = f"app.{folder.name}.text"
    return modules


def load_all() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for prefix, module_name in string_modules().items():
        for key, value in importlib.import_module(module_name).TEXT.items():
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
    return text.format(**values) if values else text
