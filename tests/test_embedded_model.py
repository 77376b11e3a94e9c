"""The model we ship: complete, small, documented, bilingual, and predicting sensibly offline."""

from __future__ import annotations

import pytest

from model import inference
from model.checkpoint import EMBEDDED_DIR, load
from model.data.sources import SOURCES
from model.training.card import PROBES

# How many of the everyday probes (model/card.py) must have an accepted answer in the top 5. A model that
# knows only word frequencies answers "the", "，", "的" everywhere and scores 0 of 26 in both languages.
MIN_PROBE_HITS = {"en": 21, "zh": 22}


@pytest.fixture(scope="module")
def bundle():
    return load("embedded")


def test_folder_is_complete_and_small():
    for name in (
        "config.json",
        "model.safetensors",
        "vocab.txt",
        "tokenizer.json",
        "tokenizer_config.json",
        "README.md",
    ):
        assert (EMBEDDED_DIR / name).exists(), name
    assert (EMBEDDED_DIR / "model.safetensors").stat().st_size < 60 * 2**20


def test_loads_strictly_with_every_head_trained(bundle):
    assert bundle.fresh_keys == []
    assert not bundle.model.training


def test_model_card_names_initialisation_sources_and_metrics(bundle):
    card = bundle.card
    assert "all-MiniLM-L6-v2" in card and "Apache" in card
    for source in SOURCES:
        assert source["name"] in card and source["licence"] in card
    assert "MLM top-1" in card and "NSP accuracy" in card
    for lang in ("en", "zh"):
        assert f"| {lang} |" in card


def test_chinese_is_one_character_per_token_and_english_is_lower_cased(bundle):
    enc = bundle.tokenizer.encode("我去电影院看电影 She OPENED the door")
    assert enc.tokens[1:9] == list("我去电影院看电影")
    assert "[UNK]" not in enc.tokens
    assert "opened" in enc.tokens


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_everyday_probes_make_sense(bundle, lang):
    hits, tops = 0, []
    for text, accepted in PROBES[lang]:
        top = [p.token for p in inference.fill_mask(bundle, text, top_k=5).masks[0].predictions]
        tops.append(top)
        hits += any(token in accepted for token in top)
    assert hits >= MIN_PROBE_HITS[lang], tops
    # Not a frequency table: the best guess depends on the sentence.
    assert len({top[0] for top in tops}) >= len(tops) // 2, tops


def test_source_example_sees_both_sides(bundle):
    """我去[MASK]场看电影: with the right context the model's guesses change; causally they cannot."""
    both = inference.fill_mask(bundle, "我去[MASK]场看电影。", top_k=5).masks[0].predictions
    other = inference.fill_mask(bundle, "我去[MASK]店买面包。", top_k=5).masks[0].predictions
    assert [p.token for p in both] != [p.token for p in other]
    left_a = inference.fill_mask(bundle, "我去[MASK]场看电影。", top_k=5, causal=True).masks[0].predictions
    left_b = inference.fill_mask(bundle, "我去[MASK]店买面包。", top_k=5, causal=True).masks[0].predictions
    assert [(p.token, round(p.prob, 5)) for p in left_a] == [(p.token, round(p.prob, 5)) for p in left_b]


def test_the_english_example_of_the_gpt_versus_bert_page_makes_its_point(bundle):
    """Only the right side says where one swims: BERT should find it, a left-to-right reading cannot."""
    text = "He went to the [MASK] to swim."
    water = {"river", "pool", "lake", "sea", "beach", "water", "ocean", "boat", "shore"}
    both = [p.token for p in inference.fill_mask(bundle, text, top_k=5).masks[0].predictions]
    left = [p.token for p in inference.fill_mask(bundle, text, top_k=5, causal=True).masks[0].predictions]
    assert len(water & set(both)) >= 2, both
    assert not water & set(left), left


def test_next_sentence_prediction_prefers_the_true_continuation(bundle):
    good = inference.next_sentence(bundle, "我去看电影。", "电影很好看。").is_next
    bad = inference.next_sentence(bundle, "我去看电影。", "苹果很好吃。").is_next  # the seed notes own pair
    assert good > bad
