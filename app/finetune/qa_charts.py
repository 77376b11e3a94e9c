"""Charts of the fine-tuning lab's question answering: where the reader thinks the answer starts and ends, the
answer in its passage, how the runs and the readers without a model score, and what the question attends to.

Pure: lists and arrays in, a ``Chart`` (or, for the passage, HTML) out. Tokens and passages are the reader's own
text: escaped for plotly (``plotly_text``) and by ``app.core.markup``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.charts import (
    BAR_PX,
    BOTTOM_ROOM,
    Chart,
    axis_labels,
    base_layout,
    category_axis,
    chart,
    heatmap,
    left_margin,
    plotly_text,
    quoted,
    unique_labels,
    value_axis,
)
from app.core.markup import figure, text
from app.core.numbers import percent
from app.core.palette import BLUE, LIGHT, ORANGE

ROW_PX = 150  # each of the two rows of bars


def start_end_rows(
    tokens: Sequence[str],
    start_probs: Sequence[float],
    end_probs: Sequence[float],
    *,
    row_names: tuple[str, str],
    chosen: tuple[int, int],
    title: str | None = None,
) -> Chart:
    """Two rows of bars over the passage's tokens, the start probability above and the end probability below (in
    percent); the chosen answer's start and end bars are drawn dark, the others light."""
    if not len(tokens) == len(start_probs) == len(end_probs):
        raise ValueError(f"{len(tokens)} tokens but {len(start_probs)} and {len(end_probs)} probabilities")
    names = axis_labels(tokens)
    traces = []
    for row, (name, probs, mark, colour) in enumerate(
        ((row_names[0], start_probs, chosen[0], BLUE), (row_names[1], end_probs, chosen[1], ORANGE))
    ):
        percents = np.round(100 * np.asarray(probs, dtype=np.float64), 1)
        traces.append(
            {
                "type": "bar",
                "name": plotly_text(name),
                "x": names,
                "y": percents,
                "xaxis": "x",
                "yaxis": "y" if row == 0 else "y2",
                "marker": {"color": [colour if i == mark else LIGHT[colour] for i in range(len(names))]},
                "hovertemplate": f"{plotly_text(name)} · %{{x}}: %{{y:.1f}}%<extra></extra>",
                "showlegend": False,
            }
        )
    crowded = len(names) > 40
    layout = base_layout(2 * ROW_PX + BOTTOM_ROOM + 70, {"l": left_margin(["100%"]) + 30, "b": BOTTOM_ROOM + 40})
    # The tokens label the lower row's axis; the upper row's bars stand over the same tokens.
    layout["xaxis"] = category_axis(names, every=not crowded, tickangle=0 if len(names) <= 24 else -60, anchor="y2")
    layout["yaxis"] = value_axis(percent=True, title=plotly_text(row_names[0]), domain=[0.56, 1.0], rangemode="tozero")
    layout["yaxis2"] = value_axis(percent=True, title=plotly_text(row_names[1]), domain=[0.0, 0.44], rangemode="tozero")
    layout["yaxis2"]["anchor"] = "x"
    return chart(traces, layout, title)


def answer_in_passage(passage: str, start: int, end: int, title: str | None = None) -> str:
    """The passage as text with the answer's characters ``[start, end)`` marked."""
    body = f"{text(passage[:start])}<mark>{text(passage[start:end])}</mark>{text(passage[end:])}"
    return figure(title, f'<p class="passage">{body}</p>')


def score_bars(
    names: Sequence[str],
    exact: Sequence[float],
    f1: Sequence[float],
    *,
    metric_names: tuple[str, str],
    title: str | None = None,
) -> Chart:
    """Horizontal bars, a pair per reader (the fine-tuned runs first, then the readers without a model): exact
    match and F1 in percent, each ending in its value."""
    readers = unique_labels(names)
    bars = [
        {
            "type": "bar",
            "orientation": "h",
            "name": plotly_text(metric),
            "y": readers,
            "x": [round(100 * float(v), 1) for v in values],
            "marker": {"color": colour},
            "text": [percent(float(v), 1) for v in values],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertemplate": f"%{{y}} · {plotly_text(metric)}: %{{x:.1f}}%<extra></extra>",
        }
        for metric, values, colour in ((metric_names[0], exact, BLUE), (metric_names[1], f1, LIGHT[BLUE]))
    ]
    layout = base_layout(
        60 + 2 * BAR_PX * len(readers) + BOTTOM_ROOM,
        {"t": 36, "l": left_margin(readers), "b": BOTTOM_ROOM, "r": 56},
        barmode="group",
        bargap=0.3,
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yref": "container", "yanchor": "top"},
    )
    layout["yaxis"] = category_axis(readers, autorange="reversed")
    layout["xaxis"] = value_axis(percent=True, range=[0, 100])
    return chart(bars, layout, title)


def question_attention(matrix: np.ndarray, question: Sequence[str], passage: Sequence[str], *, title: str) -> Chart:
    """Rows: the question's tokens; columns: the passage's; cells: the attention weight (the last layer, heads
    averaged)."""
    return heatmap(matrix, passage, question, zmin=0.0, title=title, hover="%{y} → %{x}: %{z:.3f}<extra></extra>")


def spans_summary(spans: Sequence[tuple[str, float]], template: str, empty: str) -> str:
    """'Best answer “X” (p%); then “Y” (q%), “Z” (r%).' from (text, probability) pairs, best first."""
    if not spans:
        return empty
    rest = ", ".join(f"{quoted(t)} ({percent(p)})" for t, p in spans[1:])
    return template.format(best=quoted(spans[0][0]), p=spans[0][1], rest=rest or "—")


def scores_summary(names: Sequence[str], exact: Sequence[float], f1: Sequence[float], template: str) -> str:
    return "; ".join(template.format(name=n, em=e, f1=f) for n, e, f in zip(names, exact, f1)) + "."


def attention_summary(matrix: np.ndarray, question: Sequence[str], passage: Sequence[str], template: str) -> str:
    """Which passage token the question's tokens attend to most, taken together."""
    weights = np.asarray(matrix, dtype=np.float64).sum(axis=0)
    best = int(weights.argmax())
    return template.format(token=quoted(passage[best]), share=weights[best] / max(len(question), 1))


__all__ = [
    "answer_in_passage",
    "attention_summary",
    "question_attention",
    "score_bars",
    "scores_summary",
    "spans_summary",
    "start_end_rows",
]
