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
    bottom_margin,
    left_margin,
    rotated_bottom_margin,
    shown,
    style,
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


def layer_profile(
    means: dict[str, Sequence[float]], names: dict[str, str], *, title: str, axis: tuple[str, str]
) -> go.Figure:
    """One line per feature: its average share over the heads of each layer."""
    fig = go.Figure()
    for key, values in means.items():
        fig.add_trace(
            go.Scatter(
                x=list(range(len(values))),
                y=list(values),
                mode="lines+markers",
                name=names[key],
                line={"width": 3, "color": FEATURE_COLOURS.get(key)},
                hovertemplate="%{x}: %{y:.1%}<extra>" + names[key] + "</extra>",
            )
        )
    fig.update_xaxes(title_text=axis[0], dtick=1)
    fig.update_yaxes(title_text=axis[1], tickformat=".0%", range=[0, 1])
    fig.update_layout(font_size=FONT_SIZE, legend={"orientation": "h", "y": -0.2})
    return style(fig, title, 380, {"l": left_margin(["100%"], title=True), "b": bottom_margin(title=True, legends=1)})


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
    frames = [  # one list set at once: 144 add_shape calls would take a second of validation
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
    fig = go.Figure(
        go.Heatmap(z=shown(canvas), colorscale=SEQUENTIAL, zmin=0, zmax=1, showscale=False, hoverinfo="skip"),
        layout={"shapes": frames},
    )
    for kind, colour in PATTERN_COLOURS.items():  # legend entries for the frame colours
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=pattern_names[kind],
                marker={"symbol": "square-open", "size": 14, "color": colour, "line": {"width": 3}},
            )
        )
    fig.update_xaxes(
        tickvals=[h * cell + t / 2 for h in range(nh)],
        ticktext=[str(h) for h in range(nh)],
        title_text=axis[1],
        showgrid=False,
        zeroline=False,
    )
    fig.update_yaxes(
        tickvals=[layer * cell + t / 2 for layer in range(L)],
        ticktext=[str(layer) for layer in range(L)],
        title_text=axis[0],
        autorange="reversed",
        showgrid=False,
        zeroline=False,
        scaleanchor="x",
        constrain="domain",  # the heads' numbers right under the pictures, not under empty rows on a narrow screen
    )
    # The legend under the axis title, not on it.
    fig.update_layout(font_size=FONT_SIZE, legend={"orientation": "h", "y": -0.2}, plot_bgcolor="white")
    return style(
        fig,
        title,
        120 + 70 * L,
        {"l": left_margin([str(L - 1)], title=True), "b": bottom_margin(title=True, legends=2)},  # measured 114 px
    )


def pattern_counts(
    counts: dict[str, Sequence[int]], names: dict[str, str], *, title: str, axis: tuple[str, str]
) -> go.Figure:
    """Stacked bars: how many heads of each layer have each pattern type."""
    fig = go.Figure()
    for kind, per_layer in counts.items():
        fig.add_trace(
            go.Bar(
                x=list(range(len(per_layer))), y=list(per_layer), name=names[kind], marker_color=PATTERN_COLOURS[kind]
            )
        )
    fig.update_layout(barmode="stack", font_size=FONT_SIZE, legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(title_text=axis[0], dtick=1)
    fig.update_yaxes(title_text=axis[1])
    most = max((sum(column) for column in zip(*counts.values())), default=0)
    return style(
        fig, title, 380, {"l": left_margin([str(most)], title=True), "b": bottom_margin(title=True, legends=1)}
    )


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
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers",
            marker={
                "symbol": "square",
                "size": size,
                "color": values.ravel().tolist(),
                "colorscale": SEQUENTIAL_SECOND,
                "showscale": True,
                "colorbar": {"title": {"text": value_name}},
                "line": {"width": 1, "color": "#666"},
            },
            customdata=np.stack([ys, xs], -1),
            hovertemplate=f"{axis[0]} %{{y}}, {axis[1]} %{{x}}: %{{marker.color:.3f}}<extra>{value_name}</extra>",
            showlegend=False,
        )
    )
    if removed:
        fig.add_trace(
            go.Scatter(
                x=[h for _, h in removed],
                y=[layer for layer, _ in removed],
                mode="markers",
                name=removed_name,
                marker={"symbol": "x-thin", "size": size * 0.8, "line": {"width": 4, "color": "#000"}},
                hoverinfo="skip",
            )
        )
    fig.update_xaxes(title_text=axis[1], dtick=1, range=[-0.6, nh - 0.4], showgrid=False, zeroline=False)
    fig.update_yaxes(title_text=axis[0], dtick=1, range=[L - 0.4, -0.6], showgrid=False, zeroline=False)
    fig.update_layout(
        font_size=FONT_SIZE, clickmode="event+select", legend={"orientation": "h", "y": -0.2}, plot_bgcolor="white"
    )
    # The colour bar carries a title beside its numbers (measured 139-147 px on the right); the removed heads' legend
    # entry goes under the axis title.
    margin = {
        "l": left_margin([str(L - 1)], title=True),
        "r": COLORBAR_ROOM + 40,
        "b": bottom_margin(title=True, legends=1 if removed else 0),
    }
    return style(fig, title, 140 + 44 * L, margin)


