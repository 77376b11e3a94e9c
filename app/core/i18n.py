"""The language switch: ``t("masking.title")`` returns the string in the session's language.

Strings live in locale files, one folder per language and one JSON file per prefix: ``app/locales/en/masking.json``
holds the English strings whose keys start ``masking.``, flat ``{"title": "…"}``. A translator edits those files
with no Python (Weblate, Crowdin and Poedit read flat JSON key files); adding a language is one folder and one line
of ``LANGUAGES_INFO``. JSON rather than gettext, because the app's keys are stable names that code and tests use, while
gettext's keys are the English sentences themselves and change whenever the English does.

Plurals and numbers follow the locale through Babel (CLDR's data): a string with plural forms is written as
``key_one`` and ``key_other`` (CLDR's categories, as i18next writes them) and picks its form by the value ``n``; a
``{name:,}`` number is grouped as the locale groups digits.

A gap (a key with no string, a string missing the session's language, a ``{placeholder}`` given no value) never
shows the student a raw key or brace: the app logs a warning and shows the fallback language's string, or nothing
where there is none, or "…" for the missing value. Under ``STRICT_ENV`` (the tests set it) a gap raises instead,
so that it fails the test that met it rather than reaching a classroom.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import streamlit as st
from babel import Locale
from babel.core import get_global
from babel.numbers import format_decimal

from app.core.numbers import Share
from app.core.pseudo_locale import pseudo

LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"


@dataclass(frozen=True)
class Language:
    name: str  # as the language writes its own name, for the switch
    reads: str  # the language of the text its pages give the model (samples, examples, corpora): "zh" or "en"
    babel: str  # the CLDR locale for plurals and numbers
    fallback: str | None = None  # whose string a gap shows


# The first is a first visit's language where the browser asks for none the app has.
LANGUAGES_INFO = {
    "zh": Language("简体中文", reads="zh", babel="zh_Hans", fallback="en"),
    "en": Language("English", reads="en", babel="en", fallback="zh"),
    "zh-Hant": Language("繁體中文", reads="zh", babel="zh_Hant", fallback="zh"),
}
LANGUAGES = tuple(LANGUAGES_INFO)
TEXT_LANGUAGES = tuple(dict.fromkeys(language.reads for language in LANGUAGES_INFO.values()))  # the corpora's
STRICT_ENV = "BERT_LAB_STRICT_STRINGS"
PSEUDO_ENV = "BERT_LAB_PSEUDO_LOCALE"  # "1": English strings pseudo-localised (app.core.pseudo_locale), to look at
GAP = "…"  # what a placeholder with no value reads as, outside tests
PLURAL_BY = "n"  # the value whose number picks a plural form
PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")  # CLDR's categories

log = logging.getLogger(__name__)
_logged: set[str] = set()  # each gap is logged once per process: a page reruns on every click


class MissingStringError(LookupError):
    """A key with no string in the session's language, or a placeholder with no value (raised under ``STRICT_ENV``)."""


def read_locale(language: str) -> dict[str, str]:
    """One language's strings, ``prefix.key`` -> string, from its folder."""
    strings: dict[str, str] = {}
    for path in sorted((LOCALES_DIR / language).glob("*.json")):
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            strings[f"{path.stem}.{key}"] = value
    return strings


def load_all() -> dict[str, dict[str, str]]:
    """Every key's strings, ``key`` -> ``{language: string}``."""
    merged: dict[str, dict[str, str]] = {}
    for language in LANGUAGES:
        for key, value in read_locale(language).items():
            merged.setdefault(key, {})[language] = value
    if os.environ.get(PSEUDO_ENV) == "1":
        for entry in merged.values():
            entry["en"] = pseudo(entry["en"])
    return merged


STRINGS = load_all()


def lang() -> str:
    value = st.session_state.get("lang", LANGUAGES[0])
    return value if value in LANGUAGES else LANGUAGES[0]


def reads(language: str | None = None) -> str:
    """The language of the text pages give the model for ``language`` (the session's by default): Traditional
    Chinese pages read the Chinese corpora and samples."""
    return LANGUAGES_INFO[language or lang()].reads


