"""The building blocks every page's charts use: ``Chart`` (a plotly figure, its height and its title), a heatmap,
horizontal probability bars, legends, panels, presenter mode's larger text, and the charts-in-words summaries.

Charts are plotly figures (``plotly.graph_objects``), drawn by ``app.core.ui.plot`` (``st.plotly_chart``). Builders are
pure: arrays and already translated strings in, a ``Chart`` out. A figure is made from one dict, without plotly's
property-by-property validation (``figure``): validation was most of a figure's cost, and a class of thirty pays it
per chart and per student; tests/test_charts_options.py builds every figure with validation on, so a misspelt
property still fails a test. Plotly renders a few HTML tags in labels, legends and hovers, and tokens are user
text: every text a builder puts in a figure is escaped (``plotly_text``). A chart's own title is not plotly's to
draw (it would not wrap): ``app.core.ui.plot`` writes it, escaped, above the figure.
"""

from __future__ import annotations

import functools
import html
import math
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from app.core.numbers import percent
from app.core.palette import BLUE, CATEGORICAL, SCALE_STOPS, SEQUENTIAL

# CJK-capable fonts first, so Chinese tokens never render as boxes (the test set-up installs Noto CJK).
FONT = "Source Sans Pro, Noto Sans CJK SC, Noto Sans SC, Microsoft YaHei, PingFang SC, sans-serif"
FONT_SIZE = 12  # plotly's own default for tick labels, legends and hovers
PANEL_TITLE_SIZE = 14  # a panel's title inside a chart; a chart's own title is text above it (``Chart``)
PRESENTER_SCALE = 1.5  # presenter mode's chart text against the usual (18 px labels)
PANEL = "panel title"  # the name of an annotation that titles a panel (``panel_titles``): part of the accessible name
# A heatmap can be zoomed (drag a box) and panned (the modebar's buttons); other charts take no drag at all, so a
# finger that scrolls the page past them on a phone does not zoom them by accident.
ZOOMABLE = ("zoom", "pan")


@dataclass(frozen=True)
class Chart:
    """What ``app.core.ui.plot`` draws: a plotly figure (its layout's height is ``height``), its height in pixels and
    its title. The title is text above the figure, not in it: plotly draws a title on one line, cut where a
    narrow column ends, and text wraps. Panel titles inside a chart stay in its figure (``panel_titles``).

    A chart may be cached and drawn for many sessions: nothing may change its figure (``presented`` copies)."""

    figure: go.Figure
    height: int
    title: str | None = None


def left_to_right(text: str) -> str:
    """A token as it reads in a left-to-right page: with a right-to-left letter in it ("##ر"), the text would
    take the letter's direction and draw its "##" on the wrong side; a leading left-to-right mark prevents that."""
    if any(unicodedata.bidirectional(c) in ("R", "AL") for c in text):
        return "\u200e" + text
    return text


def plotly_text(text: object) -> str:
    """Text for plotly to draw literally: it renders a few HTML tags (<b>, <br>, <a>) and entities in labels,
    titles, legends and hovers, and tokens are user text."""
    return html.escape(left_to_right(str(text)), quote=False)


