"""The language switch: ``t("masking.title")`` returns the string in the session's language.

Strings live beside what shows them: each concept folder's ``text.py`` (``app/masking/text.py``: keys prefixed
``masking.``) and the shared ones in ``app/core/text/`` (``common.``, ``nav.``, ``model_facts.``). Each defines
``TEXT = {key: {"en": ..., "zh": ...}}``; the prefix keeps two folders' keys apart.

A gap (a key with no string, a string missing the session's language, a ``{placeholder}`` given no value) never
shows the student a raw key or brace: the app logs a warning and shows the other language's string, or nothing
where there is none, or "…" for the missing value. Under ``STRICT_ENV`` (the tests set it) a gap raises instead,
so that it fails the test that met it rather than reaching a classroom.
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil

import numpy as np
import streamlit as st

from app.core import text
from app.core.numbers import Share
from app.core.registry import concept_modules

LANGUAGES = ("zh", "en")
STRICT_ENV = "BERT_LAB_STRICT_STRINGS"
GAP = "…"  # what a placeholder with no value reads as, outside tests

log = logging.getLogger(__name__)
_logged: set[str] = set()  # each gap is logged once per process: a page reruns on every click


class MissingStringError(LookupError):
    """A key with no string in the session's language, or a placeholder with no value (raised under ``STRICT_ENV``)."""


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
    """The string for ``key``; ``values`` fill its ``{placeholders}`` (without values the string comes unformatted:
    chart code fills such templates itself). A gap raises under ``STRICT_ENV``; otherwise it is logged and filled
    as the module says."""
    language = lang()
    entry = STRINGS.get(key, {})
    text = entry.get(language)
    if not text:
        other = next((entry[code] for code in LANGUAGES if code != language and entry.get(code)), "")
        if key not in STRINGS:
            gap(f"no string {key!r} in any language; showing nothing")
        else:
            gap(f"no {language} string for {key!r}; showing " + ("the other language's" if other else "nothing"))
        text = other
    if not values:
        return text
    return text.format_map(_Values(key, language, {name: shares(value) for name, value in values.items()}))


def gap(message: str) -> None:
    """A string the page lacks: an error under ``STRICT_ENV``, a warning in the log (once) otherwise."""
    if os.environ.get(STRICT_ENV) == "1":
        raise MissingStringError(message)
    if message not in _logged:
        _logged.add(message)
        log.warning(message)


class _Values(dict):
    """A string's values; a placeholder not among them is a gap."""

    def __init__(self, key: str, language: str, values: dict):
        super().__init__(values)
        self.where = f"{key!r} ({language})"

    def __missing__(self, name: str):
        gap(f"no value for {{{name}}} in {self.where}; given {', '.join(sorted(self)) or 'none'}")
        return _Gap()


class _Gap:
    """A missing value, written as ``GAP`` whatever format its placeholder asks for (a share's percent included)."""

    def __format__(self, spec: str) -> str:
        return GAP


def shares(value):
    """A number as strings write it: a float's percentages by ``app.core.numbers.percent``; anything else as is."""
    return Share(value) if isinstance(value, float | np.floating) else value
