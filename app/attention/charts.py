"""Figures of the attention page: a query-by-key map per mask, and the statistics of every head.

Pure builders: arrays and already translated strings in, a ``Chart`` (a plotly figure) or a size out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.charts import (
    AXIS_TITLE_ROOM,
    BAR_PX,
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    COLORBAR_ROOM,
    LEGEND_ROOM,
    Chart,
    base_layout,
    category_axis,
    chart,
    colour_bar,
    heatmap,
    left_margin,
    legend_below,
    side_by_side,
    unique_labels,
    value_axis,
)
from app.core.counting import counted
from app.core.palette import BLUE, DIVERGING, SEQUENTIAL_SECOND, SKY
from app.core.shared_charts import (
    COUNTED_HOVER,
    MAX_ANNOTATED_HEADS,
    attention_map,
    counted_cells,
    layer_head_axes,
    selected_ring,
)


def before_after_maps(
    before: np.ndarray, after: np.ndarray, tokens: Sequence[str], *, titles: tuple[str, str]
) -> tuple[Chart, Chart]:
    """One head's map before and after fine-tuning, on one colour scale so equal colours mean equal weights."""
    before = np.asarray(before, dtype=float)
    after = np.asarray(after, dtype=float)
    zmax = max(float(np.max(before, initial=0.0)), float(np.max(after, initial=0.0))) or 1.0
    return (
        attention_map(before, tokens, title=titles[0], zmax=zmax),
        attention_map(after, tokens, title=titles[1], zmax=zmax),
    )


def change_grid(
    change: np.ndarray,
    *,
    title: str,
    selected: tuple[int, int] | None = None,
    selected_label: str = "",
    axis_labels: tuple[str, str] = ("layer", "head"),
) -> Chart:
    """How much each head's attention moved (``attention_stats.head_change``), one layer-by-head heatmap.

    The colour scale runs from 0 to the largest change, so that a short fine-tuning run's small changes show;
    every cell carries its value, so the scale cannot mislead."""
    values = np.asarray(change, dtype=np.float64)
    n_layers, n_heads = values.shape
    annotate = n_layers * n_heads <= MAX_ANNOTATED_HEADS
    x, y = layer_head_axes(n_layers, n_heads, axis_labels)
    cells = {
        "type": "heatmap",
        "z": values,
        "x": list(range(n_heads)),
        "y": list(range(n_layers)),
        "zmin": 0.0,
        "zmax": float(values.max()) or 1.0,
        "customdata": counted_cells(n_layers, n_heads),
        "hovertemplate": f"{COUNTED_HOVER}: %{{z:.4f}}<extra></extra>",
    } | colour_bar(SEQUENTIAL_SECOND, tickformat=".3f")
    if annotate:
        cells |= {"texttemplate": "%{z:.3f}", "textfont": {"size": 9}}
    data = [cells]
    legend = selected is not None
    if legend:
        data.append(selected_ring(selected, selected_label))
    margin = {"l": 40 + AXIS_TITLE_ROOM, "r": COLORBAR_ROOM, "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM}
    if legend:
        margin["b"] += LEGEND_ROOM
    layout = base_layout(max(260, 32 * n_layers + 140), margin, xaxis=x, yaxis=y, showlegend=legend)
    if legend:
        layout["legend"] = legend_below()
    return chart(data, layout, title)


def bertviz_height(view: str, n_tokens: int, n_layers: int, n_heads: int) -> int:
    """Pixels an iframe needs for bertviz's drawing, from the sizes in its head_view.js / model_view.js."""
    if view == "head":
        # 22.5 px per token row + 30 px of text top, plus the layer/filter selectors and the head colours.
        return int(n_tokens * 22.5 + 30 + 130)
    # Model view: one row of thumbnails per layer, 7 * 12 / heads px per token; its detail pop-up needs
    # 18 px per token.
    thumbnails = n_layers * (n_tokens * 7 * 12 / n_heads + 10) + 38
    detail = n_tokens * 18 + 55
    return int(max(thumbnails, detail) + 80)


def change_summary(change: np.ndarray, template: str) -> str:
    """The layer of ``change_grid`` whose heads moved most on average and the head that moved most:
    {layer}, {layer_value}, {top_layer}, {top_head}, {top_value} of ``template``."""
    values = np.asarray(change, dtype=np.float64)
    by_layer = values.mean(axis=1)
    layer = int(np.argmax(by_layer))
    top_layer, top_head = np.unravel_index(int(np.argmax(values)), values.shape)
    return template.format(
        layer=counted(layer),
        layer_value=float(by_layer[layer]),
        top_layer=counted(top_layer),
        top_head=counted(top_head),
        top_value=float(values[top_layer, top_head]),
    )


def neuron_vectors(
    query: np.ndarray, keys: np.ndarray, tokens: list[str], *, query_label: str, dimension_title: str, title: str
) -> Chart:
    """The query vector (top row) over every key vector, one column per dimension of the head."""
    dimensions = [str(i + 1) for i in range(len(query))]
    matrix = np.vstack([query[None, :], keys])
    limit = float(np.abs(matrix).max()) or 1.0
    figure = heatmap(
        matrix, dimensions, [query_label, *tokens], colorscale=DIVERGING, zmin=-limit, zmax=limit, title=title
    )
    figure.figure.update_xaxes(title_text=dimension_title)
    return figure


def neuron_products(products: np.ndarray, tokens: list[str], *, dimension_title: str, title: str) -> Chart:
    """q * k_j, dimension by dimension: a row's sum is the dot product behind that key's weight."""
    dimensions = [str(i + 1) for i in range(products.shape[1])]
    limit = float(np.abs(products).max()) or 1.0
    figure = heatmap(products, dimensions, tokens, colorscale=DIVERGING, zmin=-limit, zmax=limit, title=title)
    figure.figure.update_xaxes(title_text=dimension_title)
    return figure


def neuron_scores(
    scores: np.ndarray, weights: np.ndarray, tokens: list[str], *, score_title: str, weight_title: str, title: str
) -> Chart:
    """Each key's scaled dot product (left) and its softmax, the weight (right), one row per token."""
    names = unique_labels(tokens)
    bars = [
        {
            "type": "bar",
            "x": np.round(scores, 3),
            "y": names,
            "orientation": "h",
            "marker": {"color": SKY},
            "hovertemplate": "%{y}: %{x:.3f}<extra></extra>",
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "bar",
            "x": np.round(100 * weights, 1),
            "y": names,
            "orientation": "h",
            "marker": {"color": BLUE},
            "hovertemplate": "%{y}: %{x:.1f}%<extra></extra>",
            "xaxis": "x2",
            "yaxis": "y2",
        },
    ]
    top = 34  # the two panels' titles above them
    layout = base_layout(
        top + BOTTOM_ROOM + BAR_PX * len(names), {"l": left_margin(names), "r": 24, "t": top, "b": BOTTOM_ROOM}
    )
    layout |= side_by_side([score_title, weight_title])
    layout["showlegend"] = False
    for axis in ("yaxis", "yaxis2"):
        layout[axis] |= category_axis(names, autorange="reversed")
    layout["yaxis2"]["showticklabels"] = False
    layout["xaxis2"] |= value_axis(percent=True, range=[0, 100])
    return chart(bars, layout, title)
