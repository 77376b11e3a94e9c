"""Charts of the fill-mask page: the top-k guesses at one [MASK] as probability bars, the order in which
one-at-a-time filling wrote its tokens, and candidate sentences ranked by pseudo-log-likelihood.

Pure: predictions in, a ``Chart`` out. Predicted tokens come from the vocabulary, which a loaded checkpoint
folder can fill with anything: escaped for plotly like any user text.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.charts import (
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    SUMMARY_JOIN,
    Chart,
    base_layout,
    category_axis,
    chart,
    heatmap,
    left_margin,
    plotly_text,
    probability_bars,
    quoted,
    unique_labels,
    value_axis,
    wrapped,
)
from app.core.counting import counted
from app.core.numbers import percent
from app.core.palette import BLUE, SKY
from app.core.shared_charts import ITERATIVE_COLOR
from model.analysis.tracing import TraceResult
from model.results import FillStep, LogitLensResult, PllResult

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
SENTENCE_LABEL_PX = 200  # a sentence wider than this wraps, leaving the bars most of a narrow chart


def pll_bars(results: Sequence[PllResult], *, title: str, axis_title: str, hover: str) -> Chart:
    """Candidate sentences ranked by pseudo-log-likelihood, the most natural at the top.

    Each sentence is a bar of its tokens' surprises (-log p, in nats) laid end to end, so the whole bar is
    -PLL: a shorter bar is a sentence the model finds more natural, and a long segment is the token that
    costs it most. ``hover`` is a template with {token} and {log_prob} placeholders.

    Trace ``j`` holds every sentence's ``j``-th token (no bar where the sentence is shorter; its token and ln p in
    ``customdata``), stacked; a token too wide for its segment is left to the hover (``uniformtext``). A last
    trace writes each total, the PLL, at the bar's end.
    """
    ranked = sorted(results, key=lambda r: r.pll, reverse=True)
    names = unique_labels([r.text for r in ranked])
    labels = [wrapped(r.text, SENTENCE_LABEL_PX) for r in ranked]
    data = []
    for j in range(max((len(r.tokens) for r in ranked), default=0)):
        scores = [r.tokens[j] if j < len(r.tokens) else None for r in ranked]
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "x": [None if score is None else round(-score.log_prob, 4) for score in scores],
                "y": names,
                "marker": {"color": TOKEN_COLORS[j % 2], "line": {"color": "#FFFFFF", "width": 1}},
                "text": ["" if score is None else plotly_text(score.token) for score in scores],
                "textposition": "inside",
                "insidetextanchor": "middle",
                "insidetextfont": {"color": TOKEN_TEXT[j % 2]},
                "customdata": [
                    ["", None] if score is None else [plotly_text(score.token), round(score.log_prob, 3)]
                    for score in scores
                ],
                "hovertemplate": hover.format(token="%{customdata[0]}", log_prob="%{customdata[1]:.3f}")
                + "<extra></extra>",
                "showlegend": False,
            }
        )
    data.append(
        {
            "type": "scatter",
            "mode": "text",
            "x": [round(-r.pll, 4) for r in ranked],
            "y": names,
            "text": [f"{r.pll:.2f}" for r in ranked],
            "textposition": "middle right",
            "cliponaxis": False,
            "hoverinfo": "skip",
            "showlegend": False,
        }
    )
    layout = base_layout(
        80 + PLL_BAR_PX * len(ranked),
        {
            "l": left_margin([line for label in labels for line in label.split("<br>")]),
            "r": 56,
            "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM,
        },
        barmode="stack",
        bargap=0.3,
        uniformtext={"mode": "hide", "minsize": 10},
        yaxis=category_axis(
            names, every=False, autorange="reversed", tickmode="array", tickvals=names, ticktext=labels
        ),
        xaxis=value_axis(title=axis_title, rangemode="tozero"),
    )
    return chart(data, layout, title)


def fill_order_summary(steps: Sequence[FillStep], template: str) -> str:
    """The tokens one-at-a-time filling wrote, in the order it wrote them, as ``{items}`` of ``template``."""
    return template.format(
        items=SUMMARY_JOIN.join(f"{quoted(s.chosen.token)} {percent(s.chosen.prob, 1)}" for s in steps)
    )


def pll_summary(results: Sequence[PllResult], template: str) -> str:
    """The most and the least natural candidate sentence and their PLL: {best}, {best_score}, {worst},
    {worst_score} of ``template``."""
    ranked = sorted(results, key=lambda r: r.pll, reverse=True)
    return template.format(
        best=ranked[0].text, best_score=ranked[0].pll, worst=ranked[-1].text, worst_score=ranked[-1].pll
    )


def lens_bars(lens: LogitLensResult, *, title: str, embeddings_label: str, layer_label: str) -> Chart:
    """One bar per layer, the embeddings at the top: the final answer's probability when the MLM head reads the
    [MASK] there, each bar named by that layer's own top guess (``{token}``; ``layer_label`` also takes
    ``{depth}``, the number of layers read: hidden state k is the k-th layer's output, so it is counted already)."""
    labels = [
        (embeddings_label if depth == 0 else layer_label).format(depth=depth, token=top[0].token)
        for depth, top in enumerate(lens.layers)
    ]
    return probability_bars(labels, lens.answer_probs, title=title)


def lens_summary(lens: LogitLensResult, template: str) -> str:
    """{answer}, its probability after the embeddings ({start}) and after the last layer ({end}), and the first
    layer at which it ranks first ({first})."""
    return template.format(
        answer=quoted(lens.answer.token),
        start=percent(lens.answer_probs[0], 1),
        end=percent(lens.answer_probs[-1], 1),
        first=lens.first_top,
    )


def trace_map(grid, tokens: Sequence[str], *, title: str, layer_label: str, zmax: float) -> Chart:
    """Layers (rows, the first at the top) by tokens: the answer's probability with that piece put back."""
    layers = [layer_label.format(depth=counted(depth)) for depth in range(len(grid))]
    return heatmap(
        grid, list(tokens), layers, title=title, zmin=0.0, zmax=zmax, hover="%{y} · %{x}: %{z:.3f}<extra></extra>"
    )


def trace_summary(trace: TraceResult, kind: str, template: str) -> str:
    """Where, apart from the [MASK] itself (whose last layers hold the answer read out), putting back one piece
    brings back the most ({layer}, {token}, {prob})."""
    depth, position = trace.strongest(kind)
    prob = trace.restored[kind][depth, position]
    return template.format(layer=counted(depth), token=quoted(trace.tokens[position]), prob=f"{prob:.3f}")
