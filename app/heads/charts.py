"""Figures of the head lab: layer-by-head grids, thumbnails of every head, importance, the pruning curve and the
four views of one token side by side.

Pure builders: arrays and already translated strings in, a ``Chart`` out. The importance grid is a widget: a click
on a cell selects the point over it, and ``clicked_heads`` reads which heads plotly's selection names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from app.core.charts import (
    AXIS_TITLE_ROOM,
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    COLORBAR_ROOM,
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    colour_bar,
    heatmap_spec,
    left_margin,
    legend_below,
    legend_entries,
    line,
    plotly_text,
    scale,
    unique_labels,
    value_axis,
)
from app.core.counting import counted
from app.core.palette import BLUE, GREEN, ORANGE, PURPLE, SEQUENTIAL, SEQUENTIAL_SECOND, VERMILLION
from app.core.shared_charts import layer_axis, layer_head_axes

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
    data = [
        line(
            names[key],
            range(1, len(values) + 1),  # encoder layers, counted from 1
            [round(100 * float(v), 2) for v in values],
            FEATURE_COLOURS.get(key),
            f"{plotly_text(names[key])} · {plotly_text(axis[0])} %{{x}}: %{{y}}%<extra></extra>",
        )
        for key, values in means.items()
    ]
    layout = base_layout(
        350 + LEGEND_ROOM,
        # Five names: room for the legend's second line on a narrow screen.
        {"t": 18, "l": left_margin(["100%"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM},
        legend=legend_below(),
        showlegend=True,
        xaxis=layer_axis(n_layers, axis[0], first=1),
        yaxis=value_axis(title=axis[1], percent=True, range=[0, 100]),
    )
    return chart(data, layout, title)


# Thumbnails: every head's map is a tile of one heatmap, two cells of empty margin around it; a tile's frame is
# drawn through the margin's inner cells, so that it never covers the picture and a gap parts two frames.
TILE_MARGIN = 2
THUMBNAIL_ROW = 64  # pixels per layer: a tile about as tall as it is wide on a 1400 px screen


def thumbnail_canvas(maps: np.ndarray) -> np.ndarray:
    """Every head's map (L, nh, t, t) as the tiles of one picture, in whole percent of the head's own largest
    weight (so that sharp and broad heads both show), NaN (nothing drawn) in the margins between tiles: float32,
    144 heads of 24 tokens are 0.4 MB."""
    L, nh, t, _ = maps.shape
    pitch = t + 2 * TILE_MARGIN
    peaks = maps.max(axis=(2, 3), keepdims=True)
    scaled = np.round(100 * maps / np.where(peaks > 0, peaks, 1.0))
    canvas = np.full((L, pitch, nh, pitch), np.nan, dtype=np.float32)
    canvas[:, TILE_MARGIN : TILE_MARGIN + t, :, TILE_MARGIN : TILE_MARGIN + t] = scaled.transpose(0, 2, 1, 3)
    return canvas.reshape(L * pitch, nh * pitch)


def tile_frame(layer: int, head: int, pitch: int, colour: str) -> dict:
    """A rectangle around one tile, its edge through the middle of the margin cells next to the tile."""
    first, last = TILE_MARGIN - 1, pitch - TILE_MARGIN  # the margin cells either side of the tile
    return {
        "type": "rect",
        "x0": head * pitch + first,
        "x1": head * pitch + last,
        "y0": layer * pitch + first,
        "y1": layer * pitch + last,
        "line": {"color": colour, "width": 3},
    }


def thumbnails(
    maps: np.ndarray, patterns: np.ndarray, pattern_names: Mapping[str, str], *, title: str, axis: tuple[str, str]
) -> Chart:
    """Every head's map of one input as a small picture in a layer x head grid, framed in its pattern's colour.

    ``maps`` (L, nh, t, t). The pictures are tiles of one heatmap (``thumbnail_canvas``), so 144 heads stay one
    trace, and the frames one list of shapes; each picture is scaled to its own maximum. An invisible point at
    each tile's middle hovers its head's name and pattern; the axes number the layers and heads there."""
    L, nh, t, _ = maps.shape
    pitch = t + 2 * TILE_MARGIN
    kinds = [[str(patterns[layer, head]) for head in range(nh)] for layer in range(L)]
    pictures = {
        "type": "heatmap",
        "z": thumbnail_canvas(maps),
        "colorscale": scale(SEQUENTIAL),
        "zmin": 0,
        "zmax": 100,
        "showscale": False,
        "hoverinfo": "skip",
    }
    middles = np.arange(L * nh)
    names = {
        "type": "scatter",
        "mode": "markers",
        "x": (middles % nh) * pitch + (pitch - 1) / 2,
        "y": (middles // nh) * pitch + (pitch - 1) / 2,
        "hovertext": [
            plotly_text(f"{axis[0]} {counted(layer)} · {axis[1]} {counted(head)}: {pattern_names[kinds[layer][head]]}")
            for layer in range(L)
            for head in range(nh)
        ],
        "hoverinfo": "text",
        "marker": {"size": 24, "opacity": 0},
        "showlegend": False,
    }
    legend = [(pattern_names[kind], colour) for kind, colour in PATTERN_COLOURS.items()]
    centres = [i * pitch + (pitch - 1) / 2 for i in range(max(L, nh))]
    numbered = {"showgrid": False, "zeroline": False, "ticks": ""}
    layout = base_layout(
        10 + THUMBNAIL_ROW * L + BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM,
        {
            "l": left_margin([str(L)], title=True),
            "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM,  # the legend may take two lines
        },
        legend=legend_below(),
        showlegend=True,
        hoverdistance=THUMBNAIL_ROW // 2,
        shapes=[
            tile_frame(layer, head, pitch, PATTERN_COLOURS[kinds[layer][head]])
            for layer in range(L)
            for head in range(nh)
        ],
        xaxis=numbered
        | {
            "title": {"text": plotly_text(axis[1])},
            "range": [-0.5, nh * pitch - 0.5],
            "tickvals": centres[:nh],
            "ticktext": [str(counted(h)) for h in range(nh)],
        },
        yaxis=numbered
        | {
            "title": {"text": plotly_text(axis[0])},
            "range": [L * pitch - 0.5, -0.5],
            "tickvals": centres[:L],
            "ticktext": [str(counted(layer)) for layer in range(L)],
        },
        plot_bgcolor="#FFFFFF",
    )
    squares = legend_entries(legend, symbol="square-open", line={"width": 3})
    return chart([pictures, names, *squares], layout, title)


def pattern_counts(
    counts: Mapping[str, Sequence[int]], names: Mapping[str, str], *, title: str, axis: tuple[str, str]
) -> Chart:
    """Stacked bars: how many heads of each layer have each pattern type."""
    n_layers = max((len(per_layer) for per_layer in counts.values()), default=1)
    data = [
        {
            "type": "bar",
            "name": plotly_text(names[kind]),
            "x": list(range(1, len(per_layer) + 1)),  # encoder layers, counted from 1
            "y": [int(n) for n in per_layer],
            "marker": {"color": PATTERN_COLOURS[kind]},
            "hovertemplate": f"{plotly_text(names[kind])} · {plotly_text(axis[0])} %{{x}}: %{{y}}<extra></extra>",
        }
        for kind, per_layer in counts.items()
    ]
    layout = base_layout(
        350 + LEGEND_ROOM,
        # The legend may take two lines.
        {"t": 18, "l": left_margin(["12"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM},
        barmode="stack",
        legend=legend_below(),
        showlegend=True,
        xaxis=layer_axis(n_layers, axis[0], padded=True, first=1),
        yaxis=value_axis(title=axis[1], rangemode="tozero", tickformat="d"),
    )
    return chart(data, layout, title)


HEAD_ROW = 40  # pixels per layer of the importance grid: cells big enough to click
REMOVED_SIZE = 14  # a removed head's cross


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

    A widget: plotly selects points, not heatmap cells, so an invisible point stands on each cell (trace 1, layer
    by layer), and a click selects it (``clickmode`` event+select); ``clicked_heads`` turns a selection back
    into heads. The crosses take no hover, so a click goes to the point under them."""
    values = np.asarray(values, dtype=np.float64)
    n_layers, n_heads = values.shape
    x, y = layer_head_axes(n_layers, n_heads, axis)
    highest = float(values.max(initial=0.0)) or 1.0  # an importance is at least 0: the scale starts there
    name = plotly_text(value_name)
    cells = {
        "type": "heatmap",
        "z": values,
        "x": list(range(n_heads)),
        "y": list(range(n_layers)),
        "zmin": 0.0,
        "zmax": highest,
        "xgap": 1,
        "ygap": 1,
        "hoverinfo": "skip",
    } | colour_bar(SEQUENTIAL_SECOND, title={"text": name, "side": "right"})
    layers, heads = np.divmod(np.arange(n_layers * n_heads), n_heads)
    targets = {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": heads,
        "y": layers,
        "customdata": np.column_stack([values.ravel(), layers + 1, heads + 1]),  # layer and head as pages count
        "hovertemplate": f"{plotly_text(axis[0])} %{{customdata[1]}}, {plotly_text(axis[1])} %{{customdata[2]}} · "
        f"{name}: %{{customdata[0]:.3f}}<extra></extra>",
        "marker": {"symbol": "square", "size": HEAD_ROW - 8, "opacity": 0},
        "selected": {"marker": {"opacity": 0}},
        "unselected": {"marker": {"opacity": 0}},
        "showlegend": False,
    }
    data = [cells, targets]
    if removed:
        data.append(removed_crosses(removed, removed_name))
    margin = {
        "l": 40 + AXIS_TITLE_ROOM,
        "r": COLORBAR_ROOM + 30,  # the colour bar's title beside its numbers
        "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + (LEGEND_ROOM if removed else 0),
    }
    layout = base_layout(
        80 + HEAD_ROW * n_layers + (LEGEND_ROOM if removed else 0),
        margin,
        clickmode="event+select",
        hoverdistance=-1,  # a click anywhere in a cell picks its point, however wide the cell
        showlegend=bool(removed),
        legend=legend_below(),
        xaxis=x,
        yaxis=y,
        plot_bgcolor="#FFFFFF",
    )
    return chart(data, layout, title)


