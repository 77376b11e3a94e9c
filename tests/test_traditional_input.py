"""Traditional Chinese typed into a model whose vocabulary was built from Simplified text: after
``fold_traditional()`` (the app's models all have it) a Traditional character the vocabulary lacks is read as its
Simplified form, offsets still point at what was typed, and characters the vocabulary has are read as they are."""

from __future__ import annotations

import pytest
from apptest_helpers import open_app_page

from app.core import models
from app.core.i18n import STRINGS
from model.checkpoint import EMBEDDED_DIR
from model.data import sentence_index
from model.tokenization import BertTokenizer


@pytest.fixture(scope="module")
def tokenizers():
    plain, folding = BertTokenizer.from_folder(EMBEDDED_DIR), BertTokenizer.from_folder(EMBEDDED_DIR)
    folding.fold_traditional()
    return plain, folding


def test_a_character_the_vocabulary_lacks_is_read_in_its_simplified_form(tokenizers):
    plain, folding = tokenizers
    text = "我去機場，這本書很好。"
    assert plain.token_to_id("機") is None and plain.token_to_id("机") is not None
    unfolded, folded = plain.encode(text), folding.encode(text)
    assert "[UNK]" in unfolded.tokens and "[UNK]" not in folded.tokens  # without the fold: transformers' [UNK]
    assert folded.tokens[3] == "机" and text[slice(*folded.offsets[3])] == "機"  # offsets into the typed text
    assert folded.tokens[6] == "这"
    assert folding.unknown_spans(text) == []


def test_simplified_text_and_characters_the_vocabulary_has_are_read_as_they_are(tokenizers):
    plain, folding = tokenizers
    for text in ("他是一位著名的作家。", "衣服晒乾了，我们去电影院。", "A lamp opened the quiet door."):
        assert folding.encode(text).ids == plain.encode(text).ids
    kept = "場"  # in the vocabulary (a few Traditional sentences reached it): read as it is without the record
    assert plain.token_to_id(kept) is not None and folding.tokenize(kept) == [kept]


def test_a_character_the_model_rarely_read_is_read_in_its_simplified_form():
    """The folder's record names the Traditional characters the model read 20 times less often than their
    Simplified forms: 飛 and 場 are in the vocabulary, but the model learned 飞 and 场."""
    rarely_read = sentence_index.read_as_simplified(EMBEDDED_DIR)
    assert {"飛", "場", "電", "機"} <= set(rarely_read) and "著" not in rarely_read  # 著名: a Simplified word too
    folding = BertTokenizer.from_folder(EMBEDDED_DIR)
    folding.fold_traditional(rarely_read)
    assert folding.tokenize("他坐飛機去機場。") == list("他坐飞机去机场。")
    assert folding.tokenize("他是一位著名的作家。") == list("他是一位著名的作家。")
    assert sentence_index.read_as_simplified(None) == ""


def test_the_fill_mask_page_in_traditional_chinese_reads_what_the_student_types():
    text = "我去機場坐飛[MASK]。"
    at = open_app_page("fill_mask", "zh-Hant", text=text)
    unknown = STRINGS["common.unknown_tokens"]["zh-Hant"].split("{")[0]
    assert not [c.value for c in at.sidebar.caption if c.value.startswith(unknown)]  # nothing read as [UNK]
    top = models.fill_mask("embedded", text, 3, False).masks[0].predictions[0].token
    assert top == "机"  # 飛機: the model reads 機場 as 机场
