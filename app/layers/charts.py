"""Charts of the layers lab: probe accuracy by layer, geometry by layer, a word's vectors in 2-D per layer, and
in 3-D at one layer.

Pure: lists and arrays in, a ``Chart`` out. Sentences and words come from the corpus or the user: escaped for
plotly like any user text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from app.core.charts import (
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    chart,
    horizontal_line,
    left_margin,
    legend_below,
    line,
    panel_titles,
    plotly_text,
    value_axis,
    vertical_line,
    wrapped,
)
from app.core.palette import BLUE, CATEGORICAL, SKY, VERMILLION
from app.core.shared_charts import layer_axis

COLOURS = {"pretrained": BLUE, "random": VERMILLION, "control": "#999999", "selectivity": SKY}
OTHER_COLOUR = "#333333"
LABEL_COLOURS = CATEGORICAL
OTHER_LABEL_COLOUR = "#BBBBBB"
MAX_LABELS = len(LABEL_COLOURS) - 1  # the rest share one grey "other" colour
REFERENCE_COLOUR = "#555555"  # the majority baseline's line


def layer_line(name: str, values: Sequence[float], colour: str, hover: str, **style) -> dict:
    """One value per layer as a line with a marker at each layer."""
    return line(name, range(len(values)), values, colour, hover, marker_size=8, **style)


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
    horizontal one, each named at its end (shapes and annotations, not traces: no legend entries). The lines are
    drawn over the bars."""
    data = []
    if selectivity is not None:
        name = plotly_text(names["selectivity"])
        data.append(
            {
                "type": "bar",
                "name": name,
                "x": list(range(len(selectivity))),
                "y": [round(100 * float(v), 2) for v in selectivity],
                "marker": {"color": COLOURS["selectivity"], "opacity": 0.5},
                "width": 0.6,
                "hovertemplate": f"{name} · %{{x}}: %{{y}}%<extra></extra>",
            }
        )
    for key, values in lines.items():
        name = plotly_text(names[key])
        data.append(
            layer_line(
                names[key],
                [round(100 * float(v), 2) for v in values],
                COLOURS.get(key, OTHER_COLOUR),
                f"{name} · %{{x}}: %{{y}}%<extra></extra>",
                **({"dash": "dash"} if key == "control" else {}),
            )
        )
    marks = []
    if majority is not None:
        marks.append(horizontal_line(round(100 * majority, 2), majority_label, colour=REFERENCE_COLOUR, dash="dot"))
    if expected_layer is not None:
        marks.append(vertical_line(round(float(expected_layer), 2), expected_label, colour=COLOURS["pretrained"]))
    n = max((len(v) for v in lines.values()), default=1)
    layout = base_layout(
        400 + LEGEND_ROOM,
        # Long names: room for the legend's second line on a narrow screen.
        {"t": 30, "l": left_margin(["100%"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM},
        legend=legend_below(),
        showlegend=True,
        bargap=0.4,
        xaxis=layer_axis(n, layer_title, padded=True),
        yaxis=value_axis(title=accuracy_title, percent=True, range=[0, 100]),
        shapes=[shape for shape, _ in marks],
        annotations=[label for _, label in marks],
    )
    return chart(data, layout, title)


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
    data = []
    for key, values in series.items():
        init = key.rsplit("_", 1)[1]
        data.append(
            layer_line(
                names[key],
                [round(float(v), 3) for v in values],
                COLOURS[init],
                f"{plotly_text(names[key])} · %{{x}}: %{{y}}<extra></extra>",
                **({"dash": "dot"} if key.startswith("anisotropy") else {}),
            )
        )
    n = max((len(v) for v in series.values()), default=1)
    lowest = min((min(v) for v in series.values() if len(v)), default=0.0)
    layout = base_layout(
        370,
        # Four long names: room for the legend's second line on a narrow screen.
        {"t": 16, "l": left_margin(["-0.2"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM},
        legend=legend_below(),
        showlegend=True,
        xaxis=layer_axis(n, layer_title),
        # A cosine is at most 1; the scale starts at 0 unless a value is below it.
        yaxis=value_axis(title=value_title, range=[min(0.0, math.floor(lowest * 5) / 5), 1.02]),
    )
    return chart(data, layout, title)


def label_groups(labels: Sequence[str], other: str) -> list[str]:
    """Labels as legend groups: the most common ``MAX_LABELS`` keep their name, the rest become ``other``."""
    keep = {name for name, _ in Counter(labels).most_common(MAX_LABELS)}
    return [label if label in keep else other for label in labels]


PANEL_GAP = 0.03  # the share of the chart's width between two panels side by side
PANEL_PX = 200  # a panel's plot
PANEL_TITLE_PX = 30  # above it
SENTENCE_HOVER_PX = 360  # a sentence wraps in its hover box instead of running off the screen


def label_order(groups: Sequence[str], other: str) -> list[str]:
    """The legend's order of label groups: commonest first, ``other`` last."""
    order = [name for name, _ in Counter(groups).most_common() if name != other]
    return order + ([other] if other in groups else [])


def group_colour(index: int, group: str, other: str) -> str:
    return OTHER_LABEL_COLOUR if group == other else LABEL_COLOURS[index % len(LABEL_COLOURS)]


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
    label (a shared legend group: a click on a label hides its points in every panel), the label and the
    sentence in the hover (``customdata``)."""
    n_layers = coords.shape[0]
    rows = math.ceil(n_layers / columns)
    width = (1 - PANEL_GAP * (columns - 1)) / columns
    plot_px = rows * PANEL_PX + (rows - 1) * PANEL_TITLE_PX
    groups = label_groups(labels, other_label)
    order = label_order(groups, other_label)
    margin = {"t": PANEL_TITLE_PX, "l": 10, "r": 10, "b": 10 + 2 * LEGEND_ROOM}
    layout = base_layout(plot_px + margin["t"] + margin["b"], margin, legend=legend_below(), showlegend=True)
    texts, centres, tops = [], [], []
    for layer in range(n_layers):
        row, column = divmod(layer, columns)
        suffix = "" if layer == 0 else str(layer + 1)
        left = column * (width + PANEL_GAP)
        top = 1 - row * (PANEL_PX + PANEL_TITLE_PX) / plot_px
        # Coordinates mean nothing on their own: no numbers.
        hidden = {"showticklabels": False, "zeroline": False, "showgrid": True, "ticks": ""}
        layout[f"xaxis{suffix}"] = hidden | {"anchor": f"y{suffix}", "domain": [left, min(1.0, left + width)]}
        layout[f"yaxis{suffix}"] = hidden | {
            "anchor": f"x{suffix}",
            "domain": [max(0.0, top - PANEL_PX / plot_px), top],
        }
        texts.append(panel_title.format(layer=layer, share=float(explained[layer, 0])))
        centres.append(left + width / 2)
        tops.append(top)
    layout["annotations"] = panel_titles(texts, centres, tops)
    hovers = [[plotly_text(label), wrapped(sentence, SENTENCE_HOVER_PX)] for label, sentence in zip(labels, sentences)]
    data = []
    for g, group in enumerate(order):
        members = [k for k, label in enumerate(groups) if label == group]
        for layer in range(n_layers):
            suffix = "" if layer == 0 else str(layer + 1)
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": plotly_text(group),
                    "legendgroup": group,
                    "showlegend": layer == 0,
                    "x": np.asarray(coords[layer, members, 0], dtype=np.float32),
                    "y": np.asarray(coords[layer, members, 1], dtype=np.float32),
                    "customdata": [hovers[k] for k in members],
                    "hovertemplate": "<b>%{customdata[0]}</b><br>%{customdata[1]}<extra></extra>",
                    "marker": {"size": 8, "color": group_colour(g, group, other_label)}
                    | {"line": {"color": "#FFFFFF", "width": 0.5}},
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                }
            )
    return chart(data, layout, title)


def pca_3d(
    coords: np.ndarray,  # (K, 3)
    labels: Sequence[str],
    sentences: Sequence[str],
    *,
    explained: Sequence[float],  # (3,)
    axis_title: str,  # with {k} and {share}
    other_label: str,
    title: str | None = None,
) -> Chart:
    """The word's vectors at one layer on their first three principal components, a point each, one colour per
    label (the legend hides a label's points), the label and the sentence in the hover. The scene turns with a
    drag (``turntable``) and zooms with the wheel; its axes carry no numbers (coordinates mean nothing on their
    own), only the share of the variance each component explains."""
    coords = np.asarray(coords, dtype=np.float32)
    if coords.ndim != 2 or coords.shape[1] != 3 or not coords.shape[0] == len(labels) == len(sentences):
        raise ValueError(f"coordinates {coords.shape} for {len(labels)} labels and {len(sentences)} sentences")
    groups = label_groups(labels, other_label)
    data = []
    for g, group in enumerate(label_order(groups, other_label)):
        members = [k for k, label in enumerate(groups) if label == group]
        data.append(
            {
                "type": "scatter3d",
                "mode": "markers",
                "name": plotly_text(group),
                "x": coords[members, 0],
                "y": coords[members, 1],
                "z": coords[members, 2],
                "customdata": [[plotly_text(labels[k]), wrapped(sentences[k], SENTENCE_HOVER_PX)] for k in members],
                "hovertemplate": "<b>%{customdata[0]}</b><br>%{customdata[1]}<extra></extra>",
                "marker": {"size": 5, "color": group_colour(g, group, other_label)}
                | {"line": {"color": "#FFFFFF", "width": 0.5}},
            }
        )
    axis = {"showticklabels": False, "zeroline": False, "showspikes": False}
    scene = {
        f"{name}axis": axis | {"title": {"text": plotly_text(axis_title.format(k=k + 1, share=float(share)))}}
        for k, (name, share) in enumerate(zip("xyz", explained, strict=True))
    }
    scene |= {"dragmode": "turntable", "aspectmode": "cube", "camera": {"eye": {"x": 1.5, "y": 1.5, "z": 1.1}}}
    layout = base_layout(
        520, {"t": 10, "l": 0, "r": 0, "b": 10 + 2 * LEGEND_ROOM}, scene=scene, legend=legend_below(), showlegend=True
    )
    return chart(data, layout, title)


def neighbour_agreement(points: np.ndarray, labels: Sequence[str]) -> float:
    """The share of points whose nearest other point carries the same label: how cleanly a panel of
    ``pca_panels`` separates the labels (the chance level is the labels' own mix)."""
    points = np.asarray(points, dtype=np.float64)
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    np.fill_diagonal(distances, np.inf)
    nearest = distances.argmin(axis=1)
    return float(np.mean([labels[i] == labels[j] for i, j in enumerate(nearest)]))


def pca_3d_summary(
    coords: np.ndarray, explained: Sequence[float], labels: Sequence[str], layer: int, template: str, single: str
) -> str:
    """The 3-D view of ``pca_3d`` in words: the share of the variance its three components explain ({share}) at
    {layer}, and how often a vector's nearest neighbour in the view carries its label ({agreement}) of
    ``template``; ``single`` (with {layer} and {share}) when there is nothing to separate (one label, or under
    three vectors)."""
    share = float(np.sum(explained))
    if len(set(labels)) < 2 or len(labels) < 3:
        return single.format(layer=layer, share=share)
    return template.format(layer=layer, share=share, agreement=neighbour_agreement(coords, labels))


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