def removed_crosses(removed: Sequence[tuple[int, int]], removed_name: str) -> dict:
    """A cross on each removed head of ``head_grid``; it takes no hover, so a click reaches the point under it."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": plotly_text(removed_name),
        "x": [head for _, head in removed],
        "y": [layer for layer, _ in removed],
        "marker": {
            "symbol": "x",
            "size": REMOVED_SIZE,
            "color": "#FFFFFF",
            "line": {"color": "#000000", "width": 1.5},
        },
        "hoverinfo": "skip",
        "showlegend": True,
    }


def clicked_heads(selection: Mapping, n_heads: int) -> list[tuple[int, int]]:
    """The heads (layer, head) a selection of ``head_grid`` names (``st.plotly_chart``'s selection state): each
    point's x (head) and y (layer), or where a point lacks them, its index in trace 1, whose points stand on
    the cells layer by layer. Each head once, in the order clicked."""
    found: list[tuple[int, int]] = []
    for point in selection.get("points", ()):
        if point.get("x") is not None and point.get("y") is not None:
            head = (int(round(float(point["y"]))), int(round(float(point["x"]))))
        elif point.get("curve_number", 1) == 1 and point.get("point_index") is not None:
            head = divmod(int(point["point_index"]), n_heads)
        else:
            continue
        if head not in found:
            found.append(head)
    if not found and not selection.get("points"):  # only the indices: the points of trace 1
        found = [divmod(int(index), n_heads) for index in selection.get("point_indices", ())]
    return found


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
    removed = [round(100 * float(f), 2) for f in fractions]
    data = [
        line(
            name,
            removed,
            [round(100 * float(v), 2) for v in values],
            colour,
            f"{plotly_text(name)} · %{{x}}%: %{{y}}%<extra></extra>",
        )
        for values, name, colour in ((by_importance, names[0], VERMILLION), (random_mean, names[1], BLUE))
    ]
    layout = base_layout(
        390,
        {"t": 18, "r": 24, "l": left_margin(["100%"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + LEGEND_ROOM},
        legend=legend_below(),
        showlegend=True,
        xaxis=value_axis(title=axis[0], percent=True, range=[0, 100]),
        yaxis=value_axis(title=axis[1], percent=True, rangemode="tozero"),
    )
    return chart(data, layout, title)


def significant(values: Sequence[float], digits: int = 4) -> list[float]:
    """Numbers to ``digits`` significant digits: removing a head may move a probability of 0.5% by a hundredth
    of a point, which a fixed number of decimals would hide for small ones or overdo for large ones."""
    return [float(f"{v:.{digits}g}") for v in values]


BAR_PAIR_PX = 44  # a candidate's two bars and the gap to the next


def compared_bars(rows: Sequence[tuple[str, float, float]], names: tuple[str, str], *, title: str) -> Chart:
    """Each candidate token's probability (in percent) with every head and with the chosen heads removed, side by
    side, the full model's likeliest at the top."""
    tokens = unique_labels([token for token, _, _ in rows])
    data = []
    for index, (name, colour) in enumerate(zip(names, (BLUE, VERMILLION), strict=True)):
        percents = significant([100 * float(row[1 + index]) for row in rows])
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": plotly_text(name),
                "x": percents,
                "y": tokens,
                "marker": {"color": colour},
                "text": [f"{p:g}%" for p in percents],
                "textposition": "outside",
                "cliponaxis": False,
                "hovertemplate": f"{plotly_text(name)} · %{{y}}: %{{x}}%<extra></extra>",
            }
        )
    layout = base_layout(
        10 + BOTTOM_ROOM + BAR_PAIR_PX * len(rows) + LEGEND_ROOM,
        {"l": left_margin(tokens), "r": 64, "b": BOTTOM_ROOM + LEGEND_ROOM},
        barmode="group",
        legend=legend_below(traceorder="normal"),
        showlegend=True,
        yaxis=category_axis(tokens, autorange="reversed"),
        xaxis=value_axis(percent=True, rangemode="tozero"),
    )
    return chart(data, layout, title)


