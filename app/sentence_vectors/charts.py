"""Charts of the sentence-vectors page: arrays and already translated strings in, a ``Chart`` (plotly) out.

* ``pooling_bars``: per way of making a sentence vector, retrieval recall@1 en → zh on the held-out pool (left)
  and the mean cosine of random pairs of pool sentences (right, the anisotropy of the layers lab).
* ``recall_curve``: recall@1 and @5 against the training step of a contrastive run, from the mean-pooling start.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.charts import (
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    LEGEND_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    horizontal_line,
    left_margin,
    legend_below,
    line,
    plotly_text,
    side_by_side,
    value_axis,
)
from app.core.numbers import percent as share
from app.core.palette import BLUE, ORANGE, SKY, VERMILLION


def _bars(
    name: str, labels: Sequence[str], values: Sequence[float | None], colour: str, panel: str, *, percent: bool, **extra
) -> dict:
    """One series of bars: shares drawn in percent (``percent``), or cosines as they are."""
    shown = [None if v is None else round((100 if percent else 1) * float(v), 1 if percent else 3) for v in values]
    value = "%{y:.1f}%" if percent else "%{y:.3f}"
    return {
        "type": "bar",
        "name": plotly_text(name),
        "x": [plotly_text(label) for label in labels],
        "y": shown,
        "marker": {"color": colour},
        "text": ["" if v is None else (share(float(v)) if percent else f"{float(v):.2f}") for v in values],
        "textposition": "outside",
        "cliponaxis": False,
        "hovertemplate": f"{plotly_text(name)} · %{{x}}: {value}<extra></extra>",
        "xaxis": f"x{panel}",
        "yaxis": f"y{panel}",
    } | extra


def pooling_bars(
    labels: Sequence[str],
    recall: Sequence[float | None],
    cosine_en: Sequence[float | None],
    cosine_zh: Sequence[float | None],
    *,
    recall_title: str,
    cosine_title: str,
    recall_name: str,
    en_name: str,
    zh_name: str,
    title: str | None = None,
) -> Chart:
    """Left: recall@1 per way (labels); right: mean random-pair cosine per way, English and Chinese side by side.
    None leaves a bar out (MiniLM has no Chinese). Recall is a share (0-1), drawn in percent; cosines as they are."""
    panels = side_by_side((recall_title, cosine_title))
    data = [
        _bars(recall_name, labels, recall, BLUE, "", percent=True, showlegend=False),
        _bars(en_name, labels, cosine_en, ORANGE, "2", percent=False),
        _bars(zh_name, labels, cosine_zh, SKY, "2", percent=False),
    ]
    axis = category_axis([plotly_text(label) for label in labels])
    margin = {"t": 30, "l": left_margin(["100%"]), "b": BOTTOM_ROOM + LEGEND_ROOM}
    layout = base_layout(330, margin, barmode="group", legend=legend_below())
    layout |= {
        "xaxis": panels["xaxis"] | axis,
        "xaxis2": panels["xaxis2"] | axis,
        "yaxis": panels["yaxis"] | value_axis(percent=True, range=[0, 110]),
        "yaxis2": panels["yaxis2"] | value_axis(range=[0, 1.1]),
        "annotations": panels["annotations"],
    }
    return chart(data, layout, title)


def pooling_summary(
    labels: Sequence[str], recall: Sequence[float | None], cosine: Sequence[float | None], template: str
):
    """The chart in words: each way's recall@1 and its random-pair cosine (``template`` has {items})."""
    items = SUMMARY_JOIN.join(
        f"{label}: {share(r)} / {c:.2f}"
        for label, r, c in zip(labels, recall, cosine, strict=True)
        if r is not None and c is not None
    )
    return template.format(items=items)


def recall_curve(
    steps: Sequence[int],
    recall_1: Sequence[float],
    recall_5: Sequence[float],
    *,
    cls_recall: float | None,
    names: tuple[str, str],
    cls_label: str,
    step_title: str,
    budget_steps: int | None = None,
    title: str | None = None,
) -> Chart:
    """Recall@1 and @5 (shares) against the step; a dashed line at the raw [CLS] vector's recall@1 for scale."""
    data = []
    for name, values, colour in ((names[0], recall_1, VERMILLION), (names[1], recall_5, BLUE)):
        hover = f"{plotly_text(name)} · {plotly_text(step_title)} %{{x}}: %{{y:.1f}}%<extra></extra>"
        data.append(line(name, steps, [round(100 * v, 1) for v in values], colour, hover, marker_size=6))
    shapes, annotations = [], []
    if cls_recall is not None:
        shape, label = horizontal_line(100 * cls_recall, cls_label)
        shapes.append(shape)
        annotations.append(label)
    margin = {"t": 10, "l": left_margin(["100%"]), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + LEGEND_ROOM}
    lines = {"shapes": shapes, "annotations": annotations} if shapes else {}  # plotly drops empty lists
    layout = base_layout(320, margin, legend=legend_below(), **lines)
    top = max(steps, default=0)
    layout |= {
        "xaxis": value_axis(title=step_title, range=[0, max(top, budget_steps or 0, 1) * 1.02]),
        "yaxis": value_axis(percent=True, range=[0, 100]),
    }
    return chart(data, layout, title)


def recall_summary(recall_1: Sequence[float], steps: Sequence[int], template: str) -> str:
    """From where to where recall@1 went, and in how many steps (``template``: {start}, {end}, {steps})."""
    if not recall_1:
        return ""
    return template.format(start=recall_1[0], end=recall_1[-1], steps=steps[-1])
