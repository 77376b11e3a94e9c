"""Text in a script the vocabulary lacks: the sidebar names the script in the reader's language. Tokens shown
beside other text are bidirectionally isolated, so right-to-left text keeps its order beside the rest."""

from __future__ import annotations

import pytest
from apptest_helpers import open_app_page

from app.core.i18n import strings_of
from app.core.tokens import isolated, missing_scripts
from model.checkpoint import load

TEXT = strings_of("common")


@pytest.fixture(scope="module")
def tokenizer():
    return load("embedded").tokenizer


def scripts(tokenizer, text: str) -> list[str]:
    return missing_scripts(text, tokenizer.encode(text), tokenizer.unk_token_id)


def test_a_script_read_only_letter_by_letter_or_as_unk_is_named_once(tokenizer):
    assert tokenizer.encode("مرحبا").tokens[1:3] == ["م", "##ر"]  # kept as letters, never as words
    assert scripts(tokenizer, "مرحبا بالعالم שלום café 中文 😀") == ["ARABIC", "HEBREW"]
    assert scripts(tokenizer, "привет мир") == ["CYRILLIC"]
    assert scripts(tokenizer, "😀🎬 The cat 我去看电影") == []


def test_a_script_with_whole_word_pieces_is_read(tokenizer):
    from model.tokenization import Encoding

    # As a multilingual vocabulary would split it: "مرحبا" in one piece.
    enc = Encoding(
        [2, 7, 3],
        ["[CLS]", "مرحبا", "[SEP]"],
        [0, 0, 0],
        [(0, 0), (0, 5), (0, 0)],
        [True, False, True],
        [None, 0, None],
        False,
    )
    assert missing_scripts("مرحبا", enc, tokenizer.unk_token_id) == []


def test_isolated_wraps_in_first_strong_isolate():
    assert isolated("مرحبا") == "\u2068مرحبا\u2069"


@pytest.mark.parametrize(("lang", "name"), [("en", "Arabic"), ("zh", "阿拉伯文"), ("zh-Hant", "阿拉伯文")])
def test_the_sidebar_names_a_script_the_vocabulary_lacks(lang, name):
    at = open_app_page("fill_mask", lang, text="مرحبا بالعالم [MASK] 50%")
    warnings = [w.value for w in at.sidebar.warning]
    assert TEXT["unknown_script"][lang].format(scripts=name) in warnings


def test_english_and_chinese_text_names_no_script():
    at = open_app_page("fill_mask", "en", text="The cat sat on the [MASK]. 我去看电影。")
    assert not at.sidebar.warning
