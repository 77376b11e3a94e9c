"""What a missing string does: in tests (``BERT_LAB_STRICT_STRINGS``, set by conftest.py) it raises, naming the key;
in the app it is logged, and the student sees the other language's string, nothing, or "…", never a raw key."""

from __future__ import annotations

import logging
import os

import pytest
from apptest_helpers import open_app_page, start_app_page

from app.core import i18n
from app.core.i18n import GAP, STRICT_ENV, MissingStringError, t


@pytest.fixture
def strings(monkeypatch):
    """A catalogue of test strings, read in English."""
    monkeypatch.setattr(i18n, "lang", lambda: "en")
    monkeypatch.setattr(i18n, "_logged", set())
    for key, entry in {
        "test.both": {"en": "Layer {layer}, {share:.0%}", "zh": "第 {layer} 层，{share:.0%}"},
        "test.chinese_only": {"en": "", "zh": "只有中文"},
    }.items():
        monkeypatch.setitem(i18n.STRINGS, key, entry)


@pytest.fixture
def in_the_app(monkeypatch):
    monkeypatch.delenv(STRICT_ENV, raising=False)


def test_the_tests_run_strict():
    assert os.environ.get(STRICT_ENV) == "1"


def test_in_tests_a_missing_key_language_or_value_raises_and_names_it(strings):
    assert t("test.both", layer=3, share=0.25) == "Layer 3, 25%"
    with pytest.raises(MissingStringError, match="'test.nowhere'"):
        t("test.nowhere")
    with pytest.raises(MissingStringError, match="no en string for 'test.chinese_only'"):
        t("test.chinese_only")
    with pytest.raises(MissingStringError, match=r"no value for \{share\} in 'test.both' \(en\); given layer"):
        t("test.both", layer=3)


def test_in_the_app_a_gap_is_logged_once_and_shows_no_key(strings, in_the_app, caplog):
    with caplog.at_level(logging.WARNING, logger="app.core.i18n"):
        assert t("test.nowhere") == ""
        assert t("test.nowhere") == ""  # a page reruns on every click: the log says it once
        assert t("test.chinese_only") == "只有中文"  # the other language's string beats none
        assert t("test.both", layer=3) == f"Layer 3, {GAP}"  # whatever the placeholder's format
        assert t("test.both") == "Layer {layer}, {share:.0%}"  # no values: a template that chart code fills
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 3
    assert "'test.nowhere'" in messages[0]
    assert "'test.chinese_only'" in messages[1] and "other language" in messages[1]
    assert "{share}" in messages[2] and "'test.both'" in messages[2]


def test_a_page_missing_a_string_fails_its_test_but_serves_the_student(monkeypatch, caplog):
    """The overview's guide without one page's line: the strict run stops on the key; the app's run draws the page,
    the link without its text, and logs the key."""
    monkeypatch.delitem(i18n.STRINGS, "lessons.guide")
    strict = start_app_page("overview")
    assert strict.exception and "lessons.guide" in strict.exception[0].message

    monkeypatch.delenv(STRICT_ENV)
    monkeypatch.setattr(i18n, "_logged", set())
    with caplog.at_level(logging.WARNING, logger="app.core.i18n"):
        served = open_app_page("overview")
    shown = [m.value for m in served.markdown] + [link.proto.label for link in served.get("page_link")]
    assert not any("lessons.guide" in text for text in shown)
    assert any("'lessons.guide'" in record.getMessage() for record in caplog.records)
