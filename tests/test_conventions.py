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


# Colour roles: a legend's colours stay apart for readers with a colour-vision deficiency. Colours are simulated
# with Machado, Oliveira & Fernandes (2009), severity 1, on linear RGB, and compared by CIE76 distance in L*a*b*.
CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
WHITE = np.array([0.95047, 1.0, 1.08883])


def lab_seen(colour: str, vision: str | None) -> np.ndarray:
    rgb = np.array([int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    if vision is not None:
        linear = np.clip(np.array(CVD[vision]) @ linear, 0, 1)
    xyz = SRGB_TO_XYZ @ linear / WHITE
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pair(colours) -> float:
    return min(
        float(np.linalg.norm(lab_seen(a, vision) - lab_seen(b, vision)))
        for vision in (None, *CVD)
        for i, a in enumerate(colours)
        for b in colours[i + 1 :]
    )


def test_the_masking_legend_keeps_its_five_roles_apart_in_every_vision():
    """The three outcomes of a chosen token take three of the palette's light hues; the two other roles (not
    chosen, never a candidate) must be no closer to anything than those three hues are to one another, under
    normal vision and each simulated deficiency. "Never a candidate" was a pale blue, 8.5 from "unchanged" under
    protanopia, closer than any two of the hues."""
    from app.masking.charts import OUTCOME_COLORS

    hues = OUTCOME_COLORS[1:4]  # [MASK], random, unchanged
    assert closest_pair(OUTCOME_COLORS) >= closest_pair(hues)
    assert len(set(OUTCOME_COLORS)) == len(OUTCOME_COLORS)
