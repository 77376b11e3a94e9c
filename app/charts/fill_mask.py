"""Charts of the fill-mask page: the top-k guesses at one [MASK] as probability bars, the order in which
one-at-a-time filling wrote its tokens, and candidate sentences ranked by pseudo-log-likelihood.

Pure: predictions in, ``go.Figure`` out. Predicted tokens come from the vocabulary, which a loaded
checkpoint folder can fill with anything, so they are escaped for plotly like user text.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from model.inference import FillStep, PllResult, Prediction

from .base import SUMMARY_JOIN, plotly_text, probability_bars, quoted, ranked_summary, style, unique_labels
from .palette import BLUE, GREEN, ORANGE, SKY

BIDIRECTIONAL_COLOR = BLUE
CAUSAL_COLOR = ORANGE
ITERATIVE_COLOR = GREEN


def prediction_bars(
    predictions: Sequence[Prediction], *, title: str | None = None, causal: bool = False, iterative: bool = False
) -> go.Figure:
    """Most likely token at the top; the colour tells bidirectional (blue) from causal (orange) and from
    one-at-a-time filling (green)."""
    return probability_bars(
        [p.token for p in predictions],  # probability_bars escapes its labels
        [p.prob for p in predictions],
        title=plotly_text(title) if title else None,
        color=ITERATIVE_COLOR if iterative else CAUSAL_COLOR if causal else BIDIRECTIONAL_COLOR,
    )


# Neighbouring tokens of a sentence's bar alternate between these, so each token's share can be told apart.
TOKEN_COLORS = (BLUE, SKY)


def fill_order_bars(steps: Sequence[FillStep], mask_numbers: dict[int, int], *, title: str, label: str) -> go.Figure:
    """One bar per round of one-at-a-time filling, the first round at the top: the token written and the
    probability it had when it was chosen. ``label`` is a template with {round}, {token} and {mask} (the
    mask's number, ``mask_numbers[position]``)."""
    labels = [
        label.format(round=n, token=step.chosen.token, mask=mask_numbers[step.index])
        for n, step in enumerate(steps, start=1)
    ]
    return probability_bars(
        labels, [step.chosen.prob for step in steps], title=plotly_text(title), color=ITERATIVE_COLOR
    )


def pll_bars(results: Sequence[PllResult], *, title: str, axis_title: str, hover: str) -> go.Figure:
    """Candidate sentences ranked by pseudo-log-likelihood, the most natural at the top.

    Each sentence is a bar of its tokens' surprises (-log p, in nats) laid end to end, so the whole bar is
    -PLL: a shorter bar is a sentence the model finds more natural, and a long segment is the token that
    costs it most. ``hover`` is a template with {token} and {log_prob} placeholders for plotly's %{...}.
    """
    ranked = sorted(results, key=lambda r: r.pll, reverse=True)
    names = unique_labels([r.text for r in ranked])
    fig = go.Figure()
    for j in range(max((len(r.tokens) for r in ranked), default=0)):
        rows = [(name, r.tokens[j]) for name, r in zip(names, ranked) if j < len(r.tokens)]
        fig.add_trace(
            go.Bar(
                x=[-score.log_prob for _, score in rows],
                y=[name for name, _ in rows],
                orientation="h",
                marker_color=TOKEN_COLORS[j % 2],
                marker_line={"color": "white", "width": 1},
                text=[plotly_text(score.token) for _, score in rows],
                textposition="inside",
                insidetextanchor="middle",
                customdata=[[plotly_text(score.token), score.log_prob] for _, score in rows],
                hovertemplate=hover.format(token="%{customdata[0]}", log_prob="%{customdata[1]:.3f}")
                + "<extra></extra>",
                showlegend=False,
            )
        )
    for name, r in zip(names, ranked):  # the total at the end of each bar
        fig.add_annotation(x=-r.pll, y=name, text=f"{r.pll:.2f}", showarrow=False, xanchor="left", xshift=4)
    fig.update_layout(barmode="stack")
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(title=plotly_text(axis_title), rangemode="tozero")
    return style(fig, plotly_text(title), 120 + 40 * len(ranked))


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
