"""Figures of the attention page: a query-by-key map per mask, and the statistics of every head.

Pure builders: arrays and already translated strings in, a ``Chart`` (or a size) out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.charts import (
    SUMMARY_JOIN,
    Chart,
    base_option,
    category_axis,
    colour_bar,
    grid,
    heatmap,
    legend_entries,
    panel_titles,
)
from app.core.palette import SEQUENTIAL, SEQUENTIAL_SECOND, VERMILLION

MAX_MAP_HEIGHT = 900
# Two panels a row: with three, a 12-head panel is 150 px wide at 800 px and its numbers and titles collide.
GRID_COLUMNS = 2
# Write each cell's value into a layer-by-head grid only while the cells are big enough to read it.
MAX_ANNOTATED_HEADS = 144
PANEL_GAP = 6  # percent of the chart's width between two panels side by side
SELECTED_EDGE = {"borderColor": VERMILLION, "borderWidth": 3}


def attention_map(matrix: np.ndarray, tokens: Sequence[str], *, title: str, zmax: float) -> Chart:
    """Rows are the tokens that look (queries), columns the tokens looked at (keys), labelled along the top."""
    return heatmap(
        matrix,
        list(tokens),
        list(tokens),
        title=title,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=zmax,
        height=min(MAX_MAP_HEIGHT, max(290, 22 * len(tokens) + 110)),
        x_on_top=True,
    )


def paired_maps(
    bidirectional: np.ndarray, causal: np.ndarray, tokens: Sequence[str], *, titles: tuple[str, str]
) -> tuple[Chart, Chart]:
    """The bidirectional and the causal map of the same tokens on one colour scale, so equal colours mean
    equal weights; ``titles`` in the same order. Every page that compares the two readings draws them here.

    The causal map's first row is left out of the scale's maximum: that token sees only itself, so its row is
    1.0 (or, with special tokens hidden, all it has left) by construction, and it would wash every learned
    weight out to white.
    """
    bidirectional = np.asarray(bidirectional, dtype=float)
    causal = np.asarray(causal, dtype=float)
    zmax = max(float(np.max(bidirectional, initial=0.0)), float(np.max(causal[1:], initial=0.0))) or 1.0
    return (
        attention_map(bidirectional, tokens, title=titles[0], zmax=zmax),
        attention_map(causal, tokens, title=titles[1], zmax=zmax),
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


def layer_head_cells(
    values: np.ndarray, *, text: np.ndarray | None = None, selected: tuple[int, int] | None = None, digits: int = 4
) -> list:
    """A layer-by-head matrix as heatmap items [head, layer, value] (with the cell's text as a fourth item where
    ``text`` is given), the ``selected`` (layer, head) edged: a few hundred cells, sent as lists."""
    cells = []
    for layer, row in enumerate(np.asarray(values, dtype=np.float64)):
        for head, value in enumerate(row):
            item = [head, layer, round(float(value), digits)] + ([str(text[layer, head])] if text is not None else [])
            cells.append({"value": item, "itemStyle": SELECTED_EDGE} if selected == (layer, head) else item)
    return cells


def layer_head_axes(n_layers: int, n_heads: int, axis_labels: tuple[str, str], index: int = 0, **where) -> tuple:
    """The x (heads) and y (layers, the first at the top) axes of one layer-by-head panel on grid ``index``;
    ``where`` says which of them carry their name."""
    x = category_axis([str(h) for h in range(n_heads)], name=axis_labels[1] if where.get("x_name", True) else None)
    y = category_axis([str(layer) for layer in range(n_layers)], inverse=True)
    if where.get("y_name", True):
        y |= {"name": axis_labels[0], "nameLocation": "middle", "nameGap": 24}
    x |= {"gridIndex": index, "splitArea": {"show": False}, "nameGap": 24}
    y |= {"gridIndex": index, "splitArea": {"show": False}}
    return x, y


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
    legend = selected is not None
    option = base_option() | {
        "grid": grid(top=10, right=70, bottom=40 if legend else 8),
        "xAxis": x,
        "yAxis": y,
        "visualMap": colour_bar(0.0, float(values.max()) or 1.0, SEQUENTIAL_SECOND, precision=3),
        "series": [
            {
                "type": "heatmap",
                "data": layer_head_cells(values, selected=selected),
                "label": {"show": annotate, "fontSize": 9, "formatter": "{@[2]}"},
                "tooltip": {"formatter": "L{@[1]} H{@[0]}: {@[2]}"},
            },
            *(legend_entries([(selected_label, VERMILLION)]) if legend else []),
        ],
    }
    if legend:
        option["legend"] = {"bottom": 0, "left": 0}
    return Chart(option, max(230, 32 * n_layers + 110), title)


def cell_text(values: np.ndarray, is_entropy: bool) -> np.ndarray:
    """A statistics panel's numbers as its cells show them: entropy to one decimal, shares as whole percentages
    (a 12-head panel at 800 px has room for "12" in a cell, not for "0.12")."""
    return np.array([[f"{v:.1f}" if is_entropy else f"{100 * v:.0f}" for v in row] for row in values])


def statistic_value(name: str, value: float) -> str:
    """One statistic in words, in the unit its panel uses: entropy as is, a share in percent."""
    return f"{value:.1f}" if name == "entropy" else f"{value:.0%}"


def statistics_grid(
    stats: dict[str, np.ndarray],
    titles: dict[str, str],
    *,
    selected: tuple[int, int] | None = None,
    selected_label: str = "",
    axis_labels: tuple[str, str] = ("layer", "head"),
) -> Chart:
    """One small layer-by-head heatmap per statistic, two a row; the selected head is edged in every panel.

    Shares run on a fixed 0..1 scale so panels can be compared; entropy uses its own scale (bits)."""
    names = list(titles)
    rows = -(-len(names) // GRID_COLUMNS)
    n_layers, n_heads = stats[names[0]].shape
    annotate = n_layers * n_heads <= MAX_ANNOTATED_HEADS
    panel = max(150, 22 * n_layers + 20)  # the plot of a panel, in pixels
    row_height = panel + 80  # its title above, its heads' numbers and name below
    width = (100 - PANEL_GAP * (GRID_COLUMNS - 1)) / GRID_COLUMNS
    grids, x_axes, y_axes, series, visual_maps, titled = [], [], [], [], [], []
    for i, name in enumerate(names):
        row, col = divmod(i, GRID_COLUMNS)
        left = col * (width + PANEL_GAP)
        top = 30 + row * row_height
        grids.append(grid(top=top, left=f"{left:.1f}%", width=f"{width:.1f}%", height=panel, right=None, bottom=None))
        x, y = layer_head_axes(n_layers, n_heads, axis_labels, i, x_name=row == rows - 1, y_name=col == 0)
        x_axes.append(x)
        y_axes.append(y)
        values = np.asarray(stats[name], dtype=np.float64)
        is_entropy = name == "entropy"
        series.append(
            {
                "type": "heatmap",
                "name": titles[name],
                "xAxisIndex": i,
                "yAxisIndex": i,
                "data": layer_head_cells(values, text=cell_text(values, is_entropy), selected=selected),
                "label": {"show": annotate, "fontSize": 9, "formatter": "{@[3]}"},
                "tooltip": {"formatter": "{a} · L{@[1]} H{@[0]}: {@[2]}"},
            }
        )
        visual_maps.append(
            colour_bar(
                0.0,
                (float(values.max()) or 1.0) if is_entropy else 1.0,
                SEQUENTIAL_SECOND if is_entropy else SEQUENTIAL,
                show=False,
                seriesIndex=i,
                dimension=2,
            )
        )
        titled.append((titles[name] if is_entropy else f"{titles[name]} (%)", f"{left + width / 2:.1f}%", top - 26))
    legend = selected is not None
    texts, lefts, tops = zip(*titled, strict=True)
    option = base_option() | {
        "title": panel_titles(texts, lefts, tops),
        "grid": grids,
        "xAxis": x_axes,
        "yAxis": y_axes,
        "visualMap": visual_maps,
        "series": series + (legend_entries([(selected_label, VERMILLION)]) if legend else []),
    }
    if legend:
        option["legend"] = {"bottom": 0, "left": 0, "data": [selected_label]}
    return Chart(option, 30 + rows * row_height + (30 if legend else 0))


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


def statistics_summary(stats: dict[str, np.ndarray], titles: dict[str, str], template: str) -> str:
    """For each statistic of ``statistics_grid``, the head where it is largest: ``template`` with {statistic},
    {layer}, {head} and {value} (written as its panel writes it), one clause per statistic."""
    parts = []
    for name, title in titles.items():
        values = np.asarray(stats[name], dtype=np.float64)
        layer, head = np.unravel_index(int(np.argmax(values)), values.shape)
        value = statistic_value(name, float(values[layer, head]))
        parts.append(template.format(statistic=title, layer=layer, head=head, value=value))
    return SUMMARY_JOIN.join(parts)


def change_summary(change: np.ndarray, template: str) -> str:
    """The layer of ``change_grid`` whose heads moved most on average and the head that moved most:
    {layer}, {layer_value}, {top_layer}, {top_head}, {top_value} of ``template``."""
    values = np.asarray(change, dtype=np.float64)
    by_layer = values.mean(axis=1)
    layer = int(np.argmax(by_layer))
    top_layer, top_head = np.unravel_index(int(np.argmax(values)), values.shape)
    return template.format(
        layer=layer,
        layer_value=float(by_layer[layer]),
        top_layer=int(top_layer),
        top_head=int(top_head),
        top_value=float(values[top_layer, top_head]),
    )
