"""Charts of the layers lab: probe accuracy by layer, geometry by layer, and a word's vectors in 2-D per layer.

Pure: lists and arrays in, a ``Chart`` out. Sentences and words come from the corpus or the user: ECharts draws
them as plain text, and Streamlit escapes them in tooltips.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from app.core.charts import LEGEND_ROOM, SUMMARY_JOIN, Chart, base_option, grid, line, panel_titles, rounded, value_axis
from app.core.palette import BLUE, CATEGORICAL, SKY, VERMILLION

COLOURS = {"pretrained": BLUE, "random": VERMILLION, "control": "#999999", "selectivity": SKY}
OTHER_COLOUR = "#333333"
LABEL_COLOURS = CATEGORICAL
OTHER_LABEL_COLOUR = "#BBBBBB"
MAX_LABELS = len(LABEL_COLOURS) - 1  # the rest share one grey "other" colour
REFERENCE_LABEL = {"color": "#555555", "fontSize": 11, "formatter": "{b}"}


def layer_axis(n_layers: int, name: str, *, padded: bool = False, **extra) -> dict:
    """Layers 0 to ``n_layers`` - 1 on a value axis, a tick and a label at each; ``padded`` leaves half a layer at
    both ends, for bars centred on the first and the last layer (a value axis, not a category one, so that a
    marker can stand between two layers, as the expected layer does)."""
    pad = 0.5 if padded else 0
    layers = list(range(max(n_layers, 2)))
    return (
        value_axis(name=name, min=-pad, max=layers[-1] + pad, nameGap=24)
        | {"axisLabel": {"customValues": layers}, "axisTick": {"customValues": layers}}
        | extra
    )


def layer_line(name: str, values: Sequence[float], colour: str, tooltip: str, **style) -> dict:
    """One value per layer as a line with a marker at each layer."""
    return line(name, enumerate(values), colour, tooltip, symbol_size=8, **style)


def accuracy_by_layer(
    lines: Mapping[str, Sequence[float]],
    names: Mapping[str, str],
    *,
    selectivity: Sequence[float] | None = None,
    expected_layer: float | None = None,
    expected_label: str = "",
    majority: float | None = None,
    majority_label: str = "",
    layer_title: str,
    accuracy_title: str,
    title: str | None = None,
) -> Chart:
    """Accuracy per layer in percent, one line per run (``pretrained``, ``random``, ``control``), selectivity as
    bars (percentage points), the expected layer as a vertical line and the majority-label baseline as a
    horizontal one, each named at its end. The lines are drawn over the bars."""
    tooltip = "{a} · {@[0]}: {@[1]}%"
    series = []
    if selectivity is not None:
        series.append(
            {
                "type": "bar",
                "name": names["selectivity"],
                "data": [[layer, v] for layer, v in enumerate(rounded([100 * float(v) for v in selectivity], 2))],
                "itemStyle": {"color": COLOURS["selectivity"], "opacity": 0.5},
                "barWidth": "60%",
                "tooltip": {"formatter": tooltip},
            }
        )
    for key, values in lines.items():
        series.append(
            layer_line(
                names[key],
                rounded([100 * float(v) for v in values], 2),
                COLOURS.get(key, OTHER_COLOUR),
                tooltip,
                **({"type": "dashed"} if key == "control" else {}),
            )
        )
    marks = []
    if majority is not None:
        marks.append(
            {
                "name": majority_label,
                "yAxis": round(100 * majority, 2),
                "lineStyle": {"color": "#555555", "type": "dotted", "width": 1},
                "label": REFERENCE_LABEL | {"position": "insideEndBottom"},
            }
        )
    if expected_layer is not None:
        marks.append(
            {
                "name": expected_label,
                "xAxis": round(float(expected_layer), 2),
                "lineStyle": {"color": COLOURS["pretrained"], "type": "dashed", "width": 2},
                "label": REFERENCE_LABEL | {"position": "end"},
            }
        )
    if marks:  # on the first line, which every chart has: a line of its own would take a legend entry
        first_line = next(s for s in series if s["type"] == "line")
        first_line["markLine"] = {"symbol": "none", "silent": True, "data": marks}
    n = max((len(v) for v in lines.values()), default=1)
    option = base_option() | {
        # Long names: room for the legend's second line on a narrow screen.
        "grid": grid(top=30, right=16, bottom=2 * LEGEND_ROOM + 8, left=8),
        "xAxis": layer_axis(n, layer_title, padded=True),
        "yAxis": value_axis(name=accuracy_title, percent=True, min=0, max=100, nameGap=12),
        "legend": {"bottom": 0, "left": 0},
        "series": series,
    }
    return Chart(option, 400 + LEGEND_ROOM, title)


def geometry_by_layer(
    series: Mapping[str, Sequence[float]],
    names: Mapping[str, str],
    *,
    layer_title: str,
    value_title: str,
    title: str | None = None,
) -> Chart:
    """Cosine measures per layer; keys ``<measure>_<init>``: solid for self-similarity, dotted for anisotropy,
    blue for the pre-trained model, vermillion for the random-initialised one."""
    lines = []
    for key, values in series.items():
        init = key.rsplit("_", 1)[1]
        lines.append(
            layer_line(
                names[key],
                rounded(values, 3),
                COLOURS[init],
                "{a} · {@[0]}: {@[1]}",
                **({"type": "dotted"} if key.startswith("anisotropy") else {}),
            )
        )
    n = max((len(v) for v in series.values()), default=1)
    lowest = min((min(v) for v in series.values() if len(v)), default=0.0)
    option = base_option() | {
        # Four long names: room for the legend's second line on a narrow screen.
        "grid": grid(top=16, right=16, bottom=2 * LEGEND_ROOM + 8, left=8),
        "xAxis": layer_axis(n, layer_title),
        # A cosine is at most 1; the scale starts at 0 unless a value is below it.
        "yAxis": value_axis(name=value_title, min=min(0.0, math.floor(lowest * 5) / 5), max=1, nameGap=12),
        "legend": {"bottom": 0, "left": 0},
        "series": lines,
    }
    return Chart(option, 370, title)


def label_groups(labels: Sequence[str], other: str) -> list[str]:
    """Labels as legend groups: the most common ``MAX_LABELS`` keep their name, the rest become ``other``."""
    keep = {name for name, _ in Counter(labels).most_common(MAX_LABELS)}
    return [label if label in keep else other for label in labels]


PANEL_GAP = 3  # percent of the chart's width between two panels side by side
PANEL_PX = 210  # a panel's plot
PANEL_TITLE_PX = 30  # above it


def pca_panels(
    coords: np.ndarray,  # (L + 1, K, 2)
    explained: np.ndarray,  # (L + 1, 2)
    labels: Sequence[str],
    sentences: Sequence[str],
    *,
    panel_title: str,  # with {layer} and {share}
    other_label: str,
    title: str | None = None,
    columns: int = 4,
) -> Chart:
    """One scatter panel per layer: the word's vectors on their first two principal components, one colour per
    label (a shared legend: a click on a label hides its points in every panel), the label and the sentence in
    the tooltip. Each point carries them as its third and fourth items."""
    n_layers = coords.shape[0]
    rows = math.ceil(n_layers / columns)
    width = (99 - PANEL_GAP * (columns - 1)) / columns  # 1% spare: a frame at 100% is cut
    groups = label_groups(labels, other_label)
    order = [name for name, _ in Counter(groups).most_common() if name != other_label]
    order += [other_label] if other_label in groups else []
    grids, x_axes, y_axes, titled, series = [], [], [], [], []
    for layer in range(n_layers):
        row, column = divmod(layer, columns)
        left = column * (width + PANEL_GAP)
        panel_top = PANEL_TITLE_PX + row * (PANEL_PX + PANEL_TITLE_PX)
        grids.append(
            grid(
                top=panel_top, left=f"{left:.1f}%", width=f"{width:.1f}%", height=PANEL_PX - 10, right=None, bottom=None
            )
        )
        # Coordinates mean nothing on their own: no numbers; a margin keeps the outermost points whole.
        hidden = {"gridIndex": layer, "scale": True, "boundaryGap": ["8%", "8%"]}
        hidden |= {"axisLabel": {"show": False}, "axisTick": {"show": False}}
        x_axes.append(value_axis(**hidden))
        y_axes.append(value_axis(**hidden))
        share = float(explained[layer, 0])
        titled.append((panel_title.format(layer=layer, share=share), f"{left + width / 2:.1f}%", panel_top - 24))
    for g, group in enumerate(order):
        members = [k for k, label in enumerate(groups) if label == group]
        colour = OTHER_LABEL_COLOUR if group == other_label else LABEL_COLOURS[g % len(LABEL_COLOURS)]
        for layer in range(n_layers):
            points = rounded(coords[layer, members], 3)
            series.append(
                {
                    "type": "scatter",
                    "name": group,
                    "xAxisIndex": layer,
                    "yAxisIndex": layer,
                    "data": [[*point, labels[k], sentences[k]] for point, k in zip(points, members, strict=True)],
                    "symbolSize": 8,
                    "itemStyle": {"color": colour, "borderColor": "#FFFFFF", "borderWidth": 0.5},
                }
            )
    texts, lefts, tops = zip(*titled, strict=True)
    option = base_option() | {
        "title": panel_titles(texts, lefts, tops),
        "grid": grids,
        "xAxis": x_axes,
        "yAxis": y_axes,
        # A sentence wraps in its tooltip instead of running off the screen.
        "tooltip": {
            "confine": True,
            "formatter": "<b>{@[2]}</b><br/>{@[3]}",
            "extraCssText": "white-space: normal; max-width: 360px; overflow-wrap: anywhere;",
        },
        "legend": {"bottom": 0, "left": 0, "data": order},
        "series": series,
    }
    return Chart(option, rows * (PANEL_PX + PANEL_TITLE_PX) + 2 * LEGEND_ROOM, title)


def neighbour_agreement(points: np.ndarray, labels: Sequence[str]) -> float:
    """The share of points whose nearest other point carries the same label: how cleanly a panel of
    ``pca_panels`` separates the labels (the chance level is the labels' own mix)."""
    points = np.asarray(points, dtype=np.float64)
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    np.fill_diagonal(distances, np.inf)
    nearest = distances.argmin(axis=1)
    return float(np.mean([labels[i] == labels[j] for i, j in enumerate(nearest)]))


def pca_summary(coords: np.ndarray, explained: np.ndarray, labels: Sequence[str], template: str, single: str) -> str:
    """The layer of ``pca_panels`` where vectors with the same label sit together most: {layer}, {share},
    {first_share} (the same share at layer 0) of ``template``. With one label only (or under three vectors)
    there is nothing to separate: ``single`` names the layer whose first component explains most ({layer},
    {share}), as the panel titles show it."""
    coords = np.asarray(coords, dtype=np.float64)
    if len(set(labels)) < 2 or coords.shape[1] < 3:
        first = np.asarray(explained, dtype=np.float64)[:, 0]
        layer = int(np.argmax(first))
        return single.format(layer=layer, share=float(first[layer]))
    shares = [neighbour_agreement(layer, labels) for layer in coords]
    best = int(np.argmax(shares))
    return template.format(layer=best, share=shares[best], first_share=shares[0])


def series_summary(series: Mapping[str, Sequence[float]], names: Mapping[str, str], template: str) -> str:
    """Each line of ``geometry_by_layer`` from its first layer to its last: {series}, {first}, {last}, {layer}
    (the last layer) of ``template``."""
    return SUMMARY_JOIN.join(
        template.format(series=names[key], first=float(values[0]), last=float(values[-1]), layer=len(values) - 1)
        for key, values in series.items()
        if len(values)
    )


def best_layer_summary(lines: Mapping[str, Sequence[float]], names: Mapping[str, str], template: str) -> str:
    """Each line of ``accuracy_by_layer`` at its best layer: {series}, {layer}, {value} of ``template``."""
    parts = []
    for key, values in lines.items():
        if len(values):
            layer = int(np.argmax(values))
            parts.append(template.format(series=names[key], layer=layer, value=float(values[layer])))
    return SUMMARY_JOIN.join(parts)
