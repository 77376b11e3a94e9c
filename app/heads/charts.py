"""Figures of the head lab: layer-by-head grids, thumbnails of every head, importance, the pruning curve and the
four views of one token side by side.

Pure builders: arrays and already translated strings in, a ``Chart`` out. The importance grid is a widget: a click
on a cell selects it, and ``clicked_heads`` reads which heads the selection names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from app.attention.charts import layer_head_axes, layer_head_cells
from app.core.charts import (
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    axis_labels,
    base_option,
    category_axis,
    colour_bar,
    grid,
    heatmap_data,
    legend_entries,
    line,
    rounded,
    unique_labels,
    value_axis,
)
from app.core.palette import BLUE, GREEN, ORANGE, PURPLE, SEQUENTIAL, SEQUENTIAL_SECOND, VERMILLION
from app.layers.charts import layer_axis

PATTERN_COLOURS = {
    "vertical": BLUE,
    "diagonal": ORANGE,
    "vertical+diagonal": GREEN,
    "block": PURPLE,
    "heterogeneous": "#999999",
}
FEATURE_COLOURS = {"cls": BLUE, "sep": VERMILLION, "punct": GREEN, "prev": ORANGE, "next": PURPLE}


def layer_profile(
    means: Mapping[str, Sequence[float]], names: Mapping[str, str], *, title: str, axis: tuple[str, str]
) -> Chart:
    """One line per feature: its average share (in percent) over the heads of each layer."""
    n_layers = max((len(values) for values in means.values()), default=1)
    series = [
        line(
            names[key],
            zip(range(len(values)), rounded([100 * float(v) for v in values], 2), strict=True),
            FEATURE_COLOURS.get(key),
            f"{{a}} · {axis[0]} {{@[0]}}: {{@[1]}}%",
        )
        for key, values in means.items()
    ]
    option = base_option() | {
        # Five names: room for the legend's second line on a narrow screen.
        "grid": grid(top=18, right=16, bottom=2 * LEGEND_ROOM + 8, left=8),
        "xAxis": layer_axis(n_layers, axis[0]),
        "yAxis": value_axis(name=axis[1], percent=True, min=0, max=100, nameGap=12),
        "legend": {"bottom": 0, "left": 0},
        "series": series,
    }
    return Chart(option, 350 + LEGEND_ROOM, title)


# Thumbnails: every head's map is a tile of one heatmap, two cells of empty margin around it; a tile's frame is
# drawn through the margin's inner cells, so that it never covers the picture and a gap parts two frames.
TILE_MARGIN = 2
THUMBNAIL_ROW = 64  # pixels per layer: a tile about as tall as it is wide on a 1400 px screen


def thumbnail_cells(maps: np.ndarray) -> pa.Table:
    """Every head's map (L, nh, t, t) as the cells of one heatmap, in whole percent of the head's own largest
    weight (so that sharp and broad heads both show): columns x and y (positions on the tiled canvas) and value.
    The tiles' cells only, not their margins: 144 heads of 24 tokens are 83,000 cells, sent as Arrow in small
    integers."""
    L, nh, t, _ = maps.shape
    pitch = t + 2 * TILE_MARGIN
    peaks = maps.max(axis=(2, 3), keepdims=True)
    scaled = np.round(100 * maps / np.where(peaks > 0, peaks, 1.0))
    layer, head, row, column = np.indices(maps.shape).reshape(4, -1)
    return pa.table(
        {
            "x": (head * pitch + TILE_MARGIN + column).astype(np.int16),
            "y": (layer * pitch + TILE_MARGIN + row).astype(np.int16),
            "value": scaled.ravel().astype(np.uint8),
        }
    )


def tile_frame(layer: int, head: int, pitch: int, colour: str, name: str) -> list[dict]:
    """A ``markArea`` around one tile, its edge through the middle of the margin cells next to the tile."""
    first, last = TILE_MARGIN - 1, pitch - TILE_MARGIN  # the margin cells either side of the tile
    return [
        {
            "name": name,
            "xAxis": head * pitch + first,
            "yAxis": layer * pitch + first,
            "itemStyle": {"borderColor": colour},
        },
        {"xAxis": head * pitch + last, "yAxis": layer * pitch + last},
    ]


def thumbnails(
    maps: np.ndarray, patterns: np.ndarray, pattern_names: Mapping[str, str], *, title: str, axis: tuple[str, str]
) -> Chart:
    """Every head's map of one input as a small picture in a layer x head grid, framed in its pattern's colour.

    ``maps`` (L, nh, t, t). The pictures are tiles of one heatmap (``thumbnail_cells``), so 144 heads stay one
    series; each is scaled to its own maximum. A tile's tooltip names its head and pattern. Two more axes,
    without series, number the layers and heads under the tiles' middles."""
    L, nh, t, _ = maps.shape
    pitch = t + 2 * TILE_MARGIN
    frames = [
        tile_frame(
            layer,
            head,
            pitch,
            PATTERN_COLOURS[str(patterns[layer, head])],
            f"{axis[0]} {layer} · {axis[1]} {head}: {pattern_names[str(patterns[layer, head])]}",
        )
        for layer in range(L)
        for head in range(nh)
    ]
    legend = [(pattern_names[kind], colour) for kind, colour in PATTERN_COLOURS.items()]
    canvas = {"axisLabel": {"show": False}, "axisTick": {"show": False}, "axisLine": {"show": False}}
    numbered = {"axisTick": {"show": False}, "axisLine": {"show": False}, "splitArea": {"show": False}}
    option = base_option() | {
        "dataset": {"source": thumbnail_cells(maps)},
        "grid": grid(top=10, right=8, bottom=2 * LEGEND_ROOM + 8, left=8),
        "xAxis": [
            category_axis([str(x) for x in range(nh * pitch)]) | canvas,
            category_axis([str(h) for h in range(nh)], name=axis[1], nameGap=24, position="bottom") | numbered,
        ],
        "yAxis": [
            category_axis([str(y) for y in range(L * pitch)], inverse=True) | canvas,
            category_axis([str(layer) for layer in range(L)], name=axis[0], nameGap=24, inverse=True, position="left")
            | numbered,
        ],
        "visualMap": colour_bar(0, 100, SEQUENTIAL, show=False, seriesIndex=0),
        "series": [
            {
                "type": "heatmap",
                "encode": {"x": "x", "y": "y", "value": "value"},
                "progressive": 0,  # drawn at once, not 400 cells a frame
                "silent": True,  # the frames over it answer the pointer, with their head's name
            },
            {  # no points: the frames, over the tiles
                "type": "scatter",
                "data": [],
                "markArea": {
                    "label": {"show": False},
                    "itemStyle": {"color": "rgba(0, 0, 0, 0)", "borderWidth": 3},
                    "emphasis": {"label": {"show": False}},
                    "tooltip": {"formatter": "{b}"},
                    "data": frames,
                },
            },
            *legend_entries(legend),
        ],
        "legend": {"bottom": 0, "left": 0, "data": [name for name, _ in legend]},
    }
    return Chart(option, 10 + THUMBNAIL_ROW * L + 2 * LEGEND_ROOM + 40, title)


