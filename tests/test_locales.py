"""The locale files: every language has every string with the same placeholders, Traditional Chinese is the
reviewed conversion of Simplified, plurals and numbers follow the locale, code never picks wording by a language
code, and every page draws in a pseudo-locale and in Traditional Chinese with nothing untranslated and no key."""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path

import pytest
from apptest_helpers import open_app_page

from app.core import i18n
from app.core.i18n import LANGUAGES, LANGUAGES_INFO, LOCALES_DIR, PLURAL_FORMS, STRINGS, t
from app.core.locales import traditional_files
from app.core.navigation import PAGE_FILES
from app.core.pseudo_locale import is_pseudo, pseudo
from app.lessons import data as lesson_data
from model.checkpoint import EMBEDDED_DIR

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "en"  # the language the others are checked against


def catalogue(language: str) -> dict[str, dict[str, str]]:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((LOCALES_DIR / language).glob("*.json"))
    }


def base_key(key: str, keys) -> str:
    """A plural form's key without its form (``too_few_one`` -> ``too_few``); any other key as it is."""
    stem, _, form = key.rpartition("_")
    return stem if form in PLURAL_FORMS and f"{stem}_other" in keys else key


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_a_language_is_one_folder_and_one_line():
    folders = {path.name for path in LOCALES_DIR.iterdir() if path.is_dir()}
    assert folders == set(LANGUAGES)
    assert all(LANGUAGES_INFO[code].reads in ("zh", "en") for code in LANGUAGES)


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != SOURCE])
def test_every_language_has_every_string_with_the_same_placeholders(language):
    source, other = catalogue(SOURCE), catalogue(language)
    assert set(other) == set(source), "each language has the same files"
    for name, strings in source.items():
        theirs = other[name]
        ours_by_base, theirs_by_base = {}, {}
        for key, value in strings.items():
            ours_by_base.setdefault(base_key(key, strings), set()).update(placeholders(value))
        for key, value in theirs.items():
            assert value.strip(), f"{language}/{name}: {key} is empty"
            theirs_by_base.setdefault(base_key(key, theirs), set()).update(placeholders(value))
        assert theirs_by_base.keys() == ours_by_base.keys(), f"{language}/{name}"
        for key, names in ours_by_base.items():
            assert theirs_by_base[key] == names, f"{language}/{name}: {key} has other placeholders"


def test_each_plural_string_has_its_other_form_in_every_language():
    for language in LANGUAGES:
        for name, strings in catalogue(language).items():
            plural = {base_key(key, strings) for key in strings if base_key(key, strings) != key}
            assert all(f"{stem}_other" in strings for stem in plural), f"{language}/{name}"


def test_traditional_chinese_is_the_reviewed_conversion_of_simplified():
    """``python -m app.core.locales`` writes what is there: a Simplified edit not carried over fails here."""
    on_disk = {path.name: path.read_text(encoding="utf-8") for path in (LOCALES_DIR / "zh-Hant").glob("*.json")}
    assert on_disk == traditional_files()
    assert STRINGS["attention.nav"]["zh-Hant"] == "注意力"
    assert "參數" in STRINGS["model_facts.size"]["zh-Hant"] and "引數" not in STRINGS["model_facts.size"]["zh-Hant"]
    assert STRINGS["common.default_text"]["zh-Hant"] == "我去電影院看電影，電影很好看。"


@pytest.fixture
def language(monkeypatch):
    def choose(code: str) -> None:
        monkeypatch.setattr(i18n, "lang", lambda: code)

    return choose


def test_plural_forms_and_digit_grouping_follow_the_locale(language):
    language("en")
    one = t("layers.word_error_too_few", corpus="corpus", n=1)
    many = t("layers.word_error_too_few", corpus="corpus", n=3)
    assert "has 1 sentence with" in one and "has 3 sentences with" in many
    assert "1,234,567 characters" in t("common.url_text_cut", limit=12345, n=1234567)
    language("zh-Hant")
    assert "1 個句子" in t("layers.word_error_too_few", corpus="語料", n=1)
    assert "12,345" in t("common.url_text_cut", limit=12345, n=1234567)


def test_code_never_picks_wording_by_the_interface_language():
    """A comparison of the interface language with a language code is wording chosen in Python; the text a page
    gives the model (``context.reads``) may be compared, it is data."""
    interface = re.compile(r"^(lang|lang\(\)|context\.lang|st\.session_state\[['\"]lang['\"]\]|language)$")
    found = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                codes = [s for s in sides if isinstance(s, ast.Constant) and s.value in LANGUAGES]
                if codes and any(interface.match(ast.unparse(s)) for s in sides):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not found


# --- every page, drawn in the pseudo-locale and in Traditional Chinese -----------------------------------------

_SHOWN_TYPES = {"markdown", "caption", "title", "header", "subheader", "info", "warning", "error", "success"}
_WORD = re.compile(r"[A-Za-z]{4,}")
_TOKENS = re.compile(r"\\?\[(?:MASK|CLS|SEP|PAD|UNK)\\?\]")


def shown_texts(at) -> list[tuple[str, str]]:
    """What a page shows in words: each text element's value and each widget's, expander's and tab's label."""
    found = []

    def walk(node) -> None:
        kind = getattr(node, "type", None)
        value, label = getattr(node, "value", None), getattr(node, "label", None)
        if kind in _SHOWN_TYPES and isinstance(value, str):
            found.append((kind, value))
        if isinstance(label, str) and label:
            found.append((kind, label))
        children = getattr(node, "children", None)
        for child in children.values() if isinstance(children, dict) else ():
            walk(child)

    walk(at._tree)
    return found


@pytest.fixture
def pseudo_english(monkeypatch):
    """The English strings, pseudo-localised in place (every module that imported the catalogue sees them)."""
    for key, entry in STRINGS.items():
        monkeypatch.setitem(STRINGS, key, {**entry, "en": pseudo(entry["en"])} if "en" in entry else entry)
    lesson_data.lessons.cache_clear()
    yield
    lesson_data.lessons.cache_clear()


def raw_keys(texts: list[tuple[str, str]]) -> list[str]:
    keys = re.compile(r"\b[a-z_]+\.[a-z0-9_\-]+\b")
    return [found for _, text in texts for found in keys.findall(text) if found in STRINGS]


@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_page_draws_in_the_pseudo_locale_with_nothing_untranslated(page, pseudo_english):
    at = open_app_page(page, "en")
    texts = shown_texts(at)
    assert texts
    card = (EMBEDDED_DIR / "README.md").read_text(encoding="utf-8").strip()  # the model card: a document, in English
    untranslated = [
        (kind, text[:80])
        for kind, text in texts
        if _WORD.search(_TOKENS.sub("", text)) and not is_pseudo(text) and text.strip() != card
    ]
    assert not untranslated
    assert not raw_keys(texts)


@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_page_draws_in_traditional_chinese(page):
    at = open_app_page(page, "zh-Hant")
    assert [title.value for title in at.title][:1] == [STRINGS[f"{page}.title"]["zh-Hant"]]
    assert at.sidebar.radio[0].value == "zh-Hant"
    assert not raw_keys(shown_texts(at))
