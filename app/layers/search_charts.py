"""Charts of the layers lab's corpus search: what the nearest tokens share, layer by layer, and their parts of
speech at one layer.

Pure: lists in, a ``Chart`` out, like ``app/layers/charts.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.core.charts import (
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    chart,
    left_margin,
    legend_below,
    plotly_text,
    probability_bars,
    ranked_summary,
    value_axis,
    vertical_line,
)
from app.core.numbers import percent
from app.core.palette import BASELINE, BLUE, GREEN, ORANGE
from app.core.shared_charts import layer_axis
from app.layers.charts import layer_line

# Each measure keeps one colour and one dash, so a legend read in greyscale still tells them apart.
STYLES = {
    "same_token": (BLUE, "solid"),
    "top_tag": (GREEN, "solid"),
    "same_position": (ORANGE, "dot"),
    "agreement": (BASELINE, "dash"),
}


def shares_by_layer(
    series: Mapping[str, Sequence[float | None]],
    names: Mapping[str, str],
    *,
    layer: int,
    layer_label: str,
    layer_title: str,
    share_title: str,
    title: str | None = None,
) -> Chart:
    """Shares of the matches per layer in percent (keys of ``STYLES``), the chosen layer marked. A layer without
    a value (no tagged match) leaves a gap."""
    data = []
    for key, values in series.items():
        colour, dash = STYLES[key]
        percents = [None if v is None else round(100 * float(v), 1) for v in values]
        hover = f"{plotly_text(names[key])} · %{{x}}: %{{y}}%<extra></extra>"
        data.append(layer_line(names[key], percents, colour, hover, dash=dash))
    n = max((len(v) for v in series.values()), default=1)
    shape, label = vertical_line(layer, layer_label, colour=BASELINE, dash="dot")
    layout = base_layout(
        360,
        {"t": 30, "l": left_margin(["100%"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + 2 * LEGEND_ROOM},
        legend=legend_below(),
        showlegend=True,
        xaxis=layer_axis(n, layer_title),
        yaxis=value_axis(title=share_title, percent=True, range=[0, 102]),
        shapes=[shape],
        annotations=[label],
    )
    return chart(data, layout, title)


def shares_summary(series: Mapping[str, Sequence[float | None]], names: Mapping[str, str], template: str) -> str:
    """Each line's lowest and highest layer in words, as ``{items}`` of ``template``."""
    items = []
    for key, values in series.items():
        known = [(i, v) for i, v in enumerate(values) if v is not None]
        if not known:
            continue
        low, high = min(known, key=lambda p: p[1]), max(known, key=lambda p: p[1])
        items.append(f"{names[key]}: {percent(low[1])} ({low[0]}) – {percent(high[1])} ({high[0]})")
    return template.format(items=SUMMARY_JOIN.join(items))


def tag_bars(tags: Mapping[str, float], names: Mapping[str, str], *, title: str | None = None) -> Chart:
    """The parts of speech of the tagged matches, the commonest at the top."""
    return probability_bars([names.get(tag, tag) for tag in tags], list(tags.values()), title=title, color=GREEN)


def tag_summary(tags: Mapping[str, float], names: Mapping[str, str], template: str) -> str:
    return ranked_summary([names.get(tag, tag) for tag in tags], list(tags.values()), template)