def pattern_counts(
    counts: Mapping[str, Sequence[int]], names: Mapping[str, str], *, title: str, axis: tuple[str, str]
) -> Chart:
    """Stacked bars: how many heads of each layer have each pattern type."""
    n_layers = max((len(per_layer) for per_layer in counts.values()), default=1)
    series = [
        {
            "type": "bar",
            "name": names[kind],
            "stack": "heads",
            "data": [int(n) for n in per_layer],
            "itemStyle": {"color": PATTERN_COLOURS[kind]},
            "tooltip": {"formatter": f"{{a}} · {axis[0]} {{b}}: {{c}}"},
        }
        for kind, per_layer in counts.items()
    ]
    option = base_option() | {
        "grid": grid(top=18, right=16, bottom=2 * LEGEND_ROOM + 8, left=8),  # the legend may take two lines
        "xAxis": category_axis([str(layer) for layer in range(n_layers)], name=axis[0], nameGap=24),
        "yAxis": value_axis(name=axis[1], minInterval=1, nameGap=12),
        "legend": {"bottom": 0, "left": 0},
        "series": series,
    }
    return Chart(option, 350 + LEGEND_ROOM, title)


# A cross over a removed head's cell: white edged in black, visible on the darkest and the lightest colour.
CROSS = "path://M2,0L5,3L8,0L10,2L7,5L10,8L8,10L5,7L2,10L0,8L3,5L0,2Z"
HEAD_ROW = 40  # pixels per layer of the importance grid: cells big enough to click


