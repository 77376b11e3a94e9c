"""GPT versus BERT made live: the same weights read causally and bidirectionally.

Pure helpers for the page: head-averaged attention, how much of it falls to the right of each token, what a
[MASK] position can see, and the download rows. The two heatmaps are ``app.core.shared_charts.paired_maps``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MAX_HEATMAP_TOKENS = 64  # beyond this a token-by-token heatmap is unreadable and heavy to send


def mean_over_heads(attentions: np.ndarray, layer: int = -1) -> np.ndarray:
    """One layer's attention averaged over its heads: (L, nh, T, T) -> (T, T); rows still sum to 1."""
    attentions = np.asarray(attentions, dtype=float)
    if attentions.ndim != 4 or attentions.shape[-1] != attentions.shape[-2]:
        raise ValueError(f"expected attentions of shape (L, heads, T, T), got {attentions.shape}")
    return attentions[layer].mean(axis=0)


def upper_triangle_share(matrix: np.ndarray) -> float:
    """The share of all attention that goes to tokens on the right (strictly above the diagonal).

    Zero for a causal model by construction; a bidirectional one spends part of its attention there.
    """
    matrix = np.asarray(matrix, dtype=float)
    total = matrix.sum()
    return float(np.triu(matrix, k=1).sum() / total) if total > 0 else 0.0


def visible_tokens(tokens: Sequence[str], index: int, causal: bool) -> list[str]:
    """The tokens position ``index`` may attend to: itself and its left when causal, all of them otherwise."""
    if not 0 <= index < len(tokens):
        raise IndexError(f"position {index} outside 0..{len(tokens) - 1}")
    return list(tokens[: index + 1]) if causal else list(tokens)


def crop(matrix: np.ndarray, tokens: Sequence[str], limit: int = MAX_HEATMAP_TOKENS) -> tuple[np.ndarray, list[str]]:
    """The top-left ``limit`` × ``limit`` corner and its tokens (the first tokens attending among themselves)."""
    n = min(limit, len(tokens))
    return np.asarray(matrix)[:n, :n], list(tokens[:n])


def attention_rows(tokens: Sequence[str], matrices: dict[str, np.ndarray]) -> list[list]:
    """Download rows ``[reading, row, column, row token, column token, weight]`` for each named matrix."""
    return [
        [reading, i, j, tokens[i], tokens[j], round(float(matrix[i, j]), 6)]
        for reading, matrix in matrices.items()
        for i in range(len(tokens))
        for j in range(len(tokens))
    ]


def prediction_rows(mode: str, predictions) -> list[list]:
    """Download rows ``[mode, rank, token, probability]`` for one mask's predictions."""
    return [[mode, rank, p.token, round(p.prob, 6)] for rank, p in enumerate(predictions, start=1)]