def pruning_curve(
    fractions: Sequence[float],
    by_importance: Sequence[float],
    random_mean: Sequence[float],
    names: tuple[str, str],
    *,
    title: str,
    axis: tuple[str, str],
) -> go.Figure:
    fig = go.Figure()
    for values, name, colour in ((by_importance, names[0], VERMILLION), (random_mean, names[1], BLUE)):
        fig.add_trace(
            go.Scatter(
                x=list(fractions),
                y=list(values),
                mode="lines+markers",
                name=name,
                line={"width": 3, "color": colour},
                hovertemplate="%{x:.0%}: %{y:.1%}<extra>" + name + "</extra>",
            )
        )
    fig.update_xaxes(title_text=axis[0], tickformat=".0%", range=[-0.02, 1.02])
    fig.update_yaxes(title_text=axis[1], tickformat=".0%", rangemode="tozero")
    fig.update_layout(font_size=FONT_SIZE, legend={"orientation": "h", "y": -0.22})
    return style(fig, title, 420, {"l": left_margin(["100%"], title=True), "b": bottom_margin(title=True, legends=1)})


def compared_bars(rows: Sequence[tuple[str, float, float]], names: tuple[str, str], *, title: str) -> go.Figure:
    """Each candidate token's probability with every head and with the chosen heads removed, side by side."""
    labels = axis_labels([tok for tok, _, _ in rows])
    fig = go.Figure()
    for index, (name, colour) in enumerate(zip(names, (BLUE, VERMILLION), strict=True)):
        values = [row[1 + index] for row in rows]
        fig.add_trace(
            go.Bar(
                y=labels,
                x=values,
                orientation="h",
                name=name,
                marker_color=colour,
                text=[f"{v:.1%}" for v in values],
                textposition="auto",
                hovertemplate="%{y}: %{x:.2%}<extra>" + name + "</extra>",
            )
        )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(tickformat=".0%", rangemode="tozero")
    fig.update_layout(barmode="group", font_size=FONT_SIZE, legend={"orientation": "h", "y": -0.15})
    # The legend's larger type takes more than a row's room: measured 77 px under the plot.
    return style(fig, title, 140 + 48 * len(rows), {"l": left_margin(labels), "b": bottom_margin(legends=2)})


def token_views(tokens: Sequence[str], rows: dict[str, np.ndarray], names: dict[str, str], *, title: str) -> go.Figure:
    """The views of one token as rows of one heatmap over the same tokens, each row's shares summing to 1."""
    keys = list(rows)
    z = np.stack([rows[k] for k in keys])
    x_labels, y_labels = axis_labels(tokens), [names[k] for k in keys]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=x_labels,
            y=y_labels,
            colorscale=SEQUENTIAL,
            zmin=0,
            zmax=float(z.max()) or 1.0,
            texttemplate="%{z:.0%}" if len(tokens) <= 24 else None,
            hovertemplate="%{y} → %{x}: %{z:.1%}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category", tickangle=-45)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(font_size=FONT_SIZE)
    margin = {"l": left_margin(y_labels), "r": COLORBAR_ROOM, "b": rotated_bottom_margin(x_labels)}
    return style(fig, title, 130 + 70 * len(keys), margin)


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
