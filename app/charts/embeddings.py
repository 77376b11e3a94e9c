"""Figures of the embeddings page: the parts of BERT's input as heatmaps and per-token lines.

Pure builders: arrays and already translated strings in, ``go.Figure`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .base import COLORBAR_ROOM, SUMMARY_JOIN, bottom_margin, heatmap, left_margin, shown, style
from .palette import BLUE, DIVERGING, GREEN, ORANGE, PURPLE, VERMILLION

MAX_HEATMAP_HEIGHT = 900
# One colour per part, the same in every figure of the page.
PART_COLORS = {
    "token": BLUE,
    "segment": ORANGE,
    "position": GREEN,
    "sum": PURPLE,
    "normalized": VERMILLION,
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
        colorscale=DIVERGING,
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
    # The legend above the panels: measured 108 px of top margin.
    return style(fig, None, 560, {"t": 110, "l": left_margin(["−0.25"]), "b": bottom_margin(title=True)})


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
    return style(fig, title, 340, {"l": left_margin([labels[n] for n in names]), "r": 20, "b": bottom_margin()})


def position_similarity(similarity: np.ndarray, *, title: str, axis_label: str) -> go.Figure:
    """Cosine similarity of the position embeddings: a bright band along the diagonal means nearby
    positions got similar vectors during pre-training."""
    n = similarity.shape[0]
    fig = go.Figure(
        go.Heatmap(
            z=shown(similarity),  # the hover reads three decimals
            x=list(range(n)),
            y=list(range(n)),
            colorscale=DIVERGING,
            zmin=-1,
            zmax=1,
            hovertemplate="%{y} · %{x}: %{z:.3f}<extra></extra>",
        )
    )
    # Both axes keep to the matrix: on a narrow screen the square shrinks, instead of the rows axis running past it.
    fig.update_yaxes(autorange="reversed", title_text=axis_label, scaleanchor="x", constrain="domain")
    fig.update_xaxes(title_text=axis_label, constrain="domain")  # square cells, no padding beyond the matrix
    return style(fig, title, 620, {"l": 20, "r": COLORBAR_ROOM, "b": bottom_margin(title=True)})


def part_summary(values: np.ndarray, tokens: Sequence[str], dims: int, template: str) -> str:
    """The cell of ``part_heatmap`` furthest from zero: {token}, {dim}, {value} of ``template``."""
    shown = np.asarray(values, dtype=np.float64)[:, :dims]
    row, dim = np.unravel_index(int(np.argmax(np.abs(shown))), shown.shape)
    return template.format(token=tokens[row], dim=dim, value=float(shown[row, dim]))


def position_summary(similarity: np.ndarray, template: str, far: int = 10) -> str:
    """How alike neighbouring position vectors are against ones ``far`` apart (the mean cosine of each
    diagonal of ``position_similarity``): {near}, {far}, {far_value} of ``template``."""
    similarity = np.asarray(similarity, dtype=np.float64)
    far = min(far, similarity.shape[0] - 1)
    if far < 1:
        raise ValueError("position similarity needs at least two positions")
    return template.format(
        near=float(np.diagonal(similarity, 1).mean()), far=far, far_value=float(np.diagonal(similarity, far).mean())
    )


def vectors_summary(vectors: dict[str, np.ndarray], dims: int, labels: dict[str, str], template: str) -> str:
    """Which of the three parts of ``token_vectors`` the sum follows most closely over the dimensions shown:
    {part} and {correlation} (Pearson, over the first ``dims`` dimensions) of ``template``."""
    total = np.asarray(vectors["sum"], dtype=np.float64)[:dims]
    correlations = {}
    for name in ("token", "segment", "position"):
        part = np.asarray(vectors[name], dtype=np.float64)[:dims]
        spread = part.std() * total.std()
        correlations[name] = float(np.mean((part - part.mean()) * (total - total.mean())) / spread) if spread else 0.0
    closest = max(correlations, key=correlations.get)
    return template.format(part=labels[closest], correlation=correlations[closest])


def norms_summary(norms: dict[str, float], labels: dict[str, str], template: str) -> str:
    """The bars of ``norm_bars`` from the longest vector to the shortest, as {items} of ``template``."""
    ordered = sorted(norms, key=norms.get, reverse=True)
    return template.format(items=SUMMARY_JOIN.join(f"{labels[name]} {norms[name]:.2f}" for name in ordered))
