"""The building blocks every page's charts use: a heatmap and horizontal probability bars."""

from __future__ import annotations

import functools
import html
import math
import unicodedata
from collections.abc import Iterable, Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from .palette import BLUE, CATEGORICAL, DIVERGING, SEQUENTIAL

# CJK-capable fonts first, so Chinese tokens never render as boxes (the test set-up installs Noto CJK).
FONT = "Noto Sans CJK SC, Noto Sans SC, Microsoft YaHei, PingFang SC, sans-serif"


def left_to_right(text: str) -> str:
    """A token as it reads in a left-to-right page: with a right-to-left letter in it ("##ر"), the text would
    take the letter's direction and draw its "##" on the wrong side; a leading left-to-right mark prevents that."""
    if any(unicodedata.bidirectional(c) in ("R", "AL") for c in text):
        return "\u200e" + text
    return text


def plotly_text(text: str) -> str:
    """Text for plotly to draw literally: it renders a few HTML tags (<b>, <br>, <a>) in labels, titles and
    hovers, and tokens are user text."""
    return html.escape(left_to_right(text), quote=False)


def distinct(labels: Sequence[str]) -> list[str]:
    """Equal labels made different with trailing zero-width spaces (invisible): plotly merges equal
    category labels, and Streamlit's option widgets need distinct options."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        n = seen.get(label, 0)
        seen[label] = n + 1
        out.append(label + "\u200b" * n)
    return out


def unique_labels(tokens: Sequence[str]) -> list[str]:
    """Tokens as plotly category labels: escaped (they are user text) and distinct."""
    return distinct([plotly_text(token) for token in tokens])


# Past this many tokens plotly labels only every n-th one, and a row of skipped tokens reads like a (wrong)
# sentence: then each label carries its position.
NUMBERED_AXIS_FROM = 48


def axis_labels(tokens: Sequence[str]) -> list[str]:
    """Tokens as a heatmap axis: ``unique_labels``, numbered by position when there are many."""
    labels = unique_labels(tokens)
    if len(labels) < NUMBERED_AXIS_FROM or labels == [str(i) for i in range(len(labels))]:  # already positions
        return labels
    return [f"{i} · {label}" for i, label in enumerate(labels)]


def wrap(values: Sequence, per_row: int, fill=None) -> list[list]:
    """Cut a sequence into rows of ``per_row``, padding the last row with ``fill``."""
    rows = max(1, math.ceil(len(values) / per_row))
    padded = list(values) + [fill] * (rows * per_row - len(values))
    return [padded[r * per_row : (r + 1) * per_row] for r in range(rows)]


@functools.cache
def _scale(name: str) -> tuple[tuple[float, str], ...]:
    return tuple((float(position), colour) for position, colour in plotly.colors.get_colorscale(name))


def scale(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale as the (position, colour) stops plotly's validation turns it into. A figure made
    without validation (``figure``) would send the name itself, and plotly.js draws some names differently
    ("RdBu_r" is not one of its names at all)."""
    return _scale(name)


def shown(values: np.ndarray) -> np.ndarray:
    """``values`` as float32 for a large heatmap that nothing reads closer than its colour (a scale of a few hundred
    steps) and a three-decimal hover. Plotly sends arrays as their bytes: float64 made the head lab's thumbnails
    480 KB that the server encodes and the browser decodes and rewrites for its theme on every draw."""
    return np.asarray(values, dtype=np.float32)


def base_layout(title: str | None = None, height: int | None = None, margin: dict | None = None) -> dict:
    """The look every chart shares, as a layout dict: a builder that makes its figure in one go (a figure is
    validated once; each ``update_*`` call afterwards re-validates, several ms apiece) starts from this.
    ``margin`` holds the sides a builder sizes for its labels (see ``left_margin``)."""
    layout = {} if title is None else {"title": {"text": title}}
    return layout | {
        "font": {"family": FONT},
        # A trace that names no colour takes these, not the theme's (Streamlit's has red beside green).
        "colorway": CATEGORICAL,
        "colorscale": {"sequential": scale(SEQUENTIAL), "diverging": scale(DIVERGING)},
        # No plotly template: Streamlit's browser side styles every chart with its own theme whatever the figure
        # carries (screenshots of every page with and without it are the same to the pixel), and the colours
        # above are ours. The template Streamlit registers is 7 KB that each figure copied at construction and
        # that Streamlit deep-copied, walked and sent on every draw: 2.5 of the statistics grid's 3.5 ms.
        "template": {},
        "margin": {"l": 10, "r": 10, "t": 50 if title else 10, "b": 10} | (margin or {}),
        "height": height,
    }


