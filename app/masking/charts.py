"""Figures of the MLM masking page: one draw as a strip of token boxes, and the shares converging over many.

The strip is HTML (``app.core.markup``): boxes wrap to the screen like text, and everything the reader typed is
escaped there. The convergence chart is an ECharts ``Chart``, which draws text as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from app.core.charts import SUMMARY_JOIN, Chart, base_option, distinct, grid, value_axis
from app.core.markup import token_boxes
from app.core.palette import BLUE, LIGHT, ORANGE, PALE, PURPLE, SKY

# Outcome code → box colour; light enough for black text. Codes follow app.masking.logic
# (0 not chosen, 1 [MASK], 2 random token, 3 unchanged, 4 never a candidate: [CLS], [SEP], a typed [MASK]).
OUTCOME_COLORS = ("#EEEEEE", LIGHT[ORANGE], LIGHT[PURPLE], LIGHT[SKY], PALE[BLUE])


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


# From the vertical axis's line to its name, past the tick labels ("100%").
Y_NAME_GAP = 44


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
    colour; a share and its target carry one name, "name (target 80%)", so the legend shows one entry for both.

    ``series``: (name, running values as shares 0-1, target, colour). The running values travel as a dataset
    (one column per share; thousands of rows). The x axis is logarithmic: the first draws swing widely and the
    later ones settle, and a linear axis would squeeze the swings into one corner.
    """
    x = [int(d) for d in draws]
    names = [f"{name} ({target_suffix} {target:.0%})" for name, _, target, _ in series]
    columns = distinct([x_title or "draws", *names])
    data = pa.table(
        {columns[0]: np.asarray(x, dtype=np.int64)}
        | {
            column: np.round(100 * np.asarray(values, dtype=np.float64), 2)
            for column, (_, values, _, _) in zip(columns[1:], series)
        }
    )
    lines = []
    for column, name, (_, _, target, colour) in zip(columns[1:], names, series):
        drawn = {"type": "line", "name": name, "itemStyle": {"color": colour}, "showSymbol": False}
        level = round(100 * target, 2)
        lines += [
            drawn | {"encode": {"x": columns[0], "y": column, "tooltip": [column]}, "lineStyle": {"width": 2}},
            drawn
            | {"data": [[x[0], level], [x[-1], level]], "lineStyle": {"width": 1.5, "type": "dashed"}}
            | {"silent": True, "tooltip": {"show": False}},
        ]
    option = base_option() | {
        "dataset": {"source": data},
        "grid": grid(top=20, right=24, bottom=70),
        # Ticks at 1, 10, 100, …: no "2 5" between; the axis ends at the last draw, not at the next power of 10.
        "xAxis": {"type": "log", "logBase": 10, "min": 1, "max": x[-1]}
        | {"name": x_title, "nameLocation": "middle", "nameGap": 28}
        | {"axisPointer": {"label": {"precision": 0}}},  # the tooltip's heading: a whole number of draws
        "yAxis": value_axis(name=y_title, percent=True, min=0, max=100) | {"nameGap": Y_NAME_GAP},
        "legend": {"bottom": 0, "left": 0, "data": names},
        "tooltip": {"confine": True, "trigger": "axis", "valueFormatter": "%.1f%%"},
        "series": lines,
    }
    return Chart(option, 400, title)


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
