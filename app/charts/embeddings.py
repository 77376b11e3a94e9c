"""Figures of the embeddings page: the parts of BERT's input as heatmaps and per-token lines.

Pure builders: arrays and already translated strings in, ``go.Figure`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .base import heatmap, style

MAX_HEATMAP_HEIGHT = 900
# One colour per part, the same in every figure of the page.
PART_COLORS = {
    "token": "#4C78A8",
    "segment": "#F58518",
    "position": "#54A24B",
    "sum": "#B279A2",
    "normalized": "#E45756",
}


def part_heatmap(values: np.ndarray, tokens: Sequence[str], dims: int, *, title: str) -> go.Figure:
    """Tokens (rows) by the first ``dims`` dimensions; red positive, blue negative, white zero."""
    shown = np.asarray(values, dtype=np.float64)[:, :dims]  # (T, N)
    bound = float(np.abs(shown).max()) or 1.0  # symmetric, so zero is always white
    fig = heatmap(
        shown,
        [str(i) for i in range(shown.shape[1])],
        list(tokens),
        title=title,
        colorscale="RdBu_r",
        zmin=-bound,
        zmax=bound,
        hover="%{y} · d%{x}: %{z:.4f}<extra></extra>",
        height=min(MAX_HEATMAP_HEIGHT, max(300, 22 * len(tokens) + 120)),
    )
    fig.update_xaxes(tickangle=0)
    return fig


def token_vectors(
    vectors: dict[str, np.ndarray],
    recomposed: np.ndarray,
    dims: int,
    *,
    labels: dict[str, str],
    recomposed_label: str,
    titles: tuple[str, str],
) -> go.Figure:
    """Two stacked panels on the same dimensions: the three parts and their sum (with token + segment +
    position drawn dashed over it, to show they coincide), then the LayerNorm output on its own scale."""
    x = list(range(min(dims, len(recomposed))))
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12, subplot_titles=titles)
    for name in ("token", "segment", "position", "sum"):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=vectors[name][: len(x)],
                name=labels[name],
                mode="lines",
                line={"color": PART_COLORS[name], "width": 3 if name == "sum" else 1.5},
            ),
            row=1,
            col=1,
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=recomposed[: len(x)],
            name=recomposed_label,
            mode="lines",
            line={"color": "black", "width": 1.5, "dash": "dot"},
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=vectors["normalized"][: len(x)],
            name=labels["normalized"],
            mode="lines",
            line={"color": PART_COLORS["normalized"], "width": 2},
        ),
        row=2,
        col=1,
    )
    fig.update_xaxes(title_text="d", row=2, col=1)
    fig.update_layout(legend={"orientation": "h", "yanchor": "bottom", "y": 1.08, "x": 0}, hovermode="x unified")
    style(fig, None, 560)
    fig.update_layout(margin={"t": 90})
    return fig


def norm_bars(norms: dict[str, float], labels: dict[str, str], *, title: str) -> go.Figure:
    """The L2 norm of each of a token's five vectors."""
    names = list(norms)
    fig = go.Figure(
        go.Bar(
            x=[norms[n] for n in names],
            y=[labels[n] for n in names],
            orientation="h",
            marker_color=[PART_COLORS[n] for n in names],
            text=[f"{norms[n]:.2f}" for n in names],
            textposition="auto",
            hovertemplate="%{y}: %{x:.4f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(rangemode="tozero")
    return style(fig, title, 340)


def position_similarity(similarity: np.ndarray, *, title: str, axis_label: str) -> go.Figure:
    """Cosine similarity of the position embeddings: a bright band along the diagonal means nearby
    positions got similar vectors during pre-training."""
    n = similarity.shape[0]
    fig = go.Figure(
        go.Heatmap(
            z=np.asarray(similarity, dtype=np.float64),
            x=list(range(n)),
            y=list(range(n)),
            colorscale="RdBu_r",
            zmin=-1,
            zmax=1,
            hovertemplate="%{y} · %{x}: %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", title_text=axis_label, scaleanchor="x")
    fig.update_xaxes(title_text=axis_label, constrain="domain")  # square cells, no padding beyond the matrix
    return style(fig, title, 620)