def head_grid(
    values: np.ndarray,
    removed: Sequence[tuple[int, int]],
    *,
    title: str,
    value_name: str,
    removed_name: str,
    axis: tuple[str, str],
) -> Chart:
    """A layer x head grid of cells coloured by ``values`` (importance); removed heads are crossed.

    A widget: its cells are selectable (``selectedMode``), and ``clicked_heads`` turns a selection back into
    heads. The crosses let clicks through to the cells under them."""
    values = np.asarray(values, dtype=np.float64)
    n_layers, n_heads = values.shape
    x, y = layer_head_axes(n_layers, n_heads, axis)
    highest = float(values.max(initial=0.0)) or 1.0  # an importance is at least 0: the scale starts there
    series = [
        {
            "type": "heatmap",
            "name": value_name,
            "data": layer_head_cells(values, digits=3),
            "selectedMode": "single",
            "itemStyle": {"borderColor": "#FFFFFF", "borderWidth": 1},
            "emphasis": {"itemStyle": {"borderColor": "#000000", "borderWidth": 2}},
            "select": {"itemStyle": {"borderColor": VERMILLION, "borderWidth": 3}},
            "tooltip": {"formatter": f"{axis[0]} {{@[1]}}, {axis[1]} {{@[0]}} · {{a}}: {{@[2]}}"},
        }
    ]
    if removed:
        series.append(
            {
                "type": "scatter",
                "name": removed_name,
                "data": [[head, layer] for layer, head in removed],
                "symbol": CROSS,
                "symbolSize": 14,
                "itemStyle": {"color": "#FFFFFF", "borderColor": "#000000", "borderWidth": 1.5},
                "silent": True,
                "z": 3,
            }
        )
    option = base_option() | {
        "grid": grid(top=10, right=90, bottom=LEGEND_ROOM if removed else 8, left=8),
        "xAxis": x,
        "yAxis": y,
        "visualMap": colour_bar(0.0, highest, SEQUENTIAL_SECOND, seriesIndex=0, dimension=2, precision=3),
        "series": series,
    }
    if removed:
        option["legend"] = {"bottom": 0, "left": 0, "data": [removed_name]}
    return Chart(option, 80 + HEAD_ROW * n_layers + (32 if removed else 0), title)


def clicked_heads(selection: Mapping, n_heads: int) -> list[tuple[int, int]]:
    """The heads (layer, head) a selection of ``head_grid`` names (``st.echarts_chart``'s selection state): its
    cells are numbered layer by layer, as ``layer_head_cells`` lists them."""
    return [
        divmod(int(index), n_heads)
        for group in selection.get("selected", ())
        if group.get("series_index") == 0
        for index in group.get("data_indices", ())
    ]


