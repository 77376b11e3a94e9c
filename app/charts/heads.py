"""Figures of the head lab: layer-by-head grids, thumbnails of every head, importance, the pruning curve and the
four views of one token side by side.

Pure builders: arrays and already translated strings in, ``go.Figure`` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .base import (
    COLORBAR_ROOM,
    SUMMARY_JOIN,
    axis_labels,
    base_layout,
    bottom_margin,
    figure,
    left_margin,
    legend_squares,
    rotated_bottom_margin,
    scale,
    shown,
)
from .palette import BLUE, GREEN, ORANGE, PURPLE, SEQUENTIAL, SEQUENTIAL_SECOND, VERMILLION

PATTERN_COLOURS = {
    "vertical": BLUE,
    "diagonal": ORANGE,
    "vertical+diagonal": GREEN,
    "block": PURPLE,
    "heterogeneous": "#999999",
}
FEATURE_COLOURS = {"cls": BLUE, "sep": VERMILLION, "punct": GREEN, "prev": ORANGE, "next": PURPLE}
FONT_SIZE = 16  # projector-readable


def _layout(title: str | None, height: int, margin: dict, **extra) -> dict:
    """``base_layout`` in the head lab's projector-sized type, with ``extra`` layout properties."""
    layout = base_layout(title, height, margin)
    return layout | {"font": layout["font"] | {"size": FONT_SIZE}} | extra


def _axis(title: str | None = None, **properties) -> dict:
    return ({} if title is None else {"title": {"text": title}}) | properties


def layer_profile(
    means: dict[str, Sequence[float]], names: dict[str, str], *, title: str, axis: tuple[str, str]
) -> go.Figure:
    """One line per feature: its average share over the heads of each layer."""
    data = [
        {
            "type": "scatter",
            "x": list(range(len(values))),
            "y": list(values),
            "mode": "lines+markers",
            "name": names[key],
            "line": {"width": 3, "color": FEATURE_COLOURS.get(key)},
            "hovertemplate": "%{x}: %{y:.1%}<extra>" + names[key] + "</extra>",
        }
        for key, values in means.items()
    ]
    margin = {"l": left_margin(["100%"], title=True), "b": bottom_margin(title=True, legends=1)}
    layout = _layout(
        title,
        380,
        margin,
        xaxis=_axis(axis[0], dtick=1),
        yaxis=_axis(axis[1], tickformat=".0%", range=[0, 1]),
        legend={"orientation": "h", "y": -0.2},
    )
    return figure({"data": data, "layout": layout})


def thumbnails(
    maps: np.ndarray, patterns: np.ndarray, pattern_names: dict[str, str], *, title: str, axis: tuple[str, str]
) -> go.Figure:
    """Every head's map of one input as a small picture in a layer x head grid, framed in its pattern's colour.

    ``maps`` (L, nh, t, t); the pictures are tiled into one heatmap with a one-cell gap, so 144 heads stay one
    trace. Each picture is scaled to its own maximum, so sharp and broad heads are both visible.
    """
    L, nh, t, _ = maps.shape
    cell = t + 1
    canvas = np.full((L * cell, nh * cell), np.nan)
    for layer in range(L):
        for head in range(nh):
            m = maps[layer, head]
            canvas[layer * cell : layer * cell + t, head * cell : head * cell + t] = m / (m.max() or 1.0)
    frames = [
        {
            "type": "rect",
            "x0": head * cell - 0.5,
            "x1": head * cell + t - 0.5,
            "y0": layer * cell - 0.5,
            "y1": layer * cell + t - 0.5,
            "line": {"color": PATTERN_COLOURS[str(patterns[layer, head])], "width": 3},
        }
        for layer in range(L)
        for head in range(nh)
    ]
    pictures = {
        "type": "heatmap",
        "z": shown(canvas),
        "colorscale": scale(SEQUENTIAL),
        "zmin": 0,
        "zmax": 1,
        "showscale": False,
        "hoverinfo": "skip",
    }
    # Legend entries for the frame colours.
    squares = legend_squares(
        [(pattern_names[kind], colour) for kind, colour in PATTERN_COLOURS.items()],
        symbol="square-open",
        line={"width": 3},
    )
    margin = {"l": left_margin([str(L - 1)], title=True), "b": bottom_margin(title=True, legends=2)}  # 114 px
    layout = _layout(
        title,
        120 + 70 * L,
        margin,
        shapes=frames,
        xaxis=_axis(
            axis[1],
            tickvals=[h * cell + t / 2 for h in range(nh)],
            ticktext=[str(h) for h in range(nh)],
            showgrid=False,
            zeroline=False,
        ),
        yaxis=_axis(
            axis[0],
            tickvals=[layer * cell + t / 2 for layer in range(L)],
            ticktext=[str(layer) for layer in range(L)],
            autorange="reversed",
            showgrid=False,
            zeroline=False,
            scaleanchor="x",
            constrain="domain",  # the heads' numbers right under the pictures, not under empty rows on a narrow screen
        ),
        legend={"orientation": "h", "y": -0.2},  # under the axis title, not on it
        plot_bgcolor="white",
    )
    return figure({"data": [pictures, *squares], "layout": layout})