def distinct(labels: Sequence[str]) -> list[str]:
    """Equal labels made different with trailing zero-width spaces (invisible): a category axis merges equal
    names, and Streamlit's option widgets need distinct options."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        n = seen.get(label, 0)
        seen[label] = n + 1
        out.append(label + "\u200b" * n)
    return out


def unique_labels(tokens: Sequence[str]) -> list[str]:
    """Tokens as category labels: escaped (they are user text), in reading direction and distinct."""
    return distinct([plotly_text(token) for token in tokens])


# Past this many tokens an axis labels only every n-th one, and a row of skipped tokens reads like a (wrong)
# sentence: then each label carries its position.
NUMBERED_AXIS_FROM = 48


def axis_labels(tokens: Sequence[str]) -> list[str]:
    """Tokens as a heatmap axis: ``unique_labels``, numbered by position when there are many."""
    labels = unique_labels(tokens)
    if len(labels) < NUMBERED_AXIS_FROM or labels == [str(i) for i in range(len(labels))]:  # already positions
        return labels
    return [f"{i} · {label}" for i, label in enumerate(labels)]


@functools.cache
def _scale(name: str) -> tuple[tuple[float, str], ...]:
    stops = SCALE_STOPS[name]
    return tuple((round(i / (len(stops) - 1), 4), colour) for i, colour in enumerate(stops))


def scale(name: str) -> list[list]:
    """A colour scale of the palette (``palette.COLOUR_SCALES``) as plotly's (position, colour) stops: the
    palette's evenly spaced colours. Not the name: a figure made without validation would send the name itself,
    and plotly.js draws some names differently (the reversed red-blue is not one of its names at all)."""
    return [list(stop) for stop in _scale(name)]


def shown(values) -> np.ndarray:
    """``values`` as float32, for a heatmap that nothing reads closer than its colour and a three-decimal hover.
    Plotly sends arrays as their bytes: a 512-token map is 1 MB in float32, 2 MB in float64."""
    return np.asarray(values, dtype=np.float32)


# Plotly draws a chart whose margins are too small for its tick labels, axis titles or colour bar, measures them,
# widens the margins and draws it all again (Streamlit's chart theme turns on automargin). So builders start from
# margins that fit, estimated from their labels at 12 px tick labels and 14 px axis titles; automargin still widens
# a margin that an unusual label outgrows. Measured in Chromium when the charts were plotly's before (commit
# 4a33648).
LATIN_PX = 7.5  # the widest Latin tick labels measured 7.2 px a character ("walked": 43 px)
WIDE_PX = 12.5  # a Chinese character: one em
TICK_ROOM = 28  # tick marks and the gap between labels and plot (measured 19-26 px)
AXIS_TITLE_ROOM = 36  # a vertical axis title and its stand-off (measured 27-34 px beyond the labels)
COLORBAR_ROOM = 100  # a colour bar with its tick labels (measured 84-107 px)
BOTTOM_ROOM = 45  # horizontal tick labels under the plot (measured 34-41 px)
BOTTOM_TITLE_ROOM = 30  # an axis title under them
LEGEND_ROOM = 30  # below a plot, for one line of legend
BAR_PX = 28  # a horizontal bar and the gap to the next, room for its name and its value
ROTATED = math.sin(math.pi / 4)  # the height of a label drawn at 45° for each pixel of its width
SIDE_BY_SIDE_GAP = 0.1  # the share of a chart's width between two panels side by side


def text_px(text: str) -> float:
    """About how wide ``text`` is drawn at the charts' 12 px: a CJK character a square, a Latin letter about half
    (a little over, never under, as measured)."""
    return sum(WIDE_PX if unicodedata.east_asian_width(c) in "WF" else LATIN_PX for c in html.unescape(str(text)))


def wrapped(text: str, width: float) -> str:
    """``text`` escaped and broken into lines about ``width`` pixels wide (plotly breaks lines at <br> only): at
    spaces, or between any two characters of a word wider than a line (a sentence of Chinese)."""
    lines, current = [], ""
    for word in str(text).split(" "):
        joined = f"{current} {word}" if current else word
        if text_px(joined) <= width:
            current = joined
            continue
        if current:
            lines.append(current)
        current = ""
        for character in word:
            if current and text_px(current + character) > width:
                lines.append(current)
                current = ""
            current += character
    return "<br>".join(plotly_text(line) for line in lines + [current])


def label_px(labels: Iterable[str]) -> float:
    """The width of the widest label."""
    return max((text_px(label) for label in labels), default=0.0)


def left_margin(labels: Sequence[str], *, title: bool = False) -> int:
    """The left margin a vertical axis with these tick labels (and an axis title) needs."""
    return math.ceil(label_px(labels) + TICK_ROOM + (AXIS_TITLE_ROOM if title else 0))


def rotated_bottom_margin(labels: Sequence[str], *, title: bool = False) -> int:
    """The bottom margin of tick labels drawn at -45° (a heatmap's tokens)."""
    return math.ceil(ROTATED * min(label_px(labels), 200)) + BOTTOM_ROOM + (BOTTOM_TITLE_ROOM if title else 0)


def bottom_margin(*, title: bool = False, legends: int = 0) -> int:
    """The bottom margin of horizontal tick labels, an axis title and ``legends`` lines of legend."""
    return BOTTOM_ROOM + (BOTTOM_TITLE_ROOM if title else 0) + LEGEND_ROOM * legends


def base_layout(height: int, margin: dict | None = None, **extra) -> dict:
    """The look every chart shares, as a layout dict: our fonts and colours, the margins a builder sized for its
    labels (``margin``: l, r, t, b), no drag (``extra`` may set ``dragmode``). Plotly has no entry animation
    unless a layout asks for a transition, and none does: a chart redrawn at every rerun never replays one."""
    return {
        "font": {"family": FONT, "size": FONT_SIZE},
        # A trace that names no colour takes these, not the theme's (Streamlit's has red beside green).
        "colorway": list(CATEGORICAL),
        # No plotly template: Streamlit's browser side styles every chart with its own theme whatever the figure
        # carries, and the colours above are ours. The template Streamlit registers is 7 KB that each figure
        # would copy at construction and that Streamlit would copy, walk and send on every draw.
        "template": {},
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10} | (margin or {}),
        "height": height,
        "dragmode": False,
        "hovermode": "closest",
        "hoverlabel": {"font": {"family": FONT, "size": FONT_SIZE}},
    } | extra


