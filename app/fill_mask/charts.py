"""Charts of the fill-mask page: the top-k guesses at one [MASK] as probability bars, the order in which
one-at-a-time filling wrote its tokens, and candidate sentences ranked by pseudo-log-likelihood.

Pure: predictions in, a ``Chart`` out. Predicted tokens come from the vocabulary, which a loaded checkpoint
folder can fill with anything: ECharts draws them as text, and tooltips insert them through templates, which
Streamlit escapes.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.charts import (
    SUMMARY_JOIN,
    Chart,
    base_option,
    category_axis,
    grid,
    probability_bars,
    quoted,
    ranked_summary,
    text_px,
    unique_labels,
    value_axis,
)
from app.core.palette import BLUE, GREEN, ORANGE, SKY
from model.inference import FillStep, PllResult, Prediction, TokenScore

BIDIRECTIONAL_COLOR = BLUE
CAUSAL_COLOR = ORANGE
ITERATIVE_COLOR = GREEN


def prediction_bars(
    predictions: Sequence[Prediction], *, title: str | None = None, causal: bool = False, iterative: bool = False
) -> Chart:
    """Most likely token at the top; the colour tells bidirectional (blue) from causal (orange) and from
    one-at-a-time filling (green)."""
    return probability_bars(
        [p.token for p in predictions],
        [p.prob for p in predictions],
        title=title,
        color=ITERATIVE_COLOR if iterative else CAUSAL_COLOR if causal else BIDIRECTIONAL_COLOR,
    )


# Neighbouring tokens of a sentence's bar alternate between these, so each token's share can be told apart.
TOKEN_COLORS = (BLUE, SKY)
TOKEN_TEXT = ("#FFFFFF", "#222222")  # the token written on its segment: light on the dark blue, dark on the sky


def fill_order_bars(steps: Sequence[FillStep], mask_numbers: dict[int, int], *, title: str, label: str) -> Chart:
    """One bar per round of one-at-a-time filling, the first round at the top: the token written and the
    probability it had when it was chosen. ``label`` is a template with {round}, {token} and {mask} (the
    mask's number, ``mask_numbers[position]``)."""
    labels = [
        label.format(round=n, token=step.chosen.token, mask=mask_numbers[step.index])
        for n, step in enumerate(steps, start=1)
    ]
    return probability_bars(labels, [step.chosen.prob for step in steps], title=title, color=ITERATIVE_COLOR)


PLL_BAR_PX = 40  # a sentence's bar and the gap to the next: room for a sentence wrapped on two lines
SENTENCE_LABEL_PX = 200  # a sentence longer than this wraps, leaving the bars most of a narrow chart
# The bars' width on a screen of middling width, against which a token is written on its segment only if it fits:
# ECharts writes a label past its bar's ends, over the next token's. Narrower, labels that then collide are hidden.
PLOT_PX = 480


def pll_bars(results: Sequence[PllResult], *, title: str, axis_title: str, hover: str) -> Chart:
    """Candidate sentences ranked by pseudo-log-likelihood, the most natural at the top.

    Each sentence is a bar of its tokens' surprises (-log p, in nats) laid end to end, so the whole bar is
    -PLL: a shorter bar is a sentence the model finds more natural, and a long segment is the token that
    costs it most. ``hover`` is a template with {token} and {log_prob} placeholders.

    Series ``j`` holds every sentence's ``j``-th token, an item ``[surprise, sentence, token, ln p]`` (no
    surprise where the sentence is shorter), stacked by sentence; a token too wide for its segment is left to the
    tooltip. A last series writes each total, the PLL, at the bar's end.
    """
    ranked = sorted(results, key=lambda r: r.pll, reverse=True)
    names = unique_labels([r.text for r in ranked])
    px_per_nat = PLOT_PX / (1.1 * max((-r.pll for r in ranked), default=0.0) or 1.0)  # the axis runs past

    def segment(name: str, score: TokenScore) -> dict:
        shown = -score.log_prob * px_per_nat >= text_px(score.token) + 6
        return {
            "value": [round(-score.log_prob, 4), name, score.token, round(score.log_prob, 3)],
            "label": {"show": shown},
        }

    series = []
    for j in range(max((len(r.tokens) for r in ranked), default=0)):
        items = [
            segment(name, r.tokens[j]) if j < len(r.tokens) else [None, name, "", None]
            for name, r in zip(names, ranked)
        ]
        series.append(
            {
                "type": "bar",
                "stack": "sentence",
                "data": items,
                "encode": {"x": 0, "y": 1},
                "itemStyle": {"color": TOKEN_COLORS[j % 2], "borderColor": "#FFFFFF", "borderWidth": 1},
                "label": {"show": True, "position": "inside", "formatter": "{@[2]}", "color": TOKEN_TEXT[j % 2]},
                "labelLayout": {"hideOverlap": True},
                "tooltip": {"formatter": hover.format(token="{@[2]}", log_prob="{@[3]}")},
                "barMaxWidth": 28,
            }
        )
    series.append(
        {
            "type": "scatter",
            "data": [[round(-r.pll, 4), name, f"{r.pll:.2f}"] for name, r in zip(names, ranked)],
            "encode": {"x": 0, "y": 1},
            "symbolSize": 0,
            "silent": True,
            "tooltip": {"show": False},
            "label": {"show": True, "position": "right", "formatter": "{@[2]}"},
            "labelLayout": {"hideOverlap": True},
        }
    )
    option = base_option() | {
        "grid": grid(top=10, right=56, bottom=36),
        "xAxis": value_axis(name=axis_title, min=0),
        "yAxis": category_axis(names, inverse=True)
        | {"axisLabel": {"interval": 0, "width": SENTENCE_LABEL_PX, "overflow": "break"}},
        "tooltip": {"confine": True, "trigger": "item"},
        "series": series,
    }
    return Chart(option, 80 + PLL_BAR_PX * len(ranked), title)


def fill_order_summary(steps: Sequence[FillStep], template: str) -> str:
    """The tokens one-at-a-time filling wrote, in the order it wrote them, as ``{items}`` of ``template``."""
    return template.format(items=SUMMARY_JOIN.join(f"{quoted(s.chosen.token)} {s.chosen.prob:.1%}" for s in steps))


def pll_summary(results: Sequence[PllResult], template: str) -> str:
    """The most and the least natural candidate sentence and their PLL: {best}, {best_score}, {worst},
    {worst_score} of ``template``."""
    ranked = sorted(results, key=lambda r: r.pll, reverse=True)
    return template.format(
        best=ranked[0].text, best_score=ranked[0].pll, worst=ranked[-1].text, worst_score=ranked[-1].pll
    )


def predictions_summary(predictions: Sequence[Prediction], template: str) -> str:
    """The top guesses of ``prediction_bars`` in words, as ``{items}`` of ``template``."""
    return ranked_summary([p.token for p in predictions], [p.prob for p in predictions], template)
