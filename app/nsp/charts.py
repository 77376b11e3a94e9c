"""The NSP lab's figures: P(IsNext) on a dial (a plotly indicator's gauge). The ``[CLS] A [SEP] B [SEP]`` input's
strip is ``app.core.segments``', which the fine-tuning lab's sentence pairs draw too."""

from __future__ import annotations

from app.core.charts import Chart, base_layout, chart
from app.core.palette import BLUE, PALE, VERMILLION

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


def gauge_summary(probability: float, above: str, below: str) -> str:
    """The dial of ``is_next_gauge`` in words: ``above`` when it points at or past the 50% line (the model says
    B follows A), else ``below``; {p} in both."""
    return (above if probability >= 0.5 else below).format(p=probability)