def figure(spec: dict) -> go.Figure:
    """The figure a builder's spec dict ({"data": [...], "layout": {...}}) describes, made without plotly's
    property-by-property validation (``_validate``, plotly's figure-level switch; its templates are built the
    same way): the attention page's statistics grid took 30-60 ms validated, under 10 ms not. The specs here are
    made by code, and tests/test_charts_options.py validates every one."""
    return go.Figure(spec, _validate=False)


def chart(data: list[dict], layout: dict, title: str | None = None) -> Chart:
    """A ``Chart`` of these traces and this layout (from ``base_layout``, which holds its height)."""
    return Chart(figure({"data": data, "layout": layout}), int(layout["height"]), title)


def category_axis(labels: Sequence[str], *, title: str | None = None, every: bool = True, **extra) -> dict:
    """An axis of named categories (already escaped), in the given order; ``every`` labels each one (plotly would
    otherwise skip some where they crowd)."""
    axis = {"type": "category", "categoryorder": "array", "categoryarray": list(labels), "showgrid": False}
    if every:
        axis |= {"tickmode": "linear", "tick0": 0, "dtick": 1}
    if title:
        axis["title"] = {"text": plotly_text(title)}
    return axis | extra


def value_axis(*, title: str | None = None, percent: bool = False, **extra) -> dict:
    """A numeric axis; ``percent`` for values already in percent (0-100), labelled with "%"."""
    axis: dict = {"zeroline": False}
    if title:
        axis["title"] = {"text": plotly_text(title)}
    if percent:
        axis["ticksuffix"] = "%"
    return axis | extra


def colour_bar(colours: str = SEQUENTIAL, **colorbar) -> dict:
    """A heatmap's (or a marker's) colouring through a palette scale, with its bar at the right."""
    return {"colorscale": scale(colours), "colorbar": {"thickness": 14, "outlinewidth": 0} | colorbar}


def heatmap(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], **options) -> Chart:
    """Rows are ``y_labels`` (top to bottom), columns ``x_labels``; ``options`` as for ``heatmap_spec``, and
    ``title``, the chart's."""
    title = options.pop("title", None)
    spec = heatmap_spec(matrix, x_labels, y_labels, **options)
    return chart(spec["data"], spec["layout"], title)