def pattern_counts(
    counts: dict[str, Sequence[int]], names: dict[str, str], *, title: str, axis: tuple[str, str]
) -> go.Figure:
    """Stacked bars: how many heads of each layer have each pattern type."""
    data = [
        {
            "type": "bar",
            "x": list(range(len(per_layer))),
            "y": list(per_layer),
            "name": names[kind],
            "marker": {"color": PATTERN_COLOURS[kind]},
        }
        for kind, per_layer in counts.items()
    ]
    most = max((sum(column) for column in zip(*counts.values())), default=0)
    margin = {"l": left_margin([str(most)], title=True), "b": bottom_margin(title=True, legends=1)}
    layout = _layout(
        title,
        380,
        margin,
        barmode="stack",
        legend={"orientation": "h", "y": -0.2},
        xaxis=_axis(axis[0], dtick=1),
        yaxis=_axis(axis[1]),
    )
    return figure({"data": data, "layout": layout})


def head_grid(
    values: np.ndarray,
    removed: Sequence[tuple[int, int]],
    *,
    title: str,
    value_name: str,
    removed_name: str,
    axis: tuple[str, str],
) -> go.Figure:
    """A layer x head grid of clickable squares coloured by ``values`` (importance); removed heads are crossed.

    Squares are scatter markers rather than heatmap cells because Streamlit reports clicks on points.
    """
    L, nh = values.shape
    ys, xs = np.divmod(np.arange(L * nh), nh)
    size = 30 if nh <= 12 else 20
    data = [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "markers",
            "marker": {
                "symbol": "square",
                "size": size,
                "color": values.ravel().tolist(),
                "colorscale": scale(SEQUENTIAL_SECOND),
                "showscale": True,
                "colorbar": {"title": {"text": value_name}},
                "line": {"width": 1, "color": "#666"},
            },
            "customdata": np.stack([ys, xs], -1),
            "hovertemplate": f"{axis[0]} %{{y}}, {axis[1]} %{{x}}: %{{marker.color:.3f}}<extra>{value_name}</extra>",
            "showlegend": False,
        }
    ]
    if removed:
        data.append(
            {
                "type": "scatter",
                "x": [h for _, h in removed],
                "y": [layer for layer, _ in removed],
                "mode": "markers",
                "name": removed_name,
                "marker": {"symbol": "x-thin", "size": size * 0.8, "line": {"width": 4, "color": "#000"}},
                "hoverinfo": "skip",
            }
        )
    # The colour bar carries a title beside its numbers (measured 139-147 px on the right); the removed heads' legend
    # entry goes under the axis title.
    margin = {
        "l": left_margin([str(L - 1)], title=True),
        "r": COLORBAR_ROOM + 40,
        "b": bottom_margin(title=True, legends=1 if removed else 0),
    }
    layout = _layout(
        title,
        140 + 44 * L,
        margin,
        xaxis=_axis(axis[1], dtick=1, range=[-0.6, nh - 0.4], showgrid=False, zeroline=False),
        yaxis=_axis(axis[0], dtick=1, range=[L - 0.4, -0.6], showgrid=False, zeroline=False),
        clickmode="event+select",
        legend={"orientation": "h", "y": -0.2},
        plot_bgcolor="white",
    )
    return figure({"data": data, "layout": layout})