# Streamlit's chart theme turns on plotly's automargin, and plotly draws a chart whose margins are too small for its
# tick labels, axis titles or colour bar, measures them, widens the margins and draws it all again. With 10 px
# margins every chart was drawn twice, half of a page's drawing in the browser (the head lab's first step opened by
# its address: 3.4 s, with margins that fit 1.6 s, medians of three). So builders start from margins that fit,
# estimated from their labels at the theme's sizes (12 px tick labels, 14 px axis titles); automargin still widens
# a margin that an unusual label outgrows. The constants are measured in Chromium; tests/test_browser.py checks, on
# every page and after the clicks that draw more charts, that each chart is drawn with the margins it asks for.
LATIN_PX = 7.5  # the widest Latin tick labels measured 7.2 px a character ("walked": 43 px)
WIDE_PX = 12.5  # a Chinese character: one em
TICK_ROOM = 28  # tick marks and the gap between labels and plot (measured 19-26 px)
AXIS_TITLE_ROOM = 36  # a vertical axis title and its stand-off (measured 27-34 px beyond the labels)
COLORBAR_ROOM = 112  # a colour bar with its tick labels (measured 84-107 px)
BOTTOM_ROOM = 45  # horizontal tick labels under the plot (measured 34-41 px)
BAR_PX = 28  # a horizontal bar and the gap to the next, room for its 12 px name and its value inside
BOTTOM_TITLE_ROOM = 30  # an axis title under them (measured 64-71 px in all)
LEGEND_ROOM = 25  # a horizontal legend under those (measured 82-88 px in all)
LEGEND_SYMBOL_ROOM = 70  # a legend entry's line sample and the gaps around it (measured 64 px)
ROTATED = math.sin(math.pi / 4)  # the height of a label drawn at 45° for each pixel of its width


def label_px(labels: Sequence[str]) -> float:
    """The width of the widest tick label, estimated from its characters (a little over, never under, as measured)."""
    return max(
        (sum(WIDE_PX if unicodedata.east_asian_width(c) in "WF" else LATIN_PX for c in str(label)) for label in labels),
        default=0.0,
    )


def left_margin(labels: Sequence[str], *, title: bool = False) -> int:
    """The left margin a vertical axis with these tick labels (and an axis title) needs."""
    return math.ceil(label_px(labels) + TICK_ROOM + (AXIS_TITLE_ROOM if title else 0))


def right_legend_margin(names: Iterable[str]) -> int:
    """The right margin of plotly's default legend, a column of these names beside the plot."""
    return math.ceil(label_px(list(names))) + LEGEND_SYMBOL_ROOM


def rotated_bottom_margin(labels: Sequence[str]) -> int:
    """The bottom margin of tick labels drawn at -45° (a heatmap's tokens)."""
    return math.ceil(ROTATED * label_px(labels)) + BOTTOM_ROOM


def bottom_margin(*, title: bool = False, legends: int = 0) -> int:
    """The bottom margin of horizontal tick labels, an axis title and ``legends`` rows of legend."""
    return BOTTOM_ROOM + (BOTTOM_TITLE_ROOM if title else 0) + LEGEND_ROOM * legends


def figure(spec: dict) -> go.Figure:
    """The figure a builder's spec dict describes, made without plotly's property-by-property validation.

    Validation is most of a figure's cost (the attention page's statistics grid: 30-60 ms validated, under
    10 ms not), and a class of thirty pays it per chart and per student, all on one interpreter. The specs
    here are made by code, not typed by users, and tests/test_charts_validate.py builds every one of them
    with validation on, so a misspelt property still fails a test. ``_validate`` is plotly's figure-level
    switch (plotly.py pull request 2403); its templates are built the same way."""
    return go.Figure(spec, _validate=False)


def style(fig: go.Figure, title: str | None = None, height: int | None = None, margin: dict | None = None) -> go.Figure:
    fig.update_layout(base_layout(title, height, margin))
    return fig


def heatmap(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], **options) -> go.Figure:
    """Rows are ``y_labels``, columns ``x_labels``; ``options`` as for ``heatmap_spec``."""
    return figure(heatmap_spec(matrix, x_labels, y_labels, **options))


