"""Figures of the attention page: a query-by-key map per mask, and the statistics of every head.

Pure builders: arrays and already translated strings in, ``go.Figure`` (or a size) out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .base import SUMMARY_JOIN, base_layout, bottom_margin, figure, heatmap_spec, left_margin, scale, shown, style
from .palette import ORANGE, SEQUENTIAL, SEQUENTIAL_SECOND, VERMILLION

MAX_MAP_HEIGHT = 900
# Two panels a row: with three, a 12-head panel is 150 px wide at 800 px and its numbers and titles collide.
GRID_COLUMNS = 2
# Write each cell's value into the statistics grid only while the cells are big enough to read it.
MAX_ANNOTATED_HEADS = 144
# Between the statistics grid's panels: horizontal and vertical, as shares of the figure.
GRID_SPACING = (0.06, 0.16)


def attention_map(matrix: np.ndarray, tokens: Sequence[str], *, title: str, zmax: float) -> go.Figure:
    """Rows are the tokens that look (queries), columns the tokens looked at (keys)."""
    spec = heatmap_spec(
        shown(matrix),  # a 512-token map is 2 MB in float64
        list(tokens),
        list(tokens),
        title=title,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=zmax,
        height=min(MAX_MAP_HEIGHT, max(320, 22 * len(tokens) + 140)),
    )
    layout = spec["layout"]
    layout["xaxis"].update(side="top", tickangle=-60)
    # Keys are labelled along the top, so the title goes to the very top of the figure, above them.
    layout["title"].update(y=1.0, yref="container", yanchor="top", pad={"t": 8})
    layout["margin"].update(t=130, b=10)  # nothing under the map
    return figure(spec)


def paired_maps(
    bidirectional: np.ndarray, causal: np.ndarray, tokens: Sequence[str], *, titles: tuple[str, str]
) -> tuple[go.Figure, go.Figure]:
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
) -> tuple[go.Figure, go.Figure]:
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
) -> go.Figure:
    """How much each head's attention moved (``attention_stats.head_change``), one layer-by-head heatmap.

    The colour scale runs from 0 to the largest change, so that a short fine-tuning run's small changes show;
    every cell carries its value, so the scale cannot mislead."""
    values = np.asarray(change, dtype=np.float64)
    n_layers, n_heads = values.shape
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=list(range(n_heads)),
            y=list(range(n_layers)),
            colorscale=SEQUENTIAL_SECOND,
            zmin=0.0,
            zmax=float(values.max()) or 1.0,
            texttemplate="%{z:.3f}" if n_layers * n_heads <= MAX_ANNOTATED_HEADS else None,
            textfont={"size": 9},
            hovertemplate="L%{y} H%{x}: %{z:.4f}<extra></extra>",
        )
    )
    if selected is not None:
        fig.add_trace(
            go.Scatter(
                x=[selected[1]],
                y=[selected[0]],
                mode="markers",
                name=selected_label,
                marker={"symbol": "square-open", "size": 18, "color": ORANGE, "line": {"width": 3}},
                hoverinfo="skip",
            )
        )
    fig.update_yaxes(range=[n_layers - 0.5, -0.5], dtick=1 if n_layers <= 12 else 2, title_text=axis_labels[0])
    fig.update_xaxes(range=[-0.5, n_heads - 0.5], dtick=1 if n_heads <= 12 else 2, title_text=axis_labels[1])
    style(fig, title, max(260, 32 * n_layers + 140))
    fig.update_layout(showlegend=selected is not None, legend={"orientation": "h", "y": -0.2, "x": 0})
    return fig


def cell_text(values: np.ndarray, is_entropy: bool) -> np.ndarray:
    """A statistics panel's numbers as its cells show them: entropy to one decimal, shares as whole percentages.
    A numpy array of strings, not lists: the figure is copied whole when drawn, and an array copies in one step
    where nested lists copy string by string (the grid's 504 cells were a third of its build time)."""
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
) -> go.Figure:
    """One small layer-by-head heatmap per statistic; the selected head is ringed in every panel.

    Shares run on a fixed 0..1 scale so panels can be compared; entropy uses its own scale (bits).
    """
    names = list(titles)
    rows = -(-len(names) // GRID_COLUMNS)
    n_layers, n_heads = stats[names[0]].shape
    annotate = n_layers * n_heads <= MAX_ANNOTATED_HEADS
    # The panels' axes laid out by hand, as plotly's make_subplots would, in one layout dict: building the
    # figure with make_subplots and an update per panel took most of the attention page's server time.
    layout = base_layout(None, rows * max(240, 28 * n_layers + 110) + 60)
    layout.update(
        # Numbered axes (layers and heads), titled at the left column and the bottom row; the legend a tenth of the
        # plot's height below that (measured 138 px in all), which three legend rows' room covers.
        margin={
            **layout["margin"],
            "t": 40,
            "l": left_margin([str(n_layers - 1)], title=True),
            "b": bottom_margin(title=True, legends=3 if selected is not None else 0),
        },
        showlegend=selected is not None,
        legend={"orientation": "h", "y": -0.1, "x": 0},
        annotations=[],
    )
    width = (1 - GRID_SPACING[0] * (GRID_COLUMNS - 1)) / GRID_COLUMNS
    height = (1 - GRID_SPACING[1] * (rows - 1)) / rows
    data = []
    for i, name in enumerate(names):
        row, col = divmod(i, GRID_COLUMNS)
        suffix = "" if i == 0 else str(i + 1)
        left = col * (width + GRID_SPACING[0])
        top = 1 - row * (height + GRID_SPACING[1])
        layout[f"xaxis{suffix}"] = {
            "anchor": f"y{suffix}",
            "domain": [max(0.0, left), min(1.0, left + width)],
            # Fixed ranges: the ring marker would otherwise pad the axes by a phantom row and column.
            "range": [-0.5, n_heads - 0.5],
            "dtick": 1 if n_heads <= 12 else 2,
            "tickfont": {"size": 10},
            "tickangle": 0,
            **({"title": {"text": axis_labels[1]}} if row == rows - 1 else {}),
        }
        layout[f"yaxis{suffix}"] = {
            "anchor": f"x{suffix}",
            "domain": [max(0.0, top - height), min(1.0, top)],  # rounding can stray past 0
            "range": [n_layers - 0.5, -0.5],
            "dtick": 1 if n_layers <= 12 else 2,
            **({"title": {"text": axis_labels[0]}} if col == 0 else {}),
        }
        layout["annotations"].append(
            {
                # Shares are written as whole percentages: "0.12" does not fit a cell of a 12-head panel at
                # 800 px, "12" does.
                "text": titles[name] if name == "entropy" else f"{titles[name]} (%)",
                "x": left + width / 2,
                "y": top,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 13},
            }
        )
        values = np.asarray(stats[name], dtype=np.float64)
        is_entropy = name == "entropy"
        data.append(
            {
                "type": "heatmap",
                "z": values,
                "x": list(range(n_heads)),
                "y": list(range(n_layers)),
                "colorscale": scale(SEQUENTIAL_SECOND if is_entropy else SEQUENTIAL),
                "zmin": 0.0,
                "zmax": (float(values.max()) or 1.0) if is_entropy else 1.0,
                "showscale": False,
                "text": cell_text(values, is_entropy) if annotate else None,
                "texttemplate": "%{text}" if annotate else None,
                "textfont": {"size": 9},
                "hovertemplate": "L%{y} H%{x}: %{z:.3f}<extra>" + titles[name] + "</extra>",
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
            }
        )
        if selected is not None:
            data.append(
                {
                    "type": "scatter",
                    "x": [selected[1]],
                    "y": [selected[0]],
                    "mode": "markers",
                    "name": selected_label,
                    "showlegend": i == 0,
                    "marker": {"symbol": "square-open", "size": 16, "color": VERMILLION, "line": {"width": 3}},
                    "hoverinfo": "skip",
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                }
            )
    return figure({"data": data, "layout": layout})


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
