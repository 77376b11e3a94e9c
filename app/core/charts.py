"""The building blocks every page's charts use: ``Chart`` (an ECharts option, its height and its title), a heatmap,
horizontal probability bars, legends, panels, and the charts-in-words summaries.

Charts are drawn by ECharts (``st.echarts_chart``, bundled with Streamlit): a student's first page with charts
drew in 1.4 s in a new browser where the same maps drawn by plotly took 2.1 s (``bench/chart_library.py``), and
ECharts lays out its labels in one pass where plotly drew a chart twice whenever a label outgrew its margin.
Builders are pure: arrays and already translated strings in, a ``Chart`` out. ECharts draws text as text (no
HTML in labels, panel titles or legends); in tooltips, Streamlit escapes the values a ``{@column}`` template
inserts. A chart's own title is not ECharts' to draw: ``app.core.ui.plot`` writes it, escaped, above the canvas.
"""

from __future__ import annotations

import copy
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from app.core.palette import BLUE, CATEGORICAL, SCALE_STOPS, SEQUENTIAL

# CJK-capable fonts first, so Chinese tokens never render as boxes (the test set-up installs Noto CJK).
FONT = "Source Sans Pro, Noto Sans CJK SC, Noto Sans SC, Microsoft YaHei, PingFang SC, sans-serif"
FONT_SIZE = 12  # ECharts' own default for axis labels, legends and tooltips
PANEL_TITLE_SIZE = 14  # a panel's title inside a chart; a chart's own title is text above it (``Chart``)
PRESENTER_SCALE = 1.5  # presenter mode's chart text against the usual (18 px labels)


@dataclass(frozen=True)
class Chart:
    """What ``app.core.ui.plot`` draws: an ECharts option (JSON-compatible, except that a ``dataset.source`` may be an
    Arrow table, which Streamlit sends as it is), the height of its canvas in pixels (an option has no size) and
    its title. The title is text above the canvas, not in it: ECharts draws a title on one line, cut where a
    narrow column ends, and text wraps. Panel titles inside a chart stay in its option."""

    option: dict
    height: int
    title: str | None = None


def left_to_right(text: str) -> str:
    """A token as it reads in a left-to-right page: with a right-to-left letter in it ("##ر"), the text would
    take the letter's direction and draw its "##" on the wrong side; a leading left-to-right mark prevents that."""
    if any(unicodedata.bidirectional(c) in ("R", "AL") for c in text):
        return "\u200e" + text
    return text


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
    """Tokens as category labels: in reading direction and distinct."""
    return distinct([left_to_right(str(token)) for token in tokens])


# Past this many tokens an axis labels only every n-th one, and a row of skipped tokens reads like a (wrong)
# sentence: then each label carries its position.
NUMBERED_AXIS_FROM = 48


def axis_labels(tokens: Sequence[str]) -> list[str]:
    """Tokens as a heatmap axis: ``unique_labels``, numbered by position when there are many."""
    labels = unique_labels(tokens)
    if len(labels) < NUMBERED_AXIS_FROM or labels == [str(i) for i in range(len(labels))]:  # already positions
        return labels
    return [f"{i} · {label}" for i, label in enumerate(labels)]


def rounded(values, digits: int = 4) -> list:
    """Numbers as a chart sends them: plain floats, rounded past what a colour or a tooltip shows (a map of 512
    tokens is 262,144 cells), NaN as None (an empty cell or a gap in a line)."""
    array = np.round(np.asarray(values, dtype=np.float64), digits)
    return (
        [None if math.isnan(v) else v for v in array.tolist()]
        if array.ndim == 1
        else [rounded(r, digits) for r in array]
    )


def base_option() -> dict:
    """The look every chart shares: our fonts and colours, no animation (a chart redrawn at every rerun should
    not replay its entry) and tooltips kept inside the chart."""
    return {
        "animation": False,
        "textStyle": {"fontFamily": FONT},
        # A series that names no colour takes these, not the theme's (Streamlit's has red beside green).
        "color": list(CATEGORICAL),
        "tooltip": {"confine": True},
    }


def grid(top=40, right=16, bottom=8, left=8, **extra) -> dict:
    """A plot area whose axes' labels *and* names stay within these sides (pixels, or percentages as "12%"; None
    leaves a side out): ECharts 6 shrinks the plot as much as they need (``outerBoundsMode`` "same"). Its older
    ``containLabel`` leaves the names out, and a legend under the plot then covers the horizontal axis's name."""
    sides = {"top": top, "right": right, "bottom": bottom, "left": left} | extra
    return {key: value for key, value in sides.items() if value is not None} | {
        "outerBoundsMode": "same",
        "outerBoundsContain": "all",
    }


LEGEND_ROOM = 30  # below a plot, for one line of legend
SIDE_BY_SIDE_GAP = 8  # percent of the chart's width between two panels side by side