def heatmap_spec(
    matrix: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    colorscale: str = SEQUENTIAL,
    zmin: float | None = None,
    zmax: float | None = None,
    hover: str = "%{y} → %{x}: %{z:.3f}<extra></extra>",
    height: int | None = None,
    x_on_top: bool = False,
) -> Chart:
    """``heatmap``'s figure as a spec dict, for a builder that changes it before the figure is made: a colour bar at
    the right from ``zmin`` to ``zmax`` (the matrix's own finite range by default); ``hover`` is a plotly hover
    template. The map can be zoomed (drag a box, double-click to go back) and panned: a long sentence's map is
    hundreds of rows."""
    matrix = shown(matrix)
    if matrix.shape != (len(y_labels), len(x_labels)):
        raise ValueError(f"matrix shape {matrix.shape} does not match {len(y_labels)} x {len(x_labels)} labels")
    x, y = axis_labels(x_labels), axis_labels(y_labels)
    finite = matrix[np.isfinite(matrix)]
    low = (float(finite.min()) if finite.size else 0.0) if zmin is None else zmin
    high = (float(finite.max()) if finite.size else 1.0) if zmax is None else zmax
    trace = {
        "type": "heatmap",
        "z": matrix,
        "x": x,
        "y": y,
        "zmin": low,
        "zmax": high if high > low else low + 1.0,
        "hovertemplate": hover,
        "hoverongaps": False,
    } | colour_bar(colorscale)
    x_axis, y_axis = token_ticks(x, MOST_COLUMN_LABELS), token_ticks(y, MOST_ROW_LABELS)
    margin = {"l": left_margin(y_axis["ticktext"]), "r": COLORBAR_ROOM}
    x_room = rotated_bottom_margin(x_axis["ticktext"]) if len(x) < NUMBERED_AXIS_FROM else BOTTOM_ROOM
    margin |= {"t": x_room - BOTTOM_ROOM + TICK_ROOM, "b": 10} if x_on_top else {"b": x_room}
    layout = base_layout(height or max(270, 22 * len(y) + 110), margin, dragmode="zoom")
    # Tokens on a short map's top axis are turned to fit; a long map's axis reads positions, which lie flat.
    turned = (-60 if x_on_top else -45) if len(x) < NUMBERED_AXIS_FROM else 0
    layout["xaxis"] = category_axis(x, every=False, tickangle=turned) | x_axis | ({"side": "top"} if x_on_top else {})
    layout["yaxis"] = category_axis(y, every=False, autorange="reversed") | y_axis
    return {"data": [trace], "layout": layout}


# A long text's map labels every n-th token by its position (the hover names each cell's tokens), so that its
# labels stay apart and its plot keeps its width: plotly's own choice of category ticks, with labels as long as
# "507 · transform", widened the margins until a 512-token map was a sliver. Zooming into a region (drag a box)
# shows its cells large; the hover says which tokens they are.
MOST_COLUMN_LABELS = 8
MOST_ROW_LABELS = 32


def token_ticks(labels: Sequence[str], most: int) -> dict:
    """Ticks for an axis of ``labels``: every label while they are few (``NUMBERED_AXIS_FROM``), else the position
    of every n-th, at most ``most`` of them."""
    if len(labels) < NUMBERED_AXIS_FROM:
        return {"tickmode": "array", "tickvals": list(labels), "ticktext": list(labels)}
    step = max(1, math.ceil(len(labels) / most))
    positions = range(0, len(labels), step)
    return {
        "tickmode": "array",
        "tickvals": [labels[i] for i in positions],
        "ticktext": [str(i) for i in positions],
        "automargin": False,
    }


def probability_bars(
    labels: Sequence[str], probs: Sequence[float], *, title: str | None = None, color: str = BLUE
) -> Chart:
    """Horizontal bars in percent, the most likely at the top, each ending in its value."""
    names = unique_labels(labels)
    percents = np.round(100 * np.asarray(probs, dtype=np.float64), 1)  # as the summaries write them
    bars = {
        "type": "bar",
        "x": percents,
        "y": names,
        "orientation": "h",
        "marker": {"color": color},
        "text": [percent(p, 1) for p in probs],  # 0.04% reads <0.1%, not 0.0%
        "textposition": "outside",
        "cliponaxis": False,
        "hovertemplate": "%{y}: %{x:.1f}%<extra></extra>",
    }
    layout = base_layout(
        10 + BOTTOM_ROOM + BAR_PX * len(names), {"l": left_margin(names), "r": 56, "b": BOTTOM_ROOM}, bargap=0.25
    )
    layout["yaxis"] = category_axis(names, autorange="reversed")
    layout["xaxis"] = value_axis(percent=True, range=[0, 100])
    return chart([bars], layout, title)


def legend_entries(entries: Sequence[tuple[str, str]], **marker) -> list[dict]:
    """Legend entries alone, a coloured square each for (name, colour): traces without points, for a chart whose
    colours are not traces of their own (a heatmap's categories). Shown even when there is only one."""
    return [
        {
            "type": "scatter",
            "x": [None],
            "y": [None],
            "mode": "markers",
            "name": plotly_text(name),
            "marker": {"symbol": "square", "size": 12, "color": colour} | marker,
            "showlegend": True,
            "hoverinfo": "skip",
        }
        for name, colour in entries
    ]


