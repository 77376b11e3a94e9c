"""One convention everywhere: what two pages both show, they show in the same unit.

Entropy is in bits (log base 2) on every page: the attention page's head statistics (``app.core.attention_stats``)
and the head lab's (``model.analysis.heads``) compute the same number for the same attention, and no page string
gives an entropy in nats unless it also gives it in bits (a paper's figure quoted in its own unit).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from app.core import attention_stats
from app.core.i18n import STRINGS
from model.analysis import heads


def random_attention(seed: int, tokens: int = 7) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=(2, 3, tokens, tokens)) * 2
    attn = np.exp(logits)
    return attn / attn.sum(-1, keepdims=True)  # (L, nh, T, T), rows sum to 1


@pytest.mark.parametrize("seed", range(3))
def test_both_pages_give_the_same_entropy_in_bits(seed):
    attn = random_attention(seed)
    tokens = ["[CLS]", "a", "b", ",", "c", "d", "[SEP]"]
    special = [t in ("[CLS]", "[SEP]") for t in tokens]
    ours = attention_stats.head_statistics(attn, special)["entropy"]
    lab = heads.map_features(attn, tokens)["entropy"]
    np.testing.assert_allclose(ours, lab, rtol=1e-9)
    by_hand = -(attn * np.log2(attn)).sum(-1).mean(-1)
    np.testing.assert_allclose(lab, by_hand, rtol=1e-9)


def test_an_even_spread_over_four_tokens_is_two_bits():
    attn = np.full((1, 1, 4, 4), 0.25)
    tokens = ["[CLS]", "a", "b", "[SEP]"]
    assert heads.map_features(attn, tokens)["entropy"][0, 0] == pytest.approx(2.0)
    assert attention_stats.head_statistics(attn, [True, False, False, True])["entropy"][0, 0] == pytest.approx(2.0)


NATS = re.compile(r"\bnats?\b|奈特|\bnat[）)]")
BITS = re.compile(r"\bbits?\b|比特")


def test_no_page_gives_an_entropy_in_nats_alone():
    entropy_strings = [
        (key, lang, text)
        for key, entry in STRINGS.items()
        for lang, text in entry.items()
        if re.search(r"entropy|熵", text, re.IGNORECASE)
    ]
    assert len(entropy_strings) > 8  # the attention page's and the head lab's, in both languages
    for key, lang, text in entropy_strings:
        if NATS.search(text):
            assert BITS.search(text), f"{key} ({lang}) gives an entropy in nats only: {text}"
        if re.search(r"\((bits|nats)\)|（(比特|nat)）", text):
            assert BITS.search(text), f"{key} ({lang}): {text}"
