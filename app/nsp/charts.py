"""The NSP lab's figures: the ``[CLS] A [SEP] B [SEP]`` input as token boxes coloured by segment (HTML,
``app.core.markup``), and P(IsNext) on a dial (a plotly indicator's gauge)."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.charts import Chart, base_layout, chart
from app.core.markup import token_boxes
from app.core.palette import BLUE, LIGHT, ORANGE, PALE, VERMILLION

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
) -> str:
    """The input as a row of token boxes in reading order, wrapping like text, coloured by segment (HTML)."""
    codes = cell_codes(segment_ids, special)
    # Token on top, its position below: the three numbers BERT adds up are token, segment, position.
    hovers = [
        f"{position_label} {i} · {token} · {segment_labels[int(segment)]}"
        for i, (token, segment) in enumerate(zip(tokens, segment_ids))
    ]
    return token_boxes(
        [[token, str(i)] for i, token in enumerate(tokens)],
        [CELL_COLOURS[code] for code in codes],
        hovers=hovers,
        legend_entries=list(zip(segment_labels, LEGEND_COLOURS)),
        title=title,
    )


DECISION_LINE = "#333333"
GAUGE_HEIGHT = 190  # a half dial that fits a phone's column as well as a wide one


def is_next_gauge(probability: float, *, title: str) -> Chart:
    """P(IsNext) on a 0–100% half dial: a blue bar up to the probability, over a band that is pale vermillion below
    the 50% decision line and pale blue above it; the line itself is dark across the band and the bar. The number
    as the page writes it ("12.0%"). ``title`` is the chart's, above it."""
    percent = round(100 * float(probability), 1)
    dial = {
        "type": "indicator",
        "mode": "gauge+number",
        "value": percent,
        "number": {"suffix": "%", "valueformat": ".1f", "font": {"size": 26, "color": "#222222"}},
        "gauge": {
            "shape": "angular",
            "axis": {"range": [0, 100], "ticksuffix": "%", "tickvals": [0, 25, 50, 75, 100]},
            "bar": {"color": BLUE, "thickness": 0.5},
            "bgcolor": "#FFFFFF",
            "borderwidth": 0,
            "steps": [{"range": [0, 50], "color": PALE[VERMILLION]}, {"range": [50, 100], "color": PALE[BLUE]}],
            "threshold": {"line": {"color": DECISION_LINE, "width": 3}, "thickness": 1, "value": 50},
        },
        "domain": {"x": [0, 1], "y": [0, 1]},
    }
    # Room for the 0% and 100% ticks beside the dial and the 50% above it.
    return chart([dial], base_layout(GAUGE_HEIGHT, {"l": 30, "r": 30, "t": 24, "b": 10}), title)


def segment_summary(segment_ids: Sequence[int], template: str) -> str:
    """How many tokens each segment holds ([CLS] and the first [SEP] count to A): {a} and {b} of ``template``."""
    b = sum(1 for segment in segment_ids if segment)
    return template.format(a=len(segment_ids) - b, b=b)


def gauge_summary(probability: float, above: str, below: str) -> str:
    """The dial of ``is_next_gauge`` in words: ``above`` when it points at or past the 50% line (the model says
    B follows A), else ``below``; {p} in both."""
    return (above if probability >= 0.5 else below).format(p=probability)
