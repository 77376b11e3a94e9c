"""The NSP lab's figures: the ``[CLS] A [SEP] B [SEP]`` input as token boxes coloured by segment (HTML,
``app.core.markup``), and P(IsNext) on a dial (an ECharts gauge)."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.charts import Chart, base_option
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
DIAL_WIDTH = 28  # pixels of the coloured band
# The decision line: a dark stop this share of the dial wide either side of 50%, about 3 pixels at 800 px.
LINE_HALF_WIDTH = 0.004
CLEAR = "rgba(0,0,0,0)"  # the second dial's band, but for its line


def is_next_gauge(probability: float, *, title: str) -> Chart:
    """P(IsNext) on a 0–100% half dial: a blue bar up to the probability, over a band that is pale vermillion below
    the 50% decision line and pale blue above it; the line itself is dark across the band and the bar."""
    percent = round(100 * float(probability), 1)
    dial = {
        "type": "gauge",
        "startAngle": 180,
        "endAngle": 0,
        "min": 0,
        "max": 100,
        # A percentage of half the chart's smaller side, its height: at 140% a half dial fills the height and is
        # 266 px wide, so it fits a phone's column (about 330 px) too.
        "center": ["50%", "88%"],
        "radius": "140%",
        "pointer": {"show": False},
        "axisTick": {"show": False},
        "title": {"show": False},
    }
    band = {"width": DIAL_WIDTH}
    bar = dial | {
        "name": title,
        "splitNumber": 4,  # 0, 25, 50, 75, 100: the decision line gets a label
        "axisLine": {"lineStyle": band | {"color": [[0.5, PALE[VERMILLION]], [1, PALE[BLUE]]]}},
        "progress": {"show": True, "width": DIAL_WIDTH // 2, "itemStyle": {"color": BLUE}},
        "splitLine": {"distance": 4, "length": 6, "lineStyle": {"color": "#999999"}},
        "axisLabel": {"distance": DIAL_WIDTH + 8, "formatter": "{value}%", "color": "#555555"},
        # The number as the page writes it ("12.0%"): a template would drop the decimal of a whole number.
        "detail": {"formatter": f"{percent:.1f}%", "offsetCenter": [0, "-12%"], "fontSize": 26, "color": "#222222"},
        "data": [{"value": percent, "name": title}],
        "tooltip": {"formatter": "{b}: {c}%"},
    }
    # A second dial, drawn over the first, so that the line crosses the bar too.
    line = dial | {
        "axisLine": {
            "lineStyle": band
            | {"color": [[0.5 - LINE_HALF_WIDTH, CLEAR], [0.5 + LINE_HALF_WIDTH, DECISION_LINE], [1, CLEAR]]}
        },
        "splitLine": {"show": False},
        "axisLabel": {"show": False},
        "detail": {"show": False},
        "data": [],
        "silent": True,
        "tooltip": {"show": False},
    }
    return Chart(base_option() | {"series": [bar, line]}, 190, title)


def segment_summary(segment_ids: Sequence[int], template: str) -> str:
    """How many tokens each segment holds ([CLS] and the first [SEP] count to A): {a} and {b} of ``template``."""
    b = sum(1 for segment in segment_ids if segment)
    return template.format(a=len(segment_ids) - b, b=b)


def gauge_summary(probability: float, above: str, below: str) -> str:
    """The dial of ``is_next_gauge`` in words: ``above`` when it points at or past the 50% line (the model says
    B follows A), else ``below``; {p} in both."""
    return (above if probability >= 0.5 else below).format(p=probability)
