"""Whole-word masking: one word segmentation (WordPiece runs, jieba for Chinese) for pre-training and the masking page."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from app.masking import logic as lab
from model.checkpoint import EMBEDDED_DIR
from model.tokenization import BertTokenizer
from model.training import batching, pretrain, pretrain_job
from model.training.pretraining_data import NOT_CHOSEN, mask_tokens, random_token_pool, whole_word_ids


@pytest.fixture(scope="module")
def tokenizer() -> BertTokenizer:
    return BertTokenizer.from_folder(EMBEDDED_DIR)


def _words(tokens: list[str]) -> list[list[str]]:
    grouped: dict[int, list[str]] = {}
    for token, word in zip(tokens, whole_word_ids(tokens)):
        grouped.setdefault(word, []).append(token)
    return list(grouped.values())


def test_wordpiece_continuations_join_the_word_before_them():
    assert _words(["[CLS]", "una", "##ffa", "##ble", "cinema", ",", "door", "##s", "[SEP]"]) == [
        ["[CLS]"],
        ["una", "##ffa", "##ble"],
        ["cinema"],
        [","],
        ["door", "##s"],
        ["[SEP]"],
    ]


def test_chinese_characters_are_grouped_into_jieba_words():
    tokens = ["[CLS]", *"他坐飞机去上海", "。", *"外面下着大雨", "[SEP]"]
    words = ["".join(w) for w in _words(tokens)]
    assert "飞机" in words or "坐飞机" in words
    assert "上海" in words and "外面" in words
    assert words[0] == "[CLS]" and words[-1] == "[SEP]" and "。" in words
    assert "".join(words) == "".join(tokens)  # every token in exactly one word, in order


def test_every_piece_of_a_chosen_word_is_chosen_with_it(tokenizer):
    enc = tokenizer.encode("The unaffable neighbours watched television. 我们明天坐飞机去上海看电影。")
    word_ids = whole_word_ids(enc.tokens)
    assert len(set(word_ids)) < len(word_ids) - 4  # several words of several pieces
    candidates = torch.tensor([not s for s in enc.special])
    for seed in range(40):
        result = mask_tokens(
            torch.tensor(enc.ids),
            candidates,
            mask_token_id=tokenizer.mask_token_id,
            random_token_ids=random_token_pool(tokenizer),
            generator=torch.Generator().manual_seed(seed),
            word_ids=word_ids,
            rate=0.3,
        )
        chosen = (result.outcome != NOT_CHOSEN).tolist()
        for word in set(word_ids):
            assert len({chosen[i] for i, w in enumerate(word_ids) if w == word}) == 1


def test_whole_word_rate_stays_about_15_percent_of_tokens(tokenizer):
    """Over pre-training's own batches of mixed English and Chinese, whole words still cover ~15% of the tokens."""
    rng = np.random.default_rng(0)
    en = "the unaffable neighbours watched television while their children played happily outside".split()
    zh = list("我们明天坐飞机去上海看电影外面下着大雨他的朋友在图书馆里认真学习中文")
    docs = []
    for _ in range(40):
        english = " ".join(rng.choice(en, 12)) + "."
        chinese = "".join(rng.choice(zh, 20)) + "。"
        docs.append([np.array(tokenizer.encode(english).ids[1:-1]), np.array(tokenizer.encode(chinese).ids[1:-1])])
    corpus = batching.TokenizedCorpus(docs * 2, ["en"] * 40 + ["zh"] * 40)
    settings = pretrain.PretrainSettings(batch_size=64, seq_len=48, short_seq_prob=0.0, whole_word=True)
    stream = batching.batches(corpus, tokenizer, settings, seed=0)
    chosen = candidates = 0
    for _ in range(4):
        batch = next(stream)
        chosen += int((batch["mlm_labels"] != -100).sum())
        ids = batch["input_ids"]
        candidates += int(((ids != tokenizer.pad_token_id) & (ids != tokenizer.cls_token_id)).sum()) - 2 * len(ids)
    assert chosen / candidates == pytest.approx(0.15, abs=0.015)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("unaffable neighbours watched.", "the doors opened very slowly."),
        ("我们明天坐飞机去上海。", "外面下着大雨他没出门。"),
    ],
)
def test_the_masking_page_and_pre_training_choose_the_same_positions(tokenizer, a, b):
    """Pre-training's batch stream and the page's draw, same sentence pair and same seed: the same whole words."""
    ids_a, ids_b = (np.array(tokenizer.encode(s).ids[1:-1]) for s in (a, b))
    assert len(ids_a) == len(ids_b)  # any pairing of the two fills the row exactly: no padding changes the draw
    corpus = batching.TokenizedCorpus([[ids_a, ids_b]], ["en"])
    settings = pretrain.PretrainSettings(batch_size=1, seq_len=2 * len(ids_a) + 3, short_seq_prob=0.0, whole_word=True)
    for seed in range(6):
        batch = next(batching.batches(corpus, tokenizer, settings, seed=seed, languages=["en"]))
        labels = batch["mlm_labels"][0]
        original = torch.where(labels != -100, labels, batch["input_ids"][0]).tolist()
        split = original.index(tokenizer.sep_token_id)
        first, second = (tokenizer.decode(original[1:split]), tokenizer.decode(original[split + 1 : -1]))
        enc = tokenizer.encode(first, pair=second)
        assert enc.ids == original
        draw = lab.draw_masking(enc, tokenizer, seed=seed, settings=lab.MaskingSettings(whole_word=True))
        assert draw.chosen == (labels != -100).nonzero().flatten().tolist()
        assert draw.read_ids == batch["input_ids"][0].tolist()


