"""The NSP lab's figures: the ``[CLS] A [SEP] B [SEP]`` strip coloured by segment, and the P(IsNext) gauge."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .base import base_layout, figure, token_grid
from .palette import BLUE, LIGHT, ORANGE, PALE, VERMILLION

# Cell codes: 2 * segment + (1 if special): A word, A special, B word, B special.
CELL_COLOURS = (PALE[BLUE], LIGHT[BLUE], PALE[ORANGE], LIGHT[ORANGE])
LEGEND_COLOURS = (CELL_COLOURS[1], CELL_COLOURS[3])


def cell_codes(segment_ids: Sequence[int], special: Sequence[bool]) -> list[int]:
    """One colour code per token: its segment, darker where the tokenizer flags [CLS] and [SEP]."""
    if len(special) != len(segment_ids):
        raise ValueError(f"{len(special)} special flags but {len(segment_ids)} segment ids")
    return [2 * int(segment) + bool(flag) for segment, flag in zip(segment_ids, special)]


def segment_strip(
    tokens: Sequence[str],
    segment_ids: Sequence[int],
    special: Sequence[bool],
    *,
    segment_labels: Sequence[str],
    position_label: str,
    title: str | None = None,
    per_row: int = 12,
) -> go.Figure:
    """The input as a grid of token cells, read left to right, top to bottom, coloured by segment.

    Tokens are HTML-escaped: plotly renders a small set of tags inside text, and a token must show literally.
    """
    codes = cell_codes(segment_ids, special)
    # Token on top, its position below: the three numbers BERT adds up are token, segment, position.
    hovers = [
        f"{position_label} {i} · {token} · {segment_labels[int(segment)]}"
        for i, (token, segment) in enumerate(zip(tokens, segment_ids))
    ]
    return token_grid(
        tokens,
        [str(i) for i in range(len(tokens))],
        hovers,
        codes,
        CELL_COLOURS,
        list(zip(segment_labels, LEGEND_COLOURS)),
        title=title,
        per_row=per_row,
    )


def is_next_gauge(probability: float, *, title: str) -> go.Figure:
    """P(IsNext) on a 0–100% dial, with the 50% decision line."""
    dial = {
        "type": "indicator",
        "mode": "gauge+number",
        "value": 100 * probability,
        "number": {"suffix": "%", "valueformat": ".1f"},
        "title": {"text": title},
        "gauge": {
            "axis": {"range": [0, 100], "ticksuffix": "%"},
            "bar": {"color": BLUE},
            "steps": [{"range": [0, 50], "color": PALE[VERMILLION]}, {"range": [50, 100], "color": PALE[BLUE]}],
            "threshold": {"line": {"color": "#333", "width": 3}, "thickness": 0.9, "value": 50},
        },
    }
    # Room for the title and the 0% / 100% ticks.
    return figure({"data": [dial], "layout": base_layout(None, 250, {"l": 40, "r": 40, "t": 60, "b": 10})})


def segment_summary(segment_ids: Sequence[int], template: str) -> str:
    """How many tokens each segment holds ([CLS] and the first [SEP] count to A): {a} and {b} of ``template``."""
    b = sum(1 for segment in segment_ids if segment)
    return template.format(a=len(segment_ids) - b, b=b)


def gauge_summary(probability: float, above: str, below: str) -> str:
    """The dial of ``is_next_gauge`` in words: ``above`` when it points at or past the 50% line (the model says
    B follows A), else ``below``; {p} in both."""
    return (above if probability >= 0.5 else below).format(p=probability)
