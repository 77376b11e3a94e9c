"""Charts of the layers lab: probe accuracy by layer, geometry by layer, and a word's vectors in 2-D per layer.

Pure: lists and arrays in, ``go.Figure`` out. Sentences and words come from the corpus or the user, so they are
escaped for plotly (``base.plotly_text``).
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .base import SUMMARY_JOIN, plotly_text, style
from .palette import BLUE, CATEGORICAL, SKY, VERMILLION

COLOURS = {"pretrained": BLUE, "random": VERMILLION, "control": "#999999", "selectivity": SKY}
LABEL_COLOURS = CATEGORICAL
MAX_LABELS = len(LABEL_COLOURS) - 1  # the rest share one grey "other" colour


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
) -> go.Figure:
    """Accuracy per layer, one line per run (``pretrained``, ``random``, ``control``), selectivity as bars,
    the expected layer as a vertical line and the majority-label baseline as a horizontal one."""
    fig = go.Figure()
    if selectivity is not None:
        fig.add_trace(
            go.Bar(
                x=list(range(len(selectivity))),
                y=list(selectivity),
                name=names["selectivity"],
                marker={"color": COLOURS["selectivity"]},
                opacity=0.5,
                hovertemplate=f"{plotly_text(names['selectivity'])} · %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    for key, values in lines.items():
        fig.add_trace(
            go.Scatter(
                x=list(range(len(values))),
                y=list(values),
                mode="lines+markers",
                name=names[key],
                line={"color": COLOURS.get(key, "#333333"), "width": 3, "dash": "dash" if key == "control" else None},
                marker={"size": 8},
                hovertemplate=f"{plotly_text(names[key])} · %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    if majority is not None:
        fig.add_hline(
            y=majority,
            line={"color": "#555555", "dash": "dot", "width": 1},
            annotation_text=plotly_text(majority_label),
            annotation_position="bottom right",
        )
    if expected_layer is not None:
        fig.add_vline(
            x=expected_layer,
            line={"color": COLOURS["pretrained"], "dash": "dash", "width": 2},
            annotation_text=plotly_text(expected_label),
            annotation_position="top",
        )
    n = max((len(v) for v in lines.values()), default=1)
    fig.update_xaxes(title_text=layer_title, dtick=1, range=[-0.5, n - 0.5])
    fig.update_yaxes(title_text=accuracy_title, range=[0, 1.02], tickformat=".0%")
    fig.update_layout(legend={"orientation": "h", "y": -0.2, "yanchor": "top"}, bargap=0.4)
    return style(fig, title, 430)


def geometry_by_layer(
    series: Mapping[str, Sequence[float]],
    names: Mapping[str, str],
    *,
    layer_title: str,
    value_title: str,
    title: str | None = None,
) -> go.Figure:
    """Cosine measures per layer; keys ``<measure>_<init>``: solid for self-similarity, dotted for anisotropy,
    blue for the pre-trained model, vermillion for the random-initialised one."""
    fig = go.Figure()
    for key, values in series.items():
        init = key.rsplit("_", 1)[1]
        fig.add_trace(
            go.Scatter(
                x=list(range(len(values))),
                y=list(values),
                mode="lines+markers",
                name=names[key],
                line={"color": COLOURS[init], "width": 3, "dash": "dot" if key.startswith("anisotropy") else None},
                hovertemplate=f"{plotly_text(names[key])} · %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    n = max((len(v) for v in series.values()), default=1)
    fig.update_xaxes(title_text=layer_title, dtick=1, range=[-0.5, n - 0.5])
    fig.update_yaxes(title_text=value_title, range=[-0.05, 1.02])
    fig.update_layout(legend={"orientation": "h", "y": -0.2, "yanchor": "top"})
    return style(fig, title, 400)


def hover_sentence(text: str, width: int = 60) -> str:
    """A sentence for a hover box: escaped, and wrapped (at spaces, or every ``width`` characters in Chinese)."""
    if " " in text:
        lines = textwrap.wrap(text, width)
    else:
        lines = [text[i : i + width // 2] for i in range(0, len(text), width // 2)]
    return "<br>".join(plotly_text(line) for line in lines)


def label_groups(labels: Sequence[str], other: str) -> list[str]:
    """Labels as legend groups: the most common ``MAX_LABELS`` keep their name, the rest become ``other``."""
    keep = {name for name, _ in Counter(labels).most_common(MAX_LABELS)}
    return [label if label in keep else other for label in labels]


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
) -> go.Figure:
    """One scatter panel per layer: the word's vectors on their first two principal components, one colour per
    label (shared legend), the sentence in the hover."""
    n_layers = coords.shape[0]
    rows = math.ceil(n_layers / columns)
    titles = [panel_title.format(layer=i, share=float(explained[i, 0])) for i in range(n_layers)]
    fig = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=[plotly_text(x) for x in titles],
        horizontal_spacing=0.04,
        vertical_spacing=0.12 if rows > 1 else 0.1,
    )
    groups = label_groups(labels, other_label)
    order = [name for name, _ in Counter(groups).most_common() if name != other_label]
    order += [other_label] if other_label in groups else []
    hovers = [hover_sentence(s) for s in sentences]
    for g, group in enumerate(order):
        members = [k for k, label in enumerate(groups) if label == group]
        colour = "#BBBBBB" if group == other_label else LABEL_COLOURS[g % len(LABEL_COLOURS)]
        for layer in range(n_layers):
            fig.add_trace(
                go.Scatter(
                    x=coords[layer, members, 0].tolist(),
                    y=coords[layer, members, 1].tolist(),
                    mode="markers",
                    marker={"color": colour, "size": 8, "line": {"width": 0.5, "color": "white"}},
                    name=plotly_text(group),
                    legendgroup=group,
                    showlegend=layer == 0,
                    text=[f"<b>{plotly_text(labels[k])}</b><br>{hovers[k]}" for k in members],
                    hovertemplate="%{text}<extra></extra>",
                ),
                row=layer // columns + 1,
                col=layer % columns + 1,
            )
    fig.update_xaxes(showticklabels=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, zeroline=False)
    fig = style(fig, title, 280 * rows + 80)
    # room above the first row for its panel titles (style() leaves 10 px when the figure has no title)
    fig.update_layout(legend={"orientation": "h", "y": -0.05, "yanchor": "top"}, margin={"t": 70 if title else 40})
    return fig


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