def side_by_side(titles: Sequence[str], *, legend_below: bool) -> dict:
    """Two panels side by side, a title centred above each: the option's ``grid`` (grids 0 and 1) and ``title``
    entries."""
    width = (100 - SIDE_BY_SIDE_GAP) / 2
    lefts = (0.0, width + SIDE_BY_SIDE_GAP)
    bottom = 8 + (LEGEND_ROOM if legend_below else 0)
    grids = [grid(top=28, bottom=bottom, left=f"{left:.0f}%", width=f"{width:.0f}%", right=None) for left in lefts]
    return {"grid": grids, "title": panel_titles(titles, [f"{left + width / 2:.0f}%" for left in lefts], [0, 0])}


def category_axis(labels: Sequence[str], *, name: str | None = None, **extra) -> dict:
    """An axis of named categories, every label shown (ECharts would otherwise skip some to avoid overlaps)."""
    axis = {
        "type": "category",
        "data": list(labels),
        "axisLabel": {"interval": 0},
        "axisTick": {"alignWithLabel": True},
    }
    if name:
        axis |= {"name": name, "nameLocation": "middle"}
    return axis | extra


def text_px(text: str) -> int:
    """About how wide ``text`` is drawn at the charts' 12 px: a CJK character a square, a Latin letter about half."""
    return sum(12 if unicodedata.east_asian_width(c) in "WF" else 7 for c in text)


def line(name: str, points, colour: str | None, tooltip: str, *, symbol_size: int = 7, **style) -> dict:
    """One curve through ``points`` (x, y), a marker at each; ``colour`` None takes the palette's next, ``style``
    adds to the line's (a dash)."""
    colouring = {"color": colour} if colour else {}
    return {
        "type": "line",
        "name": name,
        "data": [list(point) for point in points],
        "symbolSize": symbol_size,
        "lineStyle": {"width": 3} | colouring | style,
        "itemStyle": colouring,
        "tooltip": {"formatter": tooltip},
    }


def value_axis(*, name: str | None = None, percent: bool = False, **extra) -> dict:
    """A numeric axis; ``percent`` for values already in percent (0-100), labelled with "%"."""
    axis = {"type": "value"}
    if name:
        axis |= {"name": name, "nameLocation": "middle", "nameGap": 30}
    if percent:
        axis |= {"axisLabel": {"formatter": "{value}%"}}
    return axis | extra


def colour_bar(low: float, high: float, colours: str = SEQUENTIAL, **extra) -> dict:
    """A continuous ``visualMap``: values from ``low`` to ``high`` through a scale (``palette.COLOUR_SCALES``, its
    evenly spaced colours), its bar at the right."""
    return {
        "type": "continuous",
        "min": low,
        "max": high,
        "calculable": False,
        "precision": 2,
        "text": [f"{high:.3g}", f"{low:.3g}"],  # the scale's ends, above and below its bar
        "right": 0,
        "top": "middle",
        "inRange": {"color": list(SCALE_STOPS[colours])},
    } | extra


