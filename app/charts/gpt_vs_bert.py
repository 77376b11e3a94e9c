"""GPT versus BERT made live: the same weights read causally and bidirectionally (seed notes, 与 GPT 的架构对比).

Pure helpers for the page: head-averaged attention, how much of it falls to the right of each token, what a
[MASK] position can see, and the side-by-side heatmaps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .base import FONT, unique_labels

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


def attention_pair(
    causal: np.ndarray, bidirectional: np.ndarray, tokens: Sequence[str], *, causal_title: str, bidirectional_title: str
) -> go.Figure:
    """Two heatmaps on one colour scale, so equal shades mean equal weights in both."""
    labels = unique_labels(tokens)  # escaped there: plotly renders a few HTML tags
    # The causal first row is 1.0 on itself by construction (it sees nothing else). It is left out of the
    # scale's maximum, or it would wash every learned weight out to white.
    causal = np.asarray(causal, dtype=float)
    zmax = float(max(causal[1:].max(initial=0.0), np.max(bidirectional), 1e-9))
    fig = make_subplots(rows=1, cols=2, subplot_titles=(causal_title, bidirectional_title), horizontal_spacing=0.08)
    for column, matrix in ((1, causal), (2, bidirectional)):
        fig.add_trace(
            go.Heatmap(
                z=np.asarray(matrix, dtype=float),
                x=labels,
                y=labels,
                zmin=0,
                zmax=zmax,
                colorscale="Blues",
                showscale=column == 2,
                hovertemplate="%{y} → %{x}: %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=column,
        )
        fig.update_xaxes(type="category", tickangle=-45, row=1, col=column)
        fig.update_yaxes(type="category", autorange="reversed", row=1, col=column)
    side = max(320, 18 * len(tokens) + 160)
    fig.update_layout(font={"family": FONT}, margin={"l": 10, "r": 10, "t": 60, "b": 10}, height=side)
    return fig
