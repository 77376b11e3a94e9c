"""The baselines a fine-tuned sentence classifier is shown against: majority class, bag of characters."""

from __future__ import annotations

import random

import pytest

from model.training.baselines import bag_of_characters_accuracy, majority_accuracy, text_units


def test_majority_accuracy_is_the_most_common_labels_share():
    assert majority_accuracy([0, 1, 1, 2, 1]) == pytest.approx(0.6)
    assert majority_accuracy([]) == 0.0


def test_units_are_chinese_characters_and_english_words():
    assert text_units("我爱Python 3!") == {"我", "爱", "python", "3", "!"}
    assert text_units("The cat, the CAT.") == {"the", "cat", ",", "."}


def reviews(n: int, seed: int) -> list[tuple[str, int]]:
    """Made-up reviews whose label is decided by one character, 好 or 坏, among random filler."""
    rng = random.Random(seed)
    filler = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面"
    rows = []
    for _ in range(n):
        label = rng.randrange(2)
        chars = rng.sample(filler, 8) + ["好" if label else "坏"]
        rng.shuffle(chars)
        rows.append(("".join(chars), label))
    return rows


def test_bag_of_characters_learns_a_character_rule_and_is_deterministic():
    train, heldout = reviews(200, 0), reviews(100, 1)
    accuracy = bag_of_characters_accuracy(train, heldout, 2)
    assert accuracy >= 0.95
    assert bag_of_characters_accuracy(train, heldout, 2) == accuracy  # zero start, full batch: no seed needed


def test_bag_of_characters_without_a_signal_stays_near_chance():
    rng = random.Random(2)
    train = [(text, rng.randrange(2)) for text, _ in reviews(200, 0)]  # labels no longer follow 好/坏
    heldout = [(text, rng.randrange(2)) for text, _ in reviews(400, 1)]
    assert 0.35 <= bag_of_characters_accuracy(train, heldout, 2) <= 0.65
