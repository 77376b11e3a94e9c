"""Figures of the embeddings page: the parts of BERT's input as heatmaps, per-token lines and bars.

Pure builders: arrays and already translated strings in, a ``Chart`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.charts import (
    SUMMARY_JOIN,
    Chart,
    base_option,
    category_axis,
    grid,
    heatmap,
    panel_titles,
    rounded,
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
# From an axis's line to its name: past the tick labels, also at presenter mode's 18 px.
NAME_GAP = 34


def part_heatmap(values: np.ndarray, tokens: Sequence[str], dims: int, *, title: str) -> Chart:
    """Tokens (rows) by the first ``dims`` dimensions; red positive, blue negative, white zero."""
    shown = np.asarray(values, dtype=np.float64)[:, :dims]  # (T, N)
    bound = float(np.abs(shown).max()) or 1.0  # symmetric, so zero is always white
    chart = heatmap(
        shown,
        [str(i) for i in range(shown.shape[1])],
        list(tokens),
        title=title,
        colorscale=DIVERGING,
        zmin=-bound,
        zmax=bound,
        tooltip="{@y} · d{@x}: {@value}",
        height=min(MAX_HEATMAP_HEIGHT, max(270, 22 * len(tokens) + 90)),
    )
    # Dimension numbers stand upright; ECharts skips some of them when 128 would not fit side by side.
    chart.option["xAxis"]["axisLabel"] = {"rotate": 0}
    return chart


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
    tooltip lists every line at the dimension under the pointer, in both panels."""
    n = min(dims, len(recomposed))

    def line(y, name: str, colour: str, width: float, panel: int, dash: str = "solid") -> dict:
        return {
            "type": "line",
            "name": name,
            "xAxisIndex": panel,
            "yAxisIndex": panel,
            "data": [[d, v] for d, v in enumerate(rounded(np.asarray(y)[:n]))],
            "showSymbol": False,
            "itemStyle": {"color": colour},
            "lineStyle": {"color": colour, "width": width, "type": dash},
        }

    series = [
        line(vectors[name], labels[name], PART_COLORS[name], 3 if name == "sum" else 1.5, 0)
        for name in ("token", "segment", "position", "sum")
    ]
    series.append(line(recomposed, recomposed_label, BLACK, 1.5, 0, dash="dotted"))
    series.append(line(vectors["normalized"], labels["normalized"], PART_COLORS["normalized"], 2, 1))
    # The legend above the panels (two lines where the column is narrow), each panel's title above it.
    legend_room, upper, lower, gap = 72, 220, 150, 40
    tops = (legend_room + 24, legend_room + 24 + upper + gap)
    dimensions = {"type": "value", "min": 0, "max": max(n - 1, 1), "minInterval": 1}
    option = base_option() | {
        "title": panel_titles(titles, ["50%", "50%"], [top - 24 for top in tops]),
        "legend": {"top": 0, "left": 0},
        "tooltip": {"confine": True, "trigger": "axis"},
        "axisPointer": {"link": [{"xAxisIndex": "all"}]},
        "grid": [
            grid(top=tops[0], height=upper, left=8, right=16, bottom=None),
            grid(top=tops[1], height=lower, left=8, right=16, bottom=None),
        ],
        "xAxis": [
            dimensions | {"gridIndex": 0, "axisLabel": {"show": False}},
            dimensions | {"gridIndex": 1, "name": "d", "nameLocation": "middle", "nameGap": NAME_GAP},
        ],
        "yAxis": [value_axis() | {"gridIndex": 0}, value_axis() | {"gridIndex": 1}],
        "series": series,
    }
    return Chart(option, tops[1] + lower + NAME_GAP + 30)


def norm_bars(norms: dict[str, float], labels: dict[str, str], *, title: str) -> Chart:
    """The L2 norm of each of a token's five vectors, each bar in its part's colour and ending in its length."""
    names = list(norms)
    values = rounded([norms[n] for n in names])
    bars = [
        {
            "value": value,
            "itemStyle": {"color": PART_COLORS[name]},
            "label": {"formatter": f"{norms[name]:.2f}"},  # digits only: nothing for a template to read
        }
        for name, value in zip(names, values, strict=True)
    ]
    option = base_option() | {
        "grid": grid(top=10, right=48, bottom=8),
        "xAxis": value_axis(min=0),
        "yAxis": category_axis([labels[n] for n in names], inverse=True),
        "tooltip": {"confine": True, "trigger": "item", "formatter": "{b}: {c}"},
        "series": [{"type": "bar", "data": bars, "label": {"show": True, "position": "right"}, "barMaxWidth": 28}],
    }
    return Chart(option, 310, title)


def position_similarity(similarity: np.ndarray, *, title: str, axis_label: str) -> Chart:
    """Cosine similarity of the position embeddings: a bright band along the diagonal means nearby
    positions got similar vectors during pre-training."""
    n = similarity.shape[0]
    positions = [str(i) for i in range(n)]
    chart = heatmap(
        np.round(np.asarray(similarity, dtype=np.float64), 3),  # the tooltip reads three decimals
        positions,
        positions,
        title=title,
        colorscale=DIVERGING,
        zmin=-1.0,
        zmax=1.0,
        tooltip="{@y} · {@x}: {@value}",
        height=590,
    )
    option = chart.option
    # Position numbers upright, ECharts skipping what would overlap (128 rows in 500 px); both axes named.
    named = {"name": axis_label, "nameLocation": "middle", "nameGap": NAME_GAP}
    option["xAxis"] |= named | {"axisLabel": {"rotate": 0}}
    option["yAxis"] |= named | {"axisLabel": {}, "nameGap": NAME_GAP + 12}  # past three-digit positions
    return chart


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
