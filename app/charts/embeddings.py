"""Figures of the embeddings page: the parts of BERT's input as heatmaps and per-token lines.

Pure builders: arrays and already translated strings in, ``go.Figure`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .base import (
    COLORBAR_ROOM,
    SUMMARY_JOIN,
    base_layout,
    bottom_margin,
    figure,
    heatmap_spec,
    left_margin,
    scale,
    shown,
    two_panels,
)
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
    spec = heatmap_spec(
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
    spec["layout"]["xaxis"]["tickangle"] = 0
    return figure(spec)


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
    position drawn dashed over it, to show they coincide), then the LayerNorm output on its own scale.

    Built in one go, panels and all (make_subplots and its updates were most of the embeddings page's run)."""
    x = list(range(min(dims, len(recomposed))))

    def line(y, name: str, colour: str, width: float, panel: int, dash: str | None = None) -> dict:
        style_ = {"color": colour, "width": width} | ({"dash": dash} if dash else {})
        axes = {"xaxis": "x", "yaxis": "y"} if panel == 1 else {"xaxis": "x2", "yaxis": "y2"}
        return {"type": "scatter", "x": x, "y": y[: len(x)], "name": name, "mode": "lines", "line": style_} | axes

    data = [
        line(vectors[name], labels[name], PART_COLORS[name], 3 if name == "sum" else 1.5, 1)
        for name in ("token", "segment", "position", "sum")
    ]
    data.append(line(recomposed, recomposed_label, "black", 1.5, 1, dash="dot"))
    data.append(line(vectors["normalized"], labels["normalized"], PART_COLORS["normalized"], 2, 2))
    # The legend above the panels: measured 108 px of top margin.
    layout = base_layout(None, 560, {"t": 110, "l": left_margin(["−0.25"]), "b": bottom_margin(title=True)})
    layout |= two_panels(titles, 0.12, stacked=True) | {
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.08, "x": 0},
        "hovermode": "x unified",
    }
    layout["xaxis2"]["title"] = {"text": "d"}
    return figure({"data": data, "layout": layout})


def norm_bars(norms: dict[str, float], labels: dict[str, str], *, title: str) -> go.Figure:
    """The L2 norm of each of a token's five vectors."""
    names = list(norms)
    bars = {
        "type": "bar",
        "x": [norms[n] for n in names],
        "y": [labels[n] for n in names],
        "orientation": "h",
        "marker": {"color": [PART_COLORS[n] for n in names]},
        "text": [f"{norms[n]:.2f}" for n in names],
        "textposition": "auto",
        "hovertemplate": "%{y}: %{x:.4f}<extra></extra>",
    }
    layout = base_layout(title, 340, {"l": left_margin([labels[n] for n in names]), "r": 20, "b": bottom_margin()})
    layout |= {"yaxis": {"autorange": "reversed", "type": "category"}, "xaxis": {"rangemode": "tozero"}}
    return figure({"data": [bars], "layout": layout})


def position_similarity(similarity: np.ndarray, *, title: str, axis_label: str) -> go.Figure:
    """Cosine similarity of the position embeddings: a bright band along the diagonal means nearby
    positions got similar vectors during pre-training."""
    n = similarity.shape[0]
    trace = {
        "type": "heatmap",
        "z": shown(similarity),  # the hover reads three decimals
        "x": list(range(n)),
        "y": list(range(n)),
        "colorscale": scale(DIVERGING),
        "zmin": -1,
        "zmax": 1,
        "hovertemplate": "%{y} · %{x}: %{z:.3f}<extra></extra>",
    }
    # Room for the rows' numbers and title: on a wide screen the square leaves it free beside the matrix, but on an
    # 800 px screen the square fills the width, and a 20 px margin was widened and the chart drawn a second time.
    margin = {"l": left_margin([str(n - 1)], title=True), "r": COLORBAR_ROOM, "b": bottom_margin(title=True)}
    layout = base_layout(title, 620, margin)
    # Both axes keep to the matrix: on a narrow screen the square shrinks, instead of the rows axis running past it.
    layout |= {
        "yaxis": {"autorange": "reversed", "title": {"text": axis_label}, "scaleanchor": "x", "constrain": "domain"},
        "xaxis": {"title": {"text": axis_label}, "constrain": "domain"},  # square cells, nothing beyond the matrix
    }
    return figure({"data": [trace], "layout": layout})


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
