"""Figures of the embeddings page: the parts of BERT's input as heatmaps, per-token lines and bars.

Pure builders: arrays and already translated strings in, a ``Chart`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.charts import (
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    COLORBAR_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    heatmap_spec,
    left_margin,
    panel_titles,
    plotly_text,
    value_axis,
)
from app.core.palette import BLACK, BLUE, DIVERGING, GREEN, ORANGE, PURPLE, VERMILLION

MAX_HEATMAP_HEIGHT = 900
# One colour per part, the same in every figure of the page.
PART_COLORS = {
    "token": BLUE,
    "segment": ORANGE,
    "position": GREEN,
    "sum": PURPLE,
    "normalized": VERMILLION,
}


def part_heatmap(values: np.ndarray, tokens: Sequence[str], dims: int, *, title: str) -> Chart:
    """Tokens (rows) by the first ``dims`` dimensions; red positive, blue negative, white zero."""
    shown = np.asarray(values, dtype=np.float64)[:, :dims]  # (T, N)
    bound = float(np.abs(shown).max()) or 1.0  # symmetric, so zero is always white
    spec = heatmap_spec(
        shown,
        [str(i) for i in range(shown.shape[1])],
        list(tokens),
        colorscale=DIVERGING,
        zmin=-bound,
        zmax=bound,
        hover="%{y} · d%{x}: %{z:.3f}<extra></extra>",
        height=min(MAX_HEATMAP_HEIGHT, max(270, 22 * len(tokens) + 90)),
    )
    # Dimension numbers stand upright, plotly skipping some where 128 would not fit side by side.
    layout = spec["layout"]
    layout["xaxis"] = {key: v for key, v in layout["xaxis"].items() if key not in ("tickmode", "tick0", "dtick")}
    layout["xaxis"]["tickangle"] = 0
    layout["margin"]["b"] = BOTTOM_ROOM
    return chart(spec["data"], layout, title)


def token_vectors(
    vectors: dict[str, np.ndarray],
    recomposed: np.ndarray,
    dims: int,
    *,
    labels: dict[str, str],
    recomposed_label: str,
    titles: tuple[str, str],
) -> Chart:
    """Two stacked panels on the same dimensions: the three parts and their sum (with token + segment +
    position drawn dotted over it, to show they coincide), then the LayerNorm output on its own scale. One
    hover lists every line at the dimension under the pointer."""
    x = np.arange(min(dims, len(recomposed)))

    def line(y, name: str, colour: str, width: float, panel: str, dash: str = "solid") -> dict:
        return {
            "type": "scatter",
            "mode": "lines",
            "name": plotly_text(name),
            "x": x,
            "y": np.asarray(y, dtype=np.float64)[: len(x)],
            "line": {"color": colour, "width": width, "dash": dash},
            "hovertemplate": "%{y:.4f}",
            "xaxis": f"x{panel}",
            "yaxis": f"y{panel}",
        }

    data = [
        line(vectors[name], labels[name], PART_COLORS[name], 3 if name == "sum" else 1.5, "")
        for name in ("token", "segment", "position", "sum")
    ]
    data.append(line(recomposed, recomposed_label, BLACK, 1.5, "", dash="dot"))
    data.append(line(vectors["normalized"], labels["normalized"], PART_COLORS["normalized"], 2, "2"))
    # The legend above the panels (two lines where the column is narrow), each panel's title above it.
    legend_room, upper, lower, gap = 72, 220, 150, 50
    plot_px = upper + gap + lower
    margin = {"t": legend_room + 24, "l": left_margin(["-0.25"]), "r": 16, "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM}
    dimensions = {"range": [0, max(len(x) - 1, 1)], "zeroline": False}
    layout = base_layout(
        margin["t"] + plot_px + margin["b"],
        margin,
        hovermode="x unified",
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yref": "container", "yanchor": "top"},
        xaxis=dimensions | {"anchor": "y", "matches": "x2", "showticklabels": False},
        yaxis=value_axis(anchor="x", domain=[1 - upper / plot_px, 1.0]),
        xaxis2=dimensions | {"anchor": "y2", "title": {"text": "d"}},
        yaxis2=value_axis(anchor="x2", domain=[0.0, lower / plot_px]),
        annotations=panel_titles(titles, [0.5, 0.5], [1.0, lower / plot_px]),
    )
    return chart(data, layout)


def norm_bars(norms: dict[str, float], labels: dict[str, str], *, title: str) -> Chart:
    """The L2 norm of each of a token's five vectors, each bar in its part's colour and ending in its length."""
    names = list(norms)
    shown = [plotly_text(labels[n]) for n in names]
    bars = {
        "type": "bar",
        "x": [float(norms[n]) for n in names],
        "y": shown,
        "orientation": "h",
        "marker": {"color": [PART_COLORS[n] for n in names]},
        "text": [f"{norms[n]:.2f}" for n in names],
        "textposition": "outside",
        "cliponaxis": False,
        "hovertemplate": "%{y}: %{x:.4f}<extra></extra>",
    }
    layout = base_layout(
        310,
        {"l": left_margin(shown), "r": 48, "b": BOTTOM_ROOM},
        bargap=0.3,
        yaxis=category_axis(shown, autorange="reversed"),
        xaxis=value_axis(rangemode="tozero"),
    )
    return chart([bars], layout, title)


def position_similarity(similarity: np.ndarray, *, title: str, axis_label: str) -> Chart:
    """Cosine similarity of the position embeddings: a bright band along the diagonal means nearby
    positions got similar vectors during pre-training."""
    n = similarity.shape[0]
    positions = [str(i) for i in range(n)]
    spec = heatmap_spec(
        similarity,
        positions,
        positions,
        colorscale=DIVERGING,
        zmin=-1.0,
        zmax=1.0,
        hover="%{y} · %{x}: %{z:.3f}<extra></extra>",
        height=590,
    )
    # Position numbers upright, plotly skipping what would overlap (128 rows in 500 px); both axes named. Square
    # cells: on a narrow screen the square shrinks, instead of the rows running past it.
    layout = spec["layout"]
    named = {"title": {"text": plotly_text(axis_label)}, "constrain": "domain"}
    for key in ("xaxis", "yaxis"):
        layout[key] = {k: v for k, v in layout[key].items() if k not in ("tickmode", "tick0", "dtick")} | named
    layout["xaxis"]["tickangle"] = 0
    layout["yaxis"]["scaleanchor"] = "x"
    layout["margin"] |= {
        "l": left_margin([str(n - 1)], title=True),
        "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM,
        "r": COLORBAR_ROOM,
    }
    return chart(spec["data"], layout, title)


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
