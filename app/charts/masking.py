"""Charts of the MLM masking page: the coloured token strip of one draw, and shares converging over many.

Pure functions: lists in, ``go.Figure`` out. Tokens are user text, and plotly reads a few HTML tags
(``<b>``, ``<br>``, ``<a>``) in any text it draws, so every token passes through ``plotly_text`` first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .base import SUMMARY_JOIN, base_layout, figure, label_px, left_margin, legend_squares, plotly_text, style
from .palette import BLUE, LIGHT, ORANGE, PALE, PURPLE, SKY

# Outcome code → box colour; light enough for black text. Codes follow app.masking_lab
# (0 not chosen, 1 [MASK], 2 random token, 3 unchanged, 4 never a candidate: [CLS], [SEP], a typed [MASK]).
OUTCOME_COLORS = ("#EEEEEE", LIGHT[ORANGE], LIGHT[PURPLE], LIGHT[SKY], PALE[BLUE])
MAX_CELL_CHARS = 10


def _shortened(token: str) -> str:
    return token if len(token) <= MAX_CELL_CHARS else token[: MAX_CELL_CHARS - 1] + "…"


def _cell(token: str) -> str:
    return plotly_text(_shortened(token))


# What a line of boxes is laid out for: the chart on an 800 px screen with the sidebar open (about 500 px wide).
STRIP_WIDTH_PX = 500
CELL_TEXT_SCALE = 15 / 12  # the boxes' 15 px text against the 12 px labels that label_px estimates
CELL_ROOM_PX = 12  # the gap between boxes and a little air each side of the text


def strip_columns(tokens: Sequence[str], width_px: int = STRIP_WIDTH_PX) -> int:
    """Boxes per line, so that the widest token (as a box shows it) fits its box at ``width_px``: many for
    one-character Chinese tokens, fewer for long English wordpieces. On a wider chart the boxes just grow.
    (Counting characters alone, an 800 px screen showed "opened[MASK]door": Latin text is wider than it counts.)"""
    widest = max((label_px([_shortened(t)]) * CELL_TEXT_SCALE for t in tokens), default=0.0)
    return max(6, min(20, int(width_px // (widest + CELL_ROOM_PX))))


LEGEND_EDGE = {"width": 1, "color": "#999"}  # the pale outcomes' squares need an edge on white


def token_strip(
    rows: Sequence[Sequence[str]],
    codes: Sequence[int],
    row_names: Sequence[str],
    legend: Mapping[int, str],
    *,
    graded: Sequence[bool] | None = None,
    hover: Sequence[str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Token boxes coloured by what happened to each position, wrapped over several lines.

    ``rows`` holds parallel token sequences (for example original / what the model reads / label), drawn
    as one band of boxes per line of text; ``codes`` colours every row of a column. Where ``graded`` is
    False the last row's box is left empty (no label there). ``legend`` names each colour.
    """
    n = len(codes)
    if any(len(r) != n for r in rows):
        raise ValueError("every row needs one token per code")
    columns = strip_columns([t for r in rows for t in r])
    lines = max(1, math.ceil(n / columns))
    band = len(rows) + 1  # a blank row separates one line of text from the next
    height_rows = lines * band - 1
    z = np.full((height_rows, columns), np.nan)
    text = np.full((height_rows, columns), "", dtype=object)
    tips = np.full((height_rows, columns), "", dtype=object)
    for pos in range(n):
        line, col = divmod(pos, columns)
        for r, tokens in enumerate(rows):
            y = line * band + r
            if r == len(rows) - 1 and graded is not None and not graded[pos]:
                continue
            z[y, col] = codes[pos]
            text[y, col] = _cell(tokens[pos])
            tips[y, col] = plotly_text(hover[pos]) if hover is not None else plotly_text(tokens[pos])
    k = len(OUTCOME_COLORS)
    colorscale = []
    for code, color in enumerate(OUTCOME_COLORS):
        colorscale += [[code / k, color], [(code + 1) / k, color]]
    boxes = {
        "type": "heatmap",
        "z": z,
        "text": text,
        "customdata": tips,
        "texttemplate": "%{text}",
        "textfont": {"size": 15, "color": "#222"},
        "hovertemplate": "%{customdata}<extra></extra>",
        "colorscale": colorscale,
        "zmin": -0.5,
        "zmax": k - 0.5,
        "showscale": False,
        "xgap": 3,
        "ygap": 3,
    }
    squares = legend_squares([(name, OUTCOME_COLORS[code]) for code, name in legend.items()], line=LEGEND_EDGE)
    tickvals = [line * band + r for line in range(lines) for r in range(len(rows))]
    ticktext = [plotly_text(row_names[r]) for _ in range(lines) for r in range(len(rows))]
    height = 90 + 34 * height_rows + (30 if title else 0)
    margin = {"t": 80 if title else 40, "l": left_margin(ticktext)}
    layout = base_layout(plotly_text(title) if title else None, height, margin) | {
        "yaxis": {"autorange": "reversed", "tickvals": tickvals, "ticktext": ticktext}
        | {"showgrid": False, "zeroline": False},
        "xaxis": {"visible": False, "range": [-0.5, columns - 0.5]},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0},
        "plot_bgcolor": "white",
    }
    return figure({"data": [boxes, *squares], "layout": layout})


def convergence_chart(
    draws: Sequence[int],
    series: Sequence[tuple[str, Sequence[float], float, str]],
    *,
    title: str | None = None,
    x_title: str = "",
    y_title: str = "",
    target_suffix: str = "target",
) -> go.Figure:
    """Running shares against the number of draws, each with its target as a dashed line of its colour.

    ``series``: (name, running values, target, colour). The x axis is logarithmic: the first draws
    swing widely and the later ones settle, and a linear axis would squeeze the swings into one corner.
    """
    x = list(draws)
    fig = go.Figure()
    for name, values, target, color in series:
        label = plotly_text(name)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=list(values),
                mode="lines",
                name=label,
                line={"color": color, "width": 2},
                legendgroup=label,
                hovertemplate=f"{label}: %{{y:.1%}} after %{{x}}<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=[x[0], x[-1]] if x else [],
                y=[target, target],
                mode="lines",
                name=f"{label} ({plotly_text(target_suffix)} {target:.0%})",
                line={"color": color, "width": 1.5, "dash": "dash"},
                legendgroup=label,
                hoverinfo="skip",
            )
        )
    fig.update_xaxes(type="log", dtick=1, title=plotly_text(x_title))  # ticks at 1, 10, 100, …: no "2 5" between
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%", title=plotly_text(y_title))
    return style(fig, plotly_text(title) if title else None, 430)


def convergence_summary(
    draws: Sequence[int], series: Sequence[tuple[str, Sequence[float], float, str]], template: str, item: str
) -> str:
    """Where each running share of ``convergence_chart`` ended against its target: ``item`` with {name}, {value}
    and {target} per series, joined as {items} of ``template``, with {draws}."""
    items = SUMMARY_JOIN.join(
        item.format(name=name, value=float(values[-1]), target=float(target)) for name, values, target, _ in series
    )
    return template.format(draws=f"{draws[-1]:,}", items=items)


def strip_summary(codes: Sequence[int], legend: Mapping[int, str], template: str) -> str:
    """How many tokens of ``token_strip`` got each outcome, in the legend's order: {n} and {items} of
    ``template``; outcomes no token got are left out."""
    counts = {code: sum(1 for c in codes if c == code) for code in legend}
    items = SUMMARY_JOIN.join(f"{legend[code]}: {n}" for code, n in counts.items() if n)
    return template.format(n=len(codes), items=items)