def pruning_curve(
    fractions: Sequence[float],
    by_importance: Sequence[float],
    random_mean: Sequence[float],
    names: tuple[str, str],
    *,
    title: str,
    axis: tuple[str, str],
) -> go.Figure:
    data = [
        {
            "type": "scatter",
            "x": list(fractions),
            "y": list(values),
            "mode": "lines+markers",
            "name": name,
            "line": {"width": 3, "color": colour},
            "hovertemplate": "%{x:.0%}: %{y:.1%}<extra>" + name + "</extra>",
        }
        for values, name, colour in ((by_importance, names[0], VERMILLION), (random_mean, names[1], BLUE))
    ]
    margin = {"l": left_margin(["100%"], title=True), "b": bottom_margin(title=True, legends=1)}
    layout = _layout(
        title,
        420,
        margin,
        xaxis=_axis(axis[0], tickformat=".0%", range=[-0.02, 1.02]),
        yaxis=_axis(axis[1], tickformat=".0%", rangemode="tozero"),
        legend={"orientation": "h", "y": -0.22},
    )
    return figure({"data": data, "layout": layout})


def compared_bars(rows: Sequence[tuple[str, float, float]], names: tuple[str, str], *, title: str) -> go.Figure:
    """Each candidate token's probability with every head and with the chosen heads removed, side by side."""
    labels = axis_labels([tok for tok, _, _ in rows])
    data = []
    for index, (name, colour) in enumerate(zip(names, (BLUE, VERMILLION), strict=True)):
        values = [row[1 + index] for row in rows]
        data.append(
            {
                "type": "bar",
                "y": labels,
                "x": values,
                "orientation": "h",
                "name": name,
                "marker": {"color": colour},
                "text": [f"{v:.1%}" for v in values],
                "textposition": "auto",
                "hovertemplate": "%{y}: %{x:.2%}<extra>" + name + "</extra>",
            }
        )
    # The legend's larger type takes more than a row's room: measured 77 px under the plot.
    layout = _layout(
        title,
        140 + 48 * len(rows),
        {"l": left_margin(labels), "b": bottom_margin(legends=2)},
        yaxis={"autorange": "reversed", "type": "category"},
        xaxis={"tickformat": ".0%", "rangemode": "tozero"},
        barmode="group",
        legend={"orientation": "h", "y": -0.15},
    )
    return figure({"data": data, "layout": layout})


def token_views(tokens: Sequence[str], rows: dict[str, np.ndarray], names: dict[str, str], *, title: str) -> go.Figure:
    """The views of one token as rows of one heatmap over the same tokens, each row's shares summing to 1."""
    keys = list(rows)
    z = np.stack([rows[k] for k in keys])
    x_labels, y_labels = axis_labels(tokens), [names[k] for k in keys]
    views = {
        "type": "heatmap",
        "z": z,
        "x": x_labels,
        "y": y_labels,
        "colorscale": scale(SEQUENTIAL),
        "zmin": 0,
        "zmax": float(z.max()) or 1.0,
        "hovertemplate": "%{y} → %{x}: %{z:.1%}<extra></extra>",
    } | ({"texttemplate": "%{z:.0%}"} if len(tokens) <= 24 else {})
    margin = {"l": left_margin(y_labels), "r": COLORBAR_ROOM, "b": rotated_bottom_margin(x_labels)}
    layout = _layout(
        title,
        130 + 70 * len(keys),
        margin,
        xaxis={"type": "category", "tickangle": -45},
        yaxis={"autorange": "reversed"},
    )
    return figure({"data": [views], "layout": layout})


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