def pruning_curve(
    fractions: Sequence[float],
    by_importance: Sequence[float],
    random_mean: Sequence[float],
    names: tuple[str, str],
    *,
    title: str,
    axis: tuple[str, str],
) -> Chart:
    """Top-1 accuracy (in percent) against the share of heads removed, least important first and in random
    orders."""
    removed = rounded([100 * float(f) for f in fractions], 2)
    series = [
        line(
            name,
            zip(removed, rounded([100 * float(v) for v in values], 2), strict=True),
            colour,
            "{a} · {@[0]}%: {@[1]}%",
        )
        for values, name, colour in ((by_importance, names[0], VERMILLION), (random_mean, names[1], BLUE))
    ]
    option = base_option() | {
        "grid": grid(top=18, right=24, bottom=LEGEND_ROOM + 8, left=8),
        "xAxis": value_axis(name=axis[0], percent=True, min=0, max=100, nameGap=24),
        "yAxis": value_axis(name=axis[1], percent=True, min=0, nameGap=12),
        "legend": {"bottom": 0, "left": 0},
        "series": series,
    }
    return Chart(option, 390, title)


def significant(values: Sequence[float], digits: int = 4) -> list[float]:
    """Numbers to ``digits`` significant digits: removing a head may move a probability of 0.5% by a hundredth
    of a point, which a fixed number of decimals would hide for small ones or overdo for large ones."""
    return [float(f"{v:.{digits}g}") for v in values]


BAR_PAIR_PX = 44  # a candidate's two bars and the gap to the next


def compared_bars(rows: Sequence[tuple[str, float, float]], names: tuple[str, str], *, title: str) -> Chart:
    """Each candidate token's probability (in percent) with every head and with the chosen heads removed, side by
    side, the full model's likeliest at the top."""
    series = [
        {
            "type": "bar",
            "name": name,
            "data": significant([100 * float(row[1 + index]) for row in rows]),
            "itemStyle": {"color": colour},
            "label": {"show": True, "position": "right", "formatter": "{c}%"},
            "barMaxWidth": 18,
            "tooltip": {"formatter": "{a} · {b}: {c}%"},
        }
        for index, (name, colour) in enumerate(zip(names, (BLUE, VERMILLION), strict=True))
    ]
    option = base_option() | {
        "grid": grid(top=10, right=56, bottom=LEGEND_ROOM + 8),
        "xAxis": value_axis(percent=True, min=0),
        "yAxis": category_axis(unique_labels([token for token, _, _ in rows]), inverse=True),
        "legend": {"bottom": 0, "left": 0},
        "series": series,
    }
    return Chart(option, 10 + 30 + BAR_PAIR_PX * len(rows) + LEGEND_ROOM + 8, title)


MAX_LABELLED_TOKENS = 24  # past this, a cell is too narrow for its percentage


def token_views(
    tokens: Sequence[str], rows: Mapping[str, np.ndarray], names: Mapping[str, str], *, title: str
) -> Chart:
    """The views of one token as rows of one heatmap over the same tokens, in percent, each row summing to 100;
    each cell writes its whole percentage while they fit."""
    keys = list(rows)
    shares = 100 * np.stack([np.asarray(rows[k], dtype=np.float64) for k in keys])
    x, y = axis_labels(tokens), [names[k] for k in keys]
    data = heatmap_data(shares, x, y, digits=2)
    data = data.append_column("whole", pa.array(np.round(shares).astype(np.int64).ravel()))  # row by row, as the cells
    labelled = len(tokens) <= MAX_LABELLED_TOKENS
    highest = float(shares.max(initial=0.0)) or 100.0
    option = base_option() | {
        "dataset": {"source": data},
        "grid": grid(top=10, right=70, bottom=10),
        "xAxis": category_axis(x) | {"axisLabel": {"interval": 0, "rotate": 45}, "splitArea": {"show": False}},
        "yAxis": category_axis(y, inverse=True) | {"splitArea": {"show": False}},
        "visualMap": colour_bar(0, highest, SEQUENTIAL, precision=1, text=[f"{highest:.3g}%", "0%"]),
        "series": [
            {
                "type": "heatmap",
                "encode": {"x": "x", "y": "y", "value": "value"},
                # Black on a pale box: it reads on every colour of the scale.
                "label": {"show": labelled, "formatter": "{@whole}%", "fontSize": 11, "color": "#000000"}
                | {"backgroundColor": "rgba(255, 255, 255, 0.7)", "padding": [1, 3], "borderRadius": 3},
                "labelLayout": {"hideOverlap": True},
                "tooltip": {"formatter": "{@y} → {@x}: {@value}%"},
            }
        ],
    }
    return Chart(option, 120 + 56 * len(keys), title)