def heatmap_spec(
    matrix: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str | None = None,
    colorscale: str = SEQUENTIAL,
    zmin: float | None = None,
    zmax: float | None = None,
    hover: str = "%{y} → %{x}: %{z:.3f}<extra></extra>",
    height: int | None = None,
) -> dict:
    """``heatmap``'s figure as a plain dict, for a builder that adds to it before the figure is made."""
    matrix = np.asarray(matrix)
    matrix = matrix.astype(np.result_type(matrix, np.float32), copy=False)  # floats keep their precision
    if matrix.shape != (len(y_labels), len(x_labels)):
        raise ValueError(f"matrix shape {matrix.shape} does not match {len(y_labels)} x {len(x_labels)} labels")
    trace = {
        "type": "heatmap",
        "z": matrix,
        "x": axis_labels(x_labels),
        "y": axis_labels(y_labels),
        "colorscale": scale(colorscale),
        "zmin": zmin,
        "zmax": zmax,
        "hovertemplate": hover,
    }
    margin = {
        "l": left_margin(trace["y"]),
        "r": COLORBAR_ROOM,
        "b": rotated_bottom_margin(trace["x"]),
    }
    layout = base_layout(title, height or max(300, 22 * len(y_labels) + 120), margin)
    layout["yaxis"] = {"autorange": "reversed", "type": "category"}
    layout["xaxis"] = {"type": "category", "tickangle": -45}
    return {"data": [trace], "layout": layout}


def probability_bars(
    labels: Sequence[str], probs: Sequence[float], *, title: str | None = None, color: str = BLUE
) -> go.Figure:
    """Horizontal bars, the most likely at the top, each in a band of ``BAR_PX``."""
    y_labels = unique_labels(labels)
    layout = base_layout(title, None, {"l": left_margin(y_labels), "b": BOTTOM_ROOM})
    # The margins come on top of the bars: two classes in a height that counted them in had a 21 px plot, where
    # plotly hid one of the two names and shrank the percentages to dots.
    layout["height"] = layout["margin"]["t"] + BOTTOM_ROOM + BAR_PX * len(labels)
    layout["yaxis"] = {"autorange": "reversed", "type": "category"}
    layout["xaxis"] = {"range": [0, 1], "tickformat": ".0%"}
    bars = {
        "type": "bar",
        "x": list(probs),
        "y": y_labels,
        "orientation": "h",
        "marker": {"color": color},
        "text": [f"{p:.1%}" for p in probs],
        "textposition": "auto",
        "hovertemplate": "%{y}: %{x:.2%}<extra></extra>",
    }
    return figure({"data": [bars], "layout": layout})


def token_grid(
    labels: Sequence[str],
    captions: Sequence[str],
    hovers: Sequence[str],
    codes: Sequence[int],
    colours: Sequence[str],
    legend: Sequence[tuple[str, str]],
    *,
    title: str | None = None,
    per_row: int = 12,
) -> go.Figure:
    """A sentence as a grid of coloured token cells, read left to right, top to bottom.

    Each cell shows ``labels[i]`` with a small grey ``captions[i]`` below it, is coloured ``colours[codes[i]]``,
    and hovers ``hovers[i]``; all three texts are escaped here. ``legend`` is (name, colour) pairs.
    """
    cells = [
        f"{plotly_text(label)}<br><span style='font-size:10px;color:#555'>{plotly_text(caption)}</span>"
        for label, caption in zip(labels, captions)
    ]
    last = max(1, len(colours) - 1)
    z = wrap(list(codes), per_row)
    cells_trace = {
        "type": "heatmap",
        "z": z,
        "text": wrap(cells, per_row, ""),
        "customdata": wrap([plotly_text(h) for h in hovers], per_row, ""),
        "texttemplate": "%{text}",
        "textfont": {"size": 14},
        "hovertemplate": "%{customdata}<extra></extra>",
        "colorscale": [[i / last, c] for i, c in enumerate(colours)],
        "zmin": 0,
        "zmax": last,
        "showscale": False,
        "xgap": 3,
        "ygap": 3,
    }
    return figure(
        {
            "data": [cells_trace, *legend_squares(legend)],
            "layout": base_layout(title, 110 + 54 * len(z), {"b": 60})  # the legend under the cells: 50-53 px
            | {
                "xaxis": {"visible": False},
                "yaxis": {"visible": False, "autorange": "reversed"},
                "legend": {"orientation": "h", "y": -0.05, "yanchor": "top"},
                "plot_bgcolor": "rgba(0,0,0,0)",
            },
        }
    )


