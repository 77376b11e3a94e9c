"""app.core.attention_stats on attention matrices made by hand, where every statistic is known exactly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from app.core.attention_stats import (
    STATISTICS,
    attentions_json,
    displayed_map,
    head_statistics,
    hide_special,
    map_rows,
    notable_heads,
    select_map,
    sentence_b_start,
    statistics_rows,
)

TOKENS = ["[CLS]", "我", "爱", "学", "习", "[SEP]"]  # T = 6
SPECIAL = [True, False, False, False, False, True]  # what the tokenizer flags for these tokens
T = len(TOKENS)


def uniform() -> np.ndarray:
    return np.full((T, T), 1 / T)


def identity() -> np.ndarray:
    return np.eye(T)


def previous() -> np.ndarray:
    """Row i puts everything on i-1; row 0 has no left neighbour and looks at itself."""
    m = np.zeros((T, T))
    m[0, 0] = 1
    m[np.arange(1, T), np.arange(T - 1)] = 1
    return m


def on_sep() -> np.ndarray:
    m = np.zeros((T, T))
    m[:, T - 1] = 1
    return m


def stack(*heads_per_layer: list[np.ndarray]) -> np.ndarray:
    return np.array([np.stack(heads) for heads in heads_per_layer])  # (L, nh, T, T)


def stats_of(matrix: np.ndarray, special=SPECIAL) -> dict[str, float]:
    result = head_statistics(matrix[None, None], special)
    return {name: float(result[name][0, 0]) for name in STATISTICS}


def test_uniform_attention():
    s = stats_of(uniform())
    assert s["entropy"] == pytest.approx(np.log2(T))
    assert s["cls"] == pytest.approx(1 / T)
    assert s["sep"] == pytest.approx(1 / T)
    for name in ("self", "previous", "next"):
        assert s[name] == pytest.approx(1 / T)


def test_identity_attention_is_all_self_and_zero_entropy():
    s = stats_of(identity())
    assert s == pytest.approx({"entropy": 0.0, "cls": 1 / T, "sep": 1 / T, "self": 1.0, "previous": 0.0, "next": 0.0})


def test_previous_token_head():
    s = stats_of(previous())
    assert s["previous"] == pytest.approx(1.0)  # every row that has a left neighbour
    assert s["next"] == 0.0 and s["entropy"] == 0.0
    assert s["cls"] == pytest.approx(2 / T)  # rows 0 and 1 look at position 0
    assert s["self"] == pytest.approx(1 / T)


def test_sep_shares_count_every_sep():
    s = stats_of(on_sep())
    assert s["sep"] == 1.0 and s["cls"] == 0.0
    pair_tokens = ["[CLS]", "a", "[SEP]", "b", "[SEP]"]
    m = np.zeros((5, 5))
    m[:, 2] = 0.25
    m[:, 4] = 0.75
    assert stats_of(m, pair_tokens)["sep"] == pytest.approx(1.0)


def test_causal_matrix_has_no_next_token_share():
    lower = np.tril(np.ones((T, T)))
    causal = lower / lower.sum(axis=1, keepdims=True)
    s = stats_of(causal)
    assert s["next"] == 0.0
    # Row i spreads over i + 1 tokens: entropy log2(i + 1), averaged.
    assert s["entropy"] == pytest.approx(np.mean(np.log2(np.arange(1, T + 1))))


def test_shapes_per_layer_and_head_and_notable_heads():
    attn = stack([uniform(), identity(), previous()], [on_sep(), uniform(), uniform()])  # (2, 3, T, T)
    stats = head_statistics(attn, SPECIAL)
    assert all(stats[name].shape == (2, 3) for name in STATISTICS)
    found = {n.kind: (n.layer, n.head) for n in notable_heads(stats)}
    assert found["previous"] == (0, 2)
    assert found["sep"] == (1, 0)
    assert found["self"] == (0, 1)
    assert found["broad"] in {(0, 0), (1, 1), (1, 2)}
    assert found["focused"] in {(0, 1), (0, 2), (1, 0)}
    assert [n.kind for n in notable_heads(stats)] == ["focused", "broad", "cls", "sep", "self", "previous", "next"]


def test_a_share_no_head_has_is_not_offered_as_notable():
    stats = head_statistics(stack([identity(), previous()]), SPECIAL)  # causal heads: nobody looks at the next token
    assert stats["next"].max() == 0
    assert [n.kind for n in notable_heads(stats)] == ["focused", "broad", "cls", "sep", "self", "previous"]


def test_single_token_and_bad_shapes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "mean of empty slice"
        s = stats_of(np.ones((1, 1)), [True])
    assert s["previous"] == 0.0 and s["next"] == 0.0 and s["cls"] == 1.0
    with pytest.raises(ValueError):
        head_statistics(np.ones((1, 1, 3, 3)) / 3, SPECIAL)


def test_select_map_head_and_average():
    attn = stack([identity(), uniform()])
    assert np.array_equal(select_map(attn, 0, 0), identity())
    assert np.allclose(select_map(attn, 0, None), (identity() + uniform()) / 2)


def test_hide_special_renormalised_and_as_is():
    m = uniform()
    hidden, kept = hide_special(m, TOKENS, SPECIAL, renormalize=False)
    assert kept == ["我", "爱", "学", "习"]
    assert hidden.shape == (4, 4) and np.allclose(hidden.sum(axis=1), 4 / T)
    renormed, _ = hide_special(m, TOKENS, SPECIAL, renormalize=True)
    assert np.allclose(renormed.sum(axis=1), 1.0)


def test_hide_special_row_that_only_looked_at_specials_stays_zero():
    renormed, _ = hide_special(on_sep(), TOKENS, SPECIAL, renormalize=True)
    assert not np.isnan(renormed).any() and np.all(renormed == 0)


def test_hide_special_keeps_everything_when_only_specials_exist():
    matrix, kept = hide_special(np.eye(2), ["[CLS]", "[SEP]"], [True, True], renormalize=True)
    assert kept == ["[CLS]", "[SEP]"] and np.array_equal(matrix, np.eye(2))


def test_displayed_map():
    attn = stack([uniform(), identity()])
    matrix, kept = displayed_map(attn, TOKENS, SPECIAL, 0, 1)
    assert kept == TOKENS and np.array_equal(matrix, identity())
    matrix, kept = displayed_map(attn, TOKENS, SPECIAL, 0, None, hide=True, renormalize=True)
    assert len(kept) == 4 and np.allclose(matrix.sum(axis=1), 1.0)


def test_hide_special_follows_the_flags_not_the_token_text():
    matrix, kept = hide_special(uniform(), ["[CLS]", "a", "[SEP]", "b", "c", "[SEP]"], SPECIAL, renormalize=False)
    assert kept == ["a", "[SEP]", "b", "c"] and matrix.shape == (4, 4)


def test_cls_and_sep_shares_come_from_the_flags():
    s = stats_of(on_sep())
    assert s["sep"] == 1.0 and s["cls"] == 0.0
    first = np.zeros((T, T))
    first[:, 0] = 1
    s = stats_of(first)
    assert s["cls"] == 1.0 and s["sep"] == 0.0


def test_sentence_b_start():
    assert sentence_b_start([0, 0, 0, 1, 1]) == 3
    assert sentence_b_start([0, 0, 0]) is None


def test_tables_and_json():
    attn = stack([uniform(), identity()], [previous(), on_sep()])
    stats = head_statistics(attn, SPECIAL)
    header, rows = statistics_rows(stats)
    assert header == ["layer", "head", *STATISTICS] and len(rows) == 4
    assert rows[1][:2] == [0, 1] and rows[1][header.index("self")] == 1.0

    header, rows = map_rows({"bidirectional": identity(), "causal": previous()}, TOKENS)
    assert header[2:] == TOKENS and len(rows) == 2 * T
    assert rows[0][:2] == ["bidirectional", "[CLS]"] and rows[T][0] == "causal"

    data = attentions_json(TOKENS, [0] * T, {"bidirectional": attn / 3})
    assert np.array(data["bidirectional"]).shape == (2, 2, T, T)
    assert data["bidirectional"][0][0][0][0] == round(1 / 18, 4)
    assert data["tokens"] == TOKENS
