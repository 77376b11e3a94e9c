"""Figures of the MLM masking page: one draw as a strip of token boxes, and the shares converging over many.

The strip is HTML (``app.core.markup``): boxes wrap to the screen like text, and everything the reader typed is
escaped there. The convergence chart is a plotly ``Chart``, its names escaped for plotly.
"""

from __future__ import annotations

import math
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
    left_margin,
    legend_below,
    plotly_text,
    value_axis,
)
from app.core.markup import token_boxes
from app.core.numbers import percent
from app.core.palette import LIGHT, ORANGE, PURPLE, SKY

# Outcome code → box colour; light enough for black text. Codes follow app.masking.logic
# (0 not chosen, 1 [MASK], 2 random token, 3 unchanged, 4 never a candidate: [CLS], [SEP], a typed [MASK]).
# The three outcomes of a chosen token take the palette's hues; the two that are not part of the draw take greys,
# told apart by lightness, which every colour-vision deficiency keeps (a pale blue for "never a candidate" was
# hard to tell from the sky blue of "unchanged": tests/test_conventions.py).
OUTCOME_COLORS = ("#EEEEEE", LIGHT[ORANGE], LIGHT[PURPLE], LIGHT[SKY], "#AAAAAA")


def token_strip(
    rows: Sequence[Sequence[str]],
    codes: Sequence[int],
    row_names: Sequence[str],
    legend: Mapping[int, str],
    *,
    graded: Sequence[bool] | None = None,
    hover: Sequence[str] | None = None,
    title: str | None = None,
) -> str:
    """One box per position, coloured by what happened to it, in HTML (``markup.token_boxes``).

    ``rows`` holds parallel token sequences (for example original / what the model reads / label), one line of
    each box, named by ``row_names`` in a first box; ``codes`` colours a position's box. Where ``graded`` is False
    the last line is left empty (no label there). ``hover`` is a box's tooltip (its original token by default);
    ``legend`` names each colour.
    """
    n = len(codes)
    if any(len(r) != n for r in rows):
        raise ValueError("every row needs one token per code")
    last = len(rows) - 1
    lines = [
        ["" if r == last and graded is not None and not graded[pos] else tokens[pos] for r, tokens in enumerate(rows)]
        for pos in range(n)
    ]
    return token_boxes(
        lines,
        [OUTCOME_COLORS[code] for code in codes],
        hovers=list(hover) if hover is not None else [str(token) for token in rows[0]] if rows else None,
        legend_entries=[(name, OUTCOME_COLORS[code]) for code, name in legend.items()],
        row_names=row_names,
        small_from=len(rows),  # every line is a token the reader compares with the one above it: all full size
        title=title,
    )


def convergence_chart(
    draws: Sequence[int],
    series: Sequence[tuple[str, Sequence[float], float, str]],
    *,
    title: str | None = None,
    x_title: str = "",
    y_title: str = "",
    target_suffix: str = "target",
) -> Chart:
    """Running shares (in percent) against the number of draws, each with its target as a dashed line of its
    colour; a share and its target carry one name, "name (target 80%)", and one legend entry (a legend group).

    ``series``: (name, running values as shares 0-1, target, colour); the running values travel as arrays
    (thousands of points), rounded to a hundredth of a point. The x axis is logarithmic: the first draws swing
    widely and the later ones settle, and a linear axis would squeeze the swings into one corner. One hover
    lists every share at the draw under the pointer.
    """
    x = np.asarray(draws, dtype=np.int64)
    data = []
    for index, (name, values, target, colour) in enumerate(series):
        label = plotly_text(f"{name} ({target_suffix} {percent(target)})")
        group = f"share {index}"
        level = round(100 * target, 2)
        data += [
            {
                "type": "scatter",
                "mode": "lines",
                "name": label,
                "legendgroup": group,
                "x": x,
                "y": np.round(100 * np.asarray(values, dtype=np.float64), 2),
                "line": {"color": colour, "width": 2},
                "hovertemplate": "%{y:.1f}%",
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": label,
                "legendgroup": group,
                "showlegend": False,
                "x": [int(x[0]), int(x[-1])],
                "y": [level, level],
                "line": {"color": colour, "width": 1.5, "dash": "dash"},
                "hoverinfo": "skip",
            },
        ]
    layout = base_layout(
        400,
        {"t": 20, "r": 24, "l": left_margin(["100%"], title=True), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + LEGEND_ROOM},
        hovermode="x unified",
        legend=legend_below(),
        showlegend=True,
        # Ticks at 1, 10, 100, …: no "2 5" between; the axis ends at the last draw, not at the next power of 10.
        xaxis=value_axis(title=x_title, type="log", dtick=1, range=[0, math.log10(max(int(x[-1]), 1))]),
        yaxis=value_axis(title=y_title, percent=True, range=[0, 100]),
    )
    return chart(data, layout, title)


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