def language_for_locale(locale: str | None) -> str | None:
    """The interface language for a browser's locale ("en-US" -> "en", "zh-TW" and "zh-Hant-HK" -> "zh-Hant",
    "zh-CN" -> "zh"), matched on language and script (CLDR's likely script where the locale names none); None
    where the app has none."""
    wanted = _language_and_script(locale or "")
    return next((code for code, info in LANGUAGES_INFO.items() if _language_and_script(info.babel) == wanted), None)


def _language_and_script(tag: str) -> tuple[str, str]:
    parts = [part for part in tag.replace("-", "_").split("_") if part]
    if not parts:
        return ("", "")
    language = parts[0].lower()
    script = next((part.title() for part in parts[1:] if len(part) == 4 and part.isalpha()), None)
    if script is None:
        likely = get_global("likely_subtags")
        region = next((part.upper() for part in parts[1:] if len(part) in (2, 3)), "")
        full = likely.get(f"{language}_{region}") or likely.get(language) or language
        script = next((part for part in full.split("_")[1:] if len(part) == 4), "")
    return (language, script)


def t(key: str, **values) -> str:
    """The string for ``key``; ``values`` fill its ``{placeholders}`` (without values the string comes unformatted:
    chart code fills such templates itself). A gap raises under ``STRICT_ENV``; otherwise it is logged and filled
    as the module says."""
    language = lang()
    if key not in STRINGS and PLURAL_BY in values and f"{key}_other" in STRINGS:
        key = plural_key(key, values[PLURAL_BY], language)
    text = _string(key, language)
    if not values:
        return text
    babel_locale = LANGUAGES_INFO[language].babel
    filled = {name: _localised(value, babel_locale) for name, value in values.items()}
    return text.format_map(_Values(key, language, filled))


def plural_key(key: str, n, language: str) -> str:
    """``key``'s form for the number ``n`` (``key_one``, ``key_other``, …), the locale's ``other`` where it lacks one."""
    form = Locale.parse(LANGUAGES_INFO[language].babel).plural_form(abs(n))
    return f"{key}_{form}" if f"{key}_{form}" in STRINGS else f"{key}_other"


def forms(key: str) -> list[str]:
    """The keys a lookup of ``key`` may read: ``key`` itself, or its plural forms."""
    if key in STRINGS or f"{key}_other" not in STRINGS:
        return [key]
    return [f"{key}_{form}" for form in PLURAL_FORMS if f"{key}_{form}" in STRINGS]


def _string(key: str, language: str) -> str:
    entry = STRINGS.get(key, {})
    if entry.get(language):
        return entry[language]
    fallback = LANGUAGES_INFO[language].fallback
    other = entry.get(fallback, "") if fallback else ""
    if key not in STRINGS:
        gap(f"no string {key!r} in any language; showing nothing")
    else:
        gap(f"no {language} string for {key!r}; showing " + ("the other language's" if other else "nothing"))
    return other


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


class _Count(int):
    """A whole number whose ``{name:,}`` is grouped as the locale groups digits; other specs as an int's."""

    babel_locale = "en"

    def __format__(self, spec: str) -> str:
        return format_decimal(int(self), locale=self.babel_locale) if spec == "," else super().__format__(spec)


def _localised(value, babel_locale: str):
    if isinstance(value, bool):
        return value
    if isinstance(value, int | np.integer):
        count = _Count(value)
        count.babel_locale = babel_locale
        return count
    return shares(value)


def shares(value):
    """A number as strings write it: a float's percentages by ``app.core.numbers.percent``; anything else as is."""
    return Share(value) if isinstance(value, float | np.floating) else value


def strings_of(prefix: str) -> dict[str, dict[str, str]]:
    """The strings whose keys start ``prefix.``, by the rest of the key (``strings_of("masking")["title"]["en"]``)."""
    start = f"{prefix}."
    return {key.removeprefix(start): entry for key, entry in STRINGS.items() if key.startswith(start)}