def legend_below(**extra) -> dict:
    """A horizontal legend at the bottom of the figure (the margin's last ``LEGEND_ROOM`` pixels per line)."""
    return {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "y": 0,
        "yref": "container",
        "yanchor": "bottom",
        "itemclick": "toggle",
    } | extra


def panel_titles(texts: Sequence[str], xs: Sequence[float], ys: Sequence[float]) -> list[dict]:
    """Titles above panels, each centred at ``xs[i]`` with its bottom at ``ys[i]`` (shares of the plot area), as
    annotations named ``PANEL``: what a screen reader hears after the chart's title."""
    return [
        {
            "name": PANEL,
            "text": plotly_text(text),
            "x": x,
            "y": y,
            "xref": "paper",
            "yref": "paper",
            "xanchor": "center",
            "yanchor": "bottom",
            "yshift": 4,
            "showarrow": False,
            "font": {"size": PANEL_TITLE_SIZE},
        }
        for text, x, y in zip(texts, xs, ys, strict=True)
    ]


def side_by_side(titles: Sequence[str]) -> dict:
    """Two panels side by side (axes x/y, then x2/y2), a title centred above each: layout entries."""
    width = (1 - SIDE_BY_SIDE_GAP) / 2
    domains = ([0.0, width], [1 - width, 1.0])
    return {
        "xaxis": {"domain": domains[0], "anchor": "y"},
        "yaxis": {"anchor": "x"},
        "xaxis2": {"domain": domains[1], "anchor": "y2"},
        "yaxis2": {"anchor": "x2"},
        "annotations": panel_titles(titles, [sum(d) / 2 for d in domains], [1.0, 1.0]),
    }


def line(name: str, x, y, colour: str | None, hover: str, *, marker_size: int = 7, **style) -> dict:
    """One curve through (x, y), a marker at each point; ``colour`` None takes the palette's next, ``style`` adds
    to the line's (a dash). ``hover`` is a hover template."""
    colouring = {"color": colour} if colour else {}
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": plotly_text(name),
        "x": list(x),
        "y": list(y),
        "line": {"width": 3} | colouring | style,
        "marker": {"size": marker_size} | colouring,
        "hovertemplate": hover,
    }


def horizontal_line(
    y: float, text: str, *, colour: str = "#777777", dash: str = "dash", panel: str = "", label_x: float = 1
) -> tuple:
    """A line across a panel at ``y`` and its label ending at ``label_x`` of the panel's width (its right end by
    default), just above it, on white so that curves crossing it leave it readable: a shape and an annotation.
    ``panel`` is "" for the first axes, "2" for the second."""
    shape = {
        "type": "line",
        "xref": f"x{panel} domain",
        "x0": 0,
        "x1": 1,
        "yref": f"y{panel}",
        "y0": y,
        "y1": y,
        "line": {"color": colour, "width": 1.5, "dash": dash},
        "layer": "below",
    }
    label = {
        "text": plotly_text(text),
        "xref": f"x{panel} domain",
        "x": label_x,
        "xanchor": "right",
        "yref": f"y{panel}",
        "y": y,
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 11, "color": "#555555"},
        "bgcolor": "rgba(255,255,255,0.8)",
    }
    return shape, label


def vertical_line(x: float, text: str, *, colour: str, dash: str = "dash") -> tuple:
    """A line from the bottom of the plot to its top at ``x``, its label at the top: a shape and an annotation."""
    shape = {
        "type": "line",
        "xref": "x",
        "x0": x,
        "x1": x,
        "yref": "y domain",
        "y0": 0,
        "y1": 1,
        "line": {"color": colour, "width": 2, "dash": dash},
    }
    label = {
        "text": plotly_text(text),
        "xref": "x",
        "x": x,
        "yref": "y domain",
        "y": 1,
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": 11, "color": "#555555"},
    }
    return shape, label