def two_panels(titles: tuple[str, str], gap: float = 0.08, *, stacked: bool = False) -> dict:
    """The layout of two panels (x/y first, x2/y2 second) with a title above each, as plotly's make_subplots lays
    them out, without its cost (a figure built and re-validated with each update): side by side, or ``stacked``
    one above the other on a shared x axis, whose numbers show under the lower panel only. ``gap`` is a share of
    the figure."""
    size = (1 - gap) / 2
    if stacked:
        return {
            "xaxis": {"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
            "yaxis": {"anchor": "x", "domain": [1 - size, 1.0]},
            "xaxis2": {"anchor": "y2", "domain": [0.0, 1.0]},
            "yaxis2": {"anchor": "x2", "domain": [0.0, size]},
            "annotations": [_panel_title(text, 0.5, y) for text, y in zip(titles, (1.0, size), strict=True)],
        }
    return {
        "xaxis": {"anchor": "y", "domain": [0.0, size]},
        "yaxis": {"anchor": "x", "domain": [0.0, 1.0]},
        "xaxis2": {"anchor": "y2", "domain": [1 - size, 1.0]},
        "yaxis2": {"anchor": "x2", "domain": [0.0, 1.0]},
        "annotations": [_panel_title(text, x, 1.0) for text, x in zip(titles, (size / 2, 1 - size / 2), strict=True)],
    }


def _panel_title(text: str, x: float, y: float) -> dict:
    """A panel's title, centred on ``x`` just above ``y`` (shares of the figure)."""
    return {"text": text, "x": x, "y": y, "xref": "paper", "yref": "paper", "xanchor": "center"} | {
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 16},
    }


def horizontal_line(y: float, line: dict, label: dict, *, panel: str = "", above: bool = True) -> tuple[dict, dict]:
    """A line across a panel at ``y`` and its label (an annotation dict: text, font), as plotly's add_hline makes
    them: the label at the line's left end, above it, or (``above`` False) at its right end, below it. ``panel``
    is "" for the first pair of axes, "2" for the second."""
    shape = {"type": "line", "x0": 0, "x1": 1, "xref": f"x{panel} domain", "y0": y, "y1": y, "yref": f"y{panel}"}
    place = (
        {"x": 0, "xanchor": "left", "yanchor": "bottom"} if above else {"x": 1, "xanchor": "right", "yanchor": "top"}
    )
    annotation = {"showarrow": False, "xref": f"x{panel} domain", "y": y, "yref": f"y{panel}"} | place | label
    return shape | {"line": line}, annotation


def legend_squares(entries: Sequence[tuple[str, str]], **marker) -> list[dict]:
    """Legend entries alone, a coloured square each for (name, colour): a heatmap has no legend of its own.
    ``marker`` adds to the squares' style. Shown even when there is only one."""
    return [
        {
            "type": "scatter",
            "x": [None],
            "y": [None],
            "mode": "markers",
            "name": plotly_text(name),
            "marker": {"symbol": "square", "size": 14, "color": colour} | marker,
            "showlegend": True,
        }
        for name, colour in entries
    ]


# Charts in words: each chart's main finding as one sentence, for screen readers and the back of the room.
# The builders' neighbours below take the numbers the chart draws and an already translated template.
SUMMARY_JOIN = " · "


def quoted(text: str) -> str:
    return f"“{text}”"


def ranked_summary(labels: Sequence[str], values: Sequence[float], template: str, *, count: int = 3) -> str:
    """The ``count`` largest values with their labels, largest first, as ``{items}`` of ``template``
    (“the” 42.0% · “a” 10.0%): what a bar chart of probabilities shows first."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(-values, kind="stable")[:count]
    items = SUMMARY_JOIN.join(f"{quoted(labels[i])} {values[i]:.1%}" for i in order)
    return template.format(items=items)


def strongest_link(matrix: np.ndarray, tokens: Sequence[str], template: str) -> str:
    """The largest weight from one token to another one (a token's weight on itself is left out: it says less
    about the sentence), as ``{source}``, ``{target}`` and ``{weight}`` of ``template``. A map of one token
    has only that weight."""
    matrix = np.asarray(matrix, dtype=float)
    if matrix.shape != (len(tokens), len(tokens)) or not len(tokens):
        raise ValueError(f"matrix shape {matrix.shape} does not match {len(tokens)} tokens")
    others = matrix.copy()
    if len(tokens) > 1:
        np.fill_diagonal(others, -np.inf)
    row, column = np.unravel_index(int(np.argmax(others)), others.shape)
    return template.format(source=tokens[row], target=tokens[column], weight=float(matrix[row, column]))