def heatmap_data(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], digits: int = 4) -> pa.Table:
    """A matrix as the rows a heatmap reads from its dataset, one per cell, row by row: column ``x``, row ``y``,
    ``value``. An Arrow table, which Streamlit sends as it is (each label once, the cells as its index), where JSON
    lists would repeat every label and a DataFrame would be converted first: the attention page's two maps cost a
    run 1.8 ms as DataFrames, 0.2 ms as Arrow tables."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.shape != (len(y_labels), len(x_labels)):
        raise ValueError(f"matrix shape {matrix.shape} does not match {len(y_labels)} x {len(x_labels)} labels")
    rows, columns = matrix.shape
    index = np.int32 if matrix.size > np.iinfo(np.int16).max else np.int16
    return pa.table(
        {
            "x": pa.DictionaryArray.from_arrays(np.tile(np.arange(columns, dtype=index), rows), list(x_labels)),
            "y": pa.DictionaryArray.from_arrays(np.repeat(np.arange(rows, dtype=index), columns), list(y_labels)),
            "value": np.round(matrix.ravel(), digits),
        }
    )


def matrix_of(data, x_labels: Sequence[str], y_labels: Sequence[str]) -> np.ndarray:
    """``heatmap_data``'s rows (an Arrow table, or the DataFrame a browser's table reads back as) as a matrix:
    rows ``y_labels``, columns ``x_labels``, what the chart shows."""
    frame = data.to_pandas() if isinstance(data, pa.Table) else data
    table = frame.pivot_table(index="y", columns="x", values="value", observed=False, sort=False, dropna=False)
    return table.reindex(index=list(y_labels), columns=list(x_labels)).to_numpy(dtype=np.float64)


def heatmap(
    matrix: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str | None = None,
    colorscale: str = SEQUENTIAL,
    zmin: float | None = None,
    zmax: float | None = None,
    tooltip: str = "{@y} → {@x}: {@value}",
    height: int | None = None,
    x_on_top: bool = False,
) -> Chart:
    """Rows are ``y_labels`` (top to bottom), columns ``x_labels``; a colour bar at the right from ``zmin`` to
    ``zmax`` (the matrix's own range by default). ``tooltip`` is a template of the columns x, y and value."""
    x, y = axis_labels(x_labels), axis_labels(y_labels)
    data = heatmap_data(matrix, x, y)
    values = data["value"].to_numpy()
    finite = values[np.isfinite(values)]
    low = (float(finite.min()) if finite.size else 0.0) if zmin is None else zmin
    high = (float(finite.max()) if finite.size else 1.0) if zmax is None else zmax
    option = base_option() | {
        "dataset": {"source": data},
        "grid": grid(top=10, right=70, bottom=10),
        "xAxis": category_axis(x, position="top" if x_on_top else "bottom")
        | {"axisLabel": {"interval": 0, "rotate": 60 if x_on_top else 45}, "splitArea": {"show": False}},
        "yAxis": category_axis(y, inverse=True),
        "visualMap": colour_bar(low, high if high > low else low + 1.0, colorscale),
        "series": [
            {"type": "heatmap", "encode": {"x": "x", "y": "y", "value": "value"}, "tooltip": {"formatter": tooltip}}
        ],
    }
    return Chart(option, height or max(270, 22 * len(y) + 110), title)


BAR_PX = 28  # a horizontal bar and the gap to the next, room for its name and its value


def probability_bars(
    labels: Sequence[str], probs: Sequence[float], *, title: str | None = None, color: str = BLUE
) -> Chart:
    """Horizontal bars in percent, the most likely at the top, each ending in its value."""
    names = unique_labels(labels)
    percents = rounded([100 * float(p) for p in probs], 1)  # as the summaries write them
    option = base_option() | {
        "grid": grid(top=10, right=56, bottom=8),
        "xAxis": value_axis(percent=True, min=0, max=100),
        "yAxis": category_axis(names, inverse=True),
        "tooltip": {"confine": True, "trigger": "item", "formatter": "{b}: {c}%"},
        "series": [
            {
                "type": "bar",
                "data": percents,
                "itemStyle": {"color": color},
                "label": {"show": True, "position": "right", "formatter": "{c}%"},
                "barMaxWidth": 22,
            }
        ],
    }
    return Chart(option, 40 + BAR_PX * len(names), title)


def legend_entries(entries: Sequence[tuple[str, str]]) -> list[dict]:
    """Legend entries alone, a coloured square each for (name, colour): series without data, for a chart whose
    colours are not series of their own (a heatmap's categories)."""
    return [
        {"type": "scatter", "name": name, "data": [], "itemStyle": {"color": colour}, "symbol": "rect"}
        for name, colour in entries
    ]


def panel_titles(texts: Sequence[str], lefts: Sequence[str], tops: Sequence[int | str]) -> list[dict]:
    """Titles above panels (``grid`` entries), each centred at ``lefts[i]``, ``tops[i]`` down from the top."""
    return [
        {"text": text, "left": left, "top": top, "textAlign": "center", "textStyle": {"fontSize": PANEL_TITLE_SIZE}}
        for text, left, top in zip(texts, lefts, tops, strict=True)
    ]


def _listed(component) -> list[dict]:
    """An option's component (axis, legend, title...) as the list ECharts also accepts in its place."""
    if component is None:
        return []
    return component if isinstance(component, list) else [component]


def accessible_name(chart: Chart, summary: str | None) -> str | None:
    """What a screen reader says for a chart drawn on a canvas: its title, its panels' titles, then its finding
    in words."""
    panels = [title["text"] for title in _listed(chart.option.get("title")) if title.get("text")]
    return ". ".join(([chart.title] if chart.title else []) + panels + ([summary] if summary else [])) or None


def presented(option: dict, factor: float = PRESENTER_SCALE) -> dict:
    """A copy of ``option`` with its text ``factor`` times larger, for presenter mode (an option may be cached and
    drawn by other sessions without it). ECharts gives axis labels, legends, titles and series labels sizes of
    their own, so each is set. The dataset is shared, not copied."""
    result = {key: copy.deepcopy(value) for key, value in option.items() if key != "dataset"}
    if "dataset" in option:
        result["dataset"] = option["dataset"]

    def enlarge(style: dict, default: int = FONT_SIZE) -> None:
        style["fontSize"] = round(style.get("fontSize", default) * factor)

    for axis in _listed(result.get("xAxis")) + _listed(result.get("yAxis")):
        enlarge(axis.setdefault("axisLabel", {}))
        enlarge(axis.setdefault("nameTextStyle", {}))
    for component in _listed(result.get("legend")) + _listed(result.get("visualMap")) + _listed(result.get("tooltip")):
        enlarge(component.setdefault("textStyle", {}))
    for title in _listed(result.get("title")):
        enlarge(title.setdefault("textStyle", {}), PANEL_TITLE_SIZE)
    for series in result.get("series", []):
        for key in ("label", "detail", "title", "axisLabel"):
            if key in series:
                enlarge(series[key])
    enlarge(result.setdefault("textStyle", {}))
    return result


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