MAX_LABELLED_TOKENS = 24  # past this, a cell is too narrow for its percentage


def token_views(
    tokens: Sequence[str], rows: Mapping[str, np.ndarray], names: Mapping[str, str], *, title: str
) -> Chart:
    """The views of one token as rows of one heatmap over the same tokens, in percent, each row summing to 100;
    each cell writes its whole percentage while they fit (plotly picks black or white for each)."""
    keys = list(rows)
    shares = 100 * np.stack([np.asarray(rows[k], dtype=np.float64) for k in keys])
    highest = float(shares.max(initial=0.0)) or 100.0
    spec = heatmap_spec(
        shares,
        list(tokens),
        [names[k] for k in keys],
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=highest,
        hover="%{y} → %{x}: %{z:.2f}%<extra></extra>",
        height=120 + 56 * len(keys),
    )
    [cells] = spec["data"]
    cells["colorbar"] |= {"ticksuffix": "%"}
    if len(tokens) <= MAX_LABELLED_TOKENS:
        cells |= {"text": np.round(shares).astype(np.int64), "texttemplate": "%{text}%", "textfont": {"size": 11}}
    spec["layout"]["dragmode"] = False  # four rows: nothing to zoom into
    return chart([cells], spec["layout"], title)


def profile_summary(means: dict[str, Sequence[float]], names: dict[str, str], template: str) -> str:
    """For each line of ``layer_profile``, the layer where it peaks: {feature}, {layer}, {value} of ``template``."""
    parts = []
    for key, values in means.items():
        layer = int(np.argmax(values))
        parts.append(template.format(feature=names[key], layer=counted(layer), value=float(values[layer])))
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
        top_layer=counted(top[0]),
        top_head=counted(top[1]),
        top=float(values[top]),
        low_layer=counted(low[0]),
        low_head=counted(low[1]),
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
        template.format(pattern=name, layer=counted(layer), n=n, heads=heads_per_layer) for _, name, layer, n in found
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