def profile_summary(means: dict[str, Sequence[float]], names: dict[str, str], template: str) -> str:
    """For each line of ``layer_profile``, the layer where it peaks: {feature}, {layer}, {value} of ``template``."""
    parts = []
    for key, values in means.items():
        layer = int(np.argmax(values))
        parts.append(template.format(feature=names[key], layer=layer, value=float(values[layer])))
    return SUMMARY_JOIN.join(parts)


def pattern_summary(counts: dict[str, Sequence[int]], names: dict[str, str], template: str) -> str:
    """The commonest pattern type over all heads of ``pattern_counts``: {pattern}, {n}, {total} of ``template``."""
    totals = {kind: int(sum(per_layer)) for kind, per_layer in counts.items()}
    commonest = max(totals, key=totals.get)
    return template.format(pattern=names[commonest], n=totals[commonest], total=sum(totals.values()))


def importance_summary(values: np.ndarray, template: str) -> str:
    """The most and the least important head of ``head_grid``: {top_layer}, {top_head}, {top}, {low_layer},
    {low_head}, {low} of ``template``."""
    values = np.asarray(values, dtype=np.float64)
    top = np.unravel_index(int(np.argmax(values)), values.shape)
    low = np.unravel_index(int(np.argmin(values)), values.shape)
    return template.format(
        top_layer=top[0],
        top_head=top[1],
        top=float(values[top]),
        low_layer=low[0],
        low_head=low[1],
        low=float(values[low]),
    )


def thumbnails_summary(
    patterns: np.ndarray, names: dict[str, str], template: str, *, skip: str = "heterogeneous"
) -> str:
    """For each pattern type of ``thumbnails`` (but ``skip``, the type that means "no clear pattern"), the layer
    with the most heads of it: {pattern}, {layer}, {n}, {heads} of ``template``, commonest type first."""
    patterns = np.asarray(patterns).astype(str)
    heads_per_layer = patterns.shape[1]
    found = []
    for kind, name in names.items():
        if kind == skip:
            continue
        per_layer = (patterns == kind).sum(axis=1)
        if per_layer.any():
            layer = int(np.argmax(per_layer))
            found.append((int(per_layer.sum()), name, layer, int(per_layer[layer])))
    found.sort(key=lambda item: -item[0])  # stable: ties keep the order of ``names``
    return SUMMARY_JOIN.join(
        template.format(pattern=name, layer=layer, n=n, heads=heads_per_layer) for _, name, layer, n in found
    )


def compared_summary(rows: Sequence[tuple[str, float, float]], template: str) -> str:
    """The candidate of ``compared_bars`` whose probability moved most when heads were removed: {token},
    {before}, {after} of ``template``."""
    token, before, after = max(rows, key=lambda row: abs(row[2] - row[1]))
    return template.format(token=token, before=before, after=after)


def views_summary(tokens: Sequence[str], rows: dict[str, np.ndarray], names: dict[str, str], template: str) -> str:
    """The token each view of ``token_views`` weighs most: {view}, {token}, {value} of ``template`` per view."""
    parts = []
    for key, row in rows.items():
        top = int(np.argmax(row))
        parts.append(template.format(view=names[key], token=tokens[top], value=float(row[top])))
    return SUMMARY_JOIN.join(parts)