def test_pretrain_whole_word_flag_reaches_both_presets(monkeypatch):
    from model.cli import main
    from model.training import live

    used = []
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)  # the live preset's one thread would outlive the test
    monkeypatch.setattr(pretrain_job, "run_job", lambda job, settings, on_step=None: used.append(settings))
    monkeypatch.setattr(live, "run_live", lambda lang, settings, **callbacks: used.append(settings) or [])
    assert main(["pretrain", "--init", "embedded", "--steps", "1", "--whole-word"]) == 0
    assert main(["pretrain", "--preset", "live", "--steps", "1", "--whole-word"]) == 0
    assert main(["pretrain", "--init", "embedded", "--steps", "1"]) == 0
    assert [s.whole_word for s in used] == [True, True, False]
    # SpanBERT's masking likewise (issue 57)
    assert main(["pretrain", "--init", "embedded", "--steps", "1", "--span-masking"]) == 0
    assert main(["pretrain", "--preset", "live", "--steps", "1", "--span-masking"]) == 0
    assert [s.span_masking for s in used] == [False, False, False, True, True]


def test_whole_words_in_training_batches_but_token_level_held_out_batches(tokenizer, monkeypatch):
    """Held-out batches stay token-level in a whole-word run, so its scores compare with every earlier run's."""
    segmented = []

    def spy(tokens):
        segmented.append(list(tokens))
        return whole_word_ids(tokens)

    monkeypatch.setattr(batching, "whole_word_ids", spy)
    ids = np.array(tokenizer.encode("The unaffable neighbours watched television.").ids[1:-1])
    corpus = batching.TokenizedCorpus([[ids, ids]] * 2, ["en"] * 2)
    settings = pretrain.PretrainSettings(batch_size=2, seq_len=32, eval_batches=1, whole_word=True)
    batching.fixed_eval_batches(corpus, tokenizer, settings)
    assert segmented == []
    next(batching.batches(corpus, tokenizer, settings, seed=0, languages=["en"]))
    assert len(segmented) == 2


def test_the_masking_page_masks_chinese_words_whole(tokenizer):
    from apptest_helpers import open_app_page

    text = "我们明天坐飞机去上海看电影。"
    at = open_app_page("masking", "zh", text=text, masking_whole_word=True, masking_rate=40, masking_seed=5)
    positions = [p - 1 for p in at.dataframe[0].value.iloc[:, 0]]  # the table counts from 1, [CLS] first
    settings = lab.MaskingSettings(rate=0.4, whole_word=True)
    expected = lab.draw_masking(tokenizer.encode(text), tokenizer, seed=5, settings=settings)
    assert positions == expected.chosen
    words = whole_word_ids(expected.tokens)
    assert any(words.count(words[p]) > 1 for p in positions)  # at least one word of two characters was taken whole
    for p in positions:
        assert all(q in positions for q, w in enumerate(words) if w == words[p])


def test_the_model_card_says_when_a_run_masked_whole_words():
    from model.training import card

    run = {"steps": 10, "batch_size": 2, "seq_len": 8, "seconds": 5, "device": "cpu", "command": "python -m model"}
    assert not any("Whole-word" in line for line in card._run_lines(1, run))
    assert any("Whole-word masking" in line for line in card._run_lines(1, {**run, "whole_word": True}))