def accessible_name(chart: Chart, summary: str | None) -> str | None:
    """What a screen reader says for a chart: its title, its panels' titles, then its finding in words."""
    panels = [
        html.unescape(annotation["text"])
        for annotation in chart.figure._layout.get("annotations", ())  # the dict the figure was made of
        if annotation.get("name") == PANEL and annotation.get("text")
    ]
    return ". ".join(([chart.title] if chart.title else []) + panels + ([summary] if summary else [])) or None


def _enlarged(node, factor: float):
    """A copy of a figure's dicts and lists with every font's size ``factor`` times larger; arrays and strings as
    they are."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key.endswith("font") and isinstance(value, dict) and "size" in value:
                out[key] = _enlarged(value, factor) | {"size": round(value["size"] * factor)}
            else:
                out[key] = _enlarged(value, factor)
        return out
    if isinstance(node, list | tuple):
        return [_enlarged(item, factor) for item in node]
    return node


def presented(figure: go.Figure, factor: float = PRESENTER_SCALE) -> go.Figure:
    """A copy of ``figure`` with its text ``factor`` times larger, for presenter mode (a figure may be cached and
    drawn by other sessions without it): the layout's font, which every text without a size of its own takes,
    and every size a builder set (cell values, panel titles, labels). Plotly copies the traces' arrays into the new
    figure (a 512-token map: 1 MB, well under a millisecond)."""
    layout = _enlarged(figure._layout, factor)
    font = layout.setdefault("font", {})
    if "size" not in figure._layout.get("font", {}):
        font["size"] = round(FONT_SIZE * factor)
    if "xaxis" in layout:
        layout["xaxis"] = _spaced(layout["xaxis"])
    return go.Figure(
        {"data": [_fitted(trace) for trace in _enlarged(figure._data, factor)], "layout": layout}, _validate=False
    )


def _spaced(axis: dict) -> dict:
    """An axis that labels every category, left to plotly to space instead: enlarged, the tokens of a map 17
    columns wide ran together over its narrow columns on a projector (two maps side by side at 800 px). Plotly
    labels every n-th where they would crowd, and every one where there is room; the hover names each cell."""
    if axis.get("tickmode") != "array" or axis.get("tickvals") != axis.get("categoryarray"):
        return axis
    return {key: value for key, value in axis.items() if key not in ("tickmode", "tickvals", "ticktext")}


PRESENTED_CELLS = 6  # a grid of more columns than this loses its cell numbers in presenter mode


def _fitted(trace: dict) -> dict:
    """A heatmap trace without its cell numbers when, enlarged, they would not fit their cells: a layer-by-head grid
    of 12 heads on a projector's 800 px ran its numbers together ("52272639…"). Its hover and the written summary
    under it still give every value."""
    if trace.get("type") != "heatmap" or not trace.get("texttemplate"):
        return trace
    columns = len(trace["x"]) if trace.get("x") is not None else np.shape(trace.get("z"))[-1]
    if columns <= PRESENTED_CELLS:
        return trace
    return {key: value for key, value in trace.items() if key not in ("text", "texttemplate", "textfont")}


def drag(figure: go.Figure) -> str | None:
    """What a drag does to the figure: "scene" (a 3-D scene turns), "plane" (a heatmap zooms or pans) or None
    (nothing). Its modebar offers the buttons that go with it (``app.core.ui.plot``)."""
    if "scene" in figure._layout:
        return "scene"
    return "plane" if figure._layout.get("dragmode") in ZOOMABLE else None


TITLE_ROOM = 50  # above a standalone figure, for its title


def standalone(chart: Chart) -> go.Figure:
    """The chart as a figure of its own, its title drawn in it (``app.core.ui.plot`` writes it above the figure
    instead): what "Download as interactive HTML" saves."""
    layout = dict(chart.figure._layout)
    if chart.title:
        margin = layout.get("margin", {})
        layout["margin"] = margin | {"t": margin.get("t", 10) + TITLE_ROOM}
        layout["height"] = chart.height + TITLE_ROOM
        layout["title"] = {"text": plotly_text(chart.title), "x": 0, "xanchor": "left", "y": 1, "yref": "container"}
        layout["title"] |= {"yanchor": "top", "pad": {"t": 12, "l": 10}}
    return go.Figure({"data": chart.figure._data, "layout": layout}, _validate=False)


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
    items = SUMMARY_JOIN.join(f"{quoted(labels[i])} {percent(values[i], 1)}" for i in order)
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
