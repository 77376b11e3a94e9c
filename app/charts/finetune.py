"""Charts of the fine-tuning lab: live loss and accuracy curves, the confusion matrix, a tag strip for the
entity task, and what [CLS] attends to before and after fine-tuning.

Pure: lists and arrays in, ``go.Figure`` out. Tokens come from the user's own sentence, so they are escaped
for plotly, which renders a few HTML tags inside text (``base.plotly_text``; ``base.unique_labels`` escapes too).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .base import (
    SUMMARY_JOIN,
    base_layout,
    bottom_margin,
    figure,
    heatmap,
    horizontal_line,
    left_margin,
    plotly_text,
    quoted,
    rotated_bottom_margin,
    token_grid,
    two_panels,
    unique_labels,
)
from .palette import BLUE, GREEN, LIGHT, ORANGE, PURPLE, VERMILLION

RUN_COLOURS = {"pretrained": BLUE, "random": VERMILLION}
ENTITY_COLOURS = {kind: (colour, LIGHT[colour]) for kind, colour in (("PER", ORANGE), ("LOC", GREEN), ("ORG", PURPLE))}
OUTSIDE_COLOUR = "#F2F2F2"
SPECIAL_COLOUR = "#D9D9D9"


def smooth(values: Sequence[float], window: int = 5) -> list[float]:
    """Trailing running mean: per-batch loss and accuracy jump about; the trend is what the eye needs."""
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def training_curves(
    history: Sequence[Mapping],
    *,
    run_names: Mapping[str, str],
    loss_title: str,
    accuracy_title: str,
    step_title: str,
    title: str | None = None,
    window: int = 5,
    baselines: Mapping[str, float] | None = None,
    heldout: Mapping[str, float] | None = None,
    heldout_name: str = "{run}: held-out",
) -> go.Figure:
    """Loss (left) and batch accuracy (right) against the step, one colour per run (pre-trained, random):
    raw values faint, their running mean solid, so two runs compare on one chart.

    On the accuracy side, ``baselines`` (name -> held-out accuracy, such as the majority class) are dashed
    horizontal lines, and ``heldout`` (init -> held-out accuracy of a finished run) a diamond at the run's
    last step, named by the ``heldout_name`` template: "did fine-tuning beat the baselines?" at a glance."""
    data, shapes, labels = [], [], []
    panel_axes = {1: {"xaxis": "x", "yaxis": "y"}, 2: {"xaxis": "x2", "yaxis": "y2"}}
    for init, name in run_names.items():
        steps = [h for h in history if h["init"] == init]
        if not steps:
            continue
        x = [h["step"] for h in steps]
        colour = RUN_COLOURS.get(init, "#333333")
        for col, metric in ((1, "loss"), (2, "accuracy")):
            y = [h[metric] for h in steps]
            data.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": y,
                    "mode": "lines",
                    "line": {"color": colour, "width": 1},
                    "opacity": 0.3,
                    "name": name,
                    "legendgroup": init,
                    "showlegend": False,
                    "hoverinfo": "skip",
                }
                | panel_axes[col]
            )
            data.append(
                {
                    "type": "scatter",
                    "x": x,
                    "y": smooth(y, window),
                    "mode": "lines+markers",
                    "line": {"color": colour, "width": 3},
                    "marker": {"size": 4},
                    "name": name,
                    "legendgroup": init,
                    "showlegend": col == 1,
                    "hovertemplate": f"{plotly_text(name)} · %{{x}}: %{{y:.3f}}<extra></extra>",
                }
                | panel_axes[col]
            )
    for init, accuracy in (heldout or {}).items():
        steps = [h["step"] for h in history if h["init"] == init]
        name = heldout_name.format(run=run_names.get(init, init))
        data.append(
            {
                "type": "scatter",
                "x": [max(steps, default=0)],
                "y": [accuracy],
                "mode": "markers",
                "marker": {
                    "symbol": "diamond",
                    "size": 13,
                    "color": RUN_COLOURS.get(init, "#333333"),
                    "line": {"color": "white", "width": 1},
                },
                "name": plotly_text(name),
                "hovertemplate": f"{plotly_text(name)}: %{{y:.1%}}<extra></extra>",
            }
            | panel_axes[2]
        )
    for name, accuracy in (baselines or {}).items():
        shape, label = horizontal_line(
            accuracy,
            {"dash": "dash", "color": "#777777", "width": 1.5},
            {"text": plotly_text(f"{name} {accuracy:.0%}"), "font": {"size": 11, "color": "#555555"}},
            panel="2",
        )
        shapes.append(shape)
        labels.append(label)
    # The x axis spans the whole run from the start, so a live chart grows across it instead of rescaling.
    last_step = max([h.get("total_steps", h["step"]) for h in history] + [1])
    steps_axis = {
        "title": {"text": step_title},
        "range": [0, last_step * 1.02],
        "dtick": max(1, math.ceil(last_step / 8)),
    }
    panels = two_panels((loss_title, accuracy_title))
    margin = {"l": left_margin(["100%"]), "b": bottom_margin(title=True, legends=1)}
    layout = (
        titled(base_layout(title, 400, margin))
        | panels
        | {
            "annotations": panels["annotations"] + labels,
            "shapes": shapes,
            "legend": {"orientation": "h", "y": -0.2, "yanchor": "top"},
        }
    )
    layout["xaxis"] |= steps_axis
    layout["xaxis2"] |= steps_axis
    layout["yaxis2"] |= {"range": [0, 1.02], "tickformat": ".0%"}
    return figure({"data": data, "layout": layout})


def titled(layout: dict) -> dict:
    """Room above the plot, so the title clears the subplot titles and the legend."""
    title = {"title": layout["title"] | {"y": 0.98, "yanchor": "top"}} if "title" in layout else {}
    return layout | title | {"margin": layout["margin"] | {"t": 90}}


def confusion_heatmap(
    shares: np.ndarray,
    counts: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    true_title: str,
    predicted_title: str,
    title: str | None = None,
) -> go.Figure:
    """Rows are the true labels, columns the predictions; colour is the row's share, the number is the count."""
    fig = heatmap(
        shares,
        labels,
        labels,
        title=title,
        zmin=0,
        zmax=1,
        hover="%{y} → %{x}: %{customdata} (%{z:.0%})<extra></extra>",
    )
    fig.update_traces(
        customdata=np.asarray(counts), text=np.asarray(counts), texttemplate="%{text}", colorbar={"tickformat": ".0%"}
    )
    fig.update_xaxes(title_text=predicted_title, tickangle=0 if len(labels) <= 5 else -45)
    fig.update_yaxes(title_text=true_title)
    return fig.update_layout(margin_l=left_margin(fig.data[0].y, title=True))  # the row labels, and their title


def tag_code(tag: str, special: bool) -> int:
    """Colour code of a tagged token: 0 special, 1 outside, then B-/I- of PER, LOC, ORG (unknown types as O)."""
    if special:
        return 0
    kinds = list(ENTITY_COLOURS)
    prefix, _, kind = tag.partition("-")
    if prefix in ("B", "I") and kind in ENTITY_COLOURS:
        return 2 + 2 * kinds.index(kind) + (prefix == "I")
    return 1


def tag_strip(
    tokens: Sequence[str],
    tags: Sequence[str],
    probs: Sequence[float],
    special: Sequence[bool],
    *,
    title: str | None = None,
    per_row: int = 12,
) -> go.Figure:
    """The sentence as a grid of token cells, read left to right, coloured by predicted entity tag
    (grey where the tokenizer flags [CLS] and [SEP])."""
    if not len(tokens) == len(tags) == len(probs) == len(special):
        raise ValueError(f"{len(tokens)} tokens, {len(tags)} tags, {len(probs)} probabilities, {len(special)} flags")
    colours = [SPECIAL_COLOUR, OUTSIDE_COLOUR] + [c for pair in ENTITY_COLOURS.values() for c in pair]
    codes = [tag_code(tag, flag) for tag, flag in zip(tags, special)]
    captions = ["" if code == 0 else tag for tag, code in zip(tags, codes)]
    hovers = [f"{i} · {token} · {tag} {p:.0%}" for i, (token, tag, p) in enumerate(zip(tokens, tags, probs))]
    legend = [(kind, strong) for kind, (strong, _) in ENTITY_COLOURS.items()]
    return token_grid(tokens, captions, hovers, codes, colours, legend, title=title, per_row=per_row)


def cls_attention_bars(
    tokens: Sequence[str],
    before: Sequence[float],
    after: Sequence[float],
    *,
    before_name: str,
    after_name: str,
    title: str | None = None,
) -> go.Figure:
    """Grouped bars over the tokens: how much [CLS] attends to each, before and after fine-tuning."""
    if not len(tokens) == len(before) == len(after):
        raise ValueError(f"{len(tokens)} tokens but {len(before)} and {len(after)} attention weights")
    x = unique_labels(tokens)  # escaped there
    data = [
        {
            "type": "bar",
            "x": x,
            "y": list(values),
            "name": name,
            "marker": {"color": colour},
            "hovertemplate": f"{plotly_text(name)} · %{{x}}: %{{y:.1%}}<extra></extra>",
        }
        for values, name, colour in ((before, before_name, LIGHT[BLUE]), (after, after_name, ORANGE))
    ]
    layout = titled(base_layout(title, 380, {"l": left_margin(["100%"]), "b": rotated_bottom_margin(x)})) | {
        "xaxis": {"type": "category", "tickangle": -45},
        "yaxis": {"tickformat": ".0%", "rangemode": "tozero"},
        "barmode": "group",
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom"},
    }
    return figure({"data": data, "layout": layout})


def layer_change_bars(
    changes: Mapping[str, Mapping[str, float]],
    *,
    part_names: Sequence[str],
    run_names: Mapping[str, str],
    axis_title: str,
    title: str | None = None,
) -> go.Figure:
    """Bars per encoder part, bottom to top (one group per run): how far fine-tuning moved its weights,
    ``‖ΔW‖ / ‖W‖``. ``part_names`` label ``changes``' keys, in their order."""
    data = [
        {
            "type": "bar",
            "x": list(part_names),
            "y": list(values.values()),
            "name": run_names[run],
            "marker": {"color": RUN_COLOURS.get(run, BLUE)},
            "hovertemplate": f"{plotly_text(run_names[run])} · %{{x}}: %{{y:.2%}}<extra></extra>",
        }
        for run, values in changes.items()
    ]
    margin = {"l": left_margin(["10.0%"], title=True), "b": bottom_margin()}
    layout = titled(base_layout(title, 340, margin)) | {
        "xaxis": {"type": "category"},
        "yaxis": {"title": {"text": axis_title}, "tickformat": ".1%", "rangemode": "tozero"},
        "barmode": "group",
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom"},
    }
    return figure({"data": data, "layout": layout})


def confusion_summary(counts: Sequence[Sequence[int]], labels: Sequence[str], template: str, none: str) -> str:
    """The share of right answers of ``confusion_heatmap`` and its commonest mistake: {accuracy}, {true},
    {predicted}, {n} of ``template``; ``none`` (with {accuracy}) when it made no mistake."""
    counts = np.asarray(counts, dtype=np.int64)
    accuracy = float(np.trace(counts) / max(1, counts.sum()))
    wrong = counts.copy()
    np.fill_diagonal(wrong, 0)
    if not wrong.any():
        return none.format(accuracy=accuracy)
    true, predicted = np.unravel_index(int(np.argmax(wrong)), wrong.shape)
    return template.format(
        accuracy=accuracy, true=labels[true], predicted=labels[predicted], n=int(wrong[true, predicted])
    )


def cls_attention_summary(tokens: Sequence[str], before: Sequence[float], after: Sequence[float], template: str) -> str:
    """The token [CLS] attends to most in ``cls_attention_bars``, before and after fine-tuning: {before_token},
    {before}, {after_token}, {after} of ``template``."""
    b, a = int(np.argmax(before)), int(np.argmax(after))
    return template.format(
        before_token=tokens[b], before=float(before[b]), after_token=tokens[a], after=float(after[a])
    )


def layer_change_summary(changes: Mapping[str, float], part_names: Sequence[str], template: str) -> str:
    """The encoder part of ``layer_change_bars`` that fine-tuning moved most: {part}, {value} of ``template``."""
    values = list(changes.values())
    top = int(np.argmax(values))
    return template.format(part=part_names[top], value=float(values[top]))


def curves_summary(
    history: Sequence[Mapping],
    run_names: Mapping[str, str],
    template: str,
    heldout: Mapping[str, float] | None = None,
    heldout_template: str = "",
    window: int = 5,
) -> str:
    """Where each run of ``training_curves`` got to: the running mean of batch accuracy (the solid line) at its
    first and last step, {run}, {steps}, {first}, {last} of ``template``; a finished run adds its held-out
    accuracy, {value} of ``heldout_template``."""
    parts = []
    for init, name in run_names.items():
        steps = [h for h in history if h["init"] == init]
        if not steps:
            continue
        accuracy = smooth([h["accuracy"] for h in steps], window)
        part = template.format(run=name, steps=steps[-1]["step"], first=accuracy[0], last=accuracy[-1])
        if heldout and init in heldout:
            part += heldout_template.format(value=heldout[init])
        parts.append(part)
    return SUMMARY_JOIN.join(parts)


def tags_summary(
    tokens: Sequence[str], tags: Sequence[str], special: Sequence[bool], template: str, none: str, *, count: int = 6
) -> str:
    """The entities of ``tag_strip``: each run of tokens tagged B-X then I-X, joined as one name with its type,
    as {items} of ``template`` (at most ``count``); ``none`` when no token is tagged."""
    entities: list[tuple[list[str], str]] = []
    for token, tag, flag in zip(tokens, tags, special):
        prefix, _, kind = tag.partition("-")
        if flag or prefix not in ("B", "I"):
            continue
        if prefix == "I" and entities and entities[-1][1] == kind:
            entities[-1][0].append(token)
        else:
            entities.append(([token], kind))
    if not entities:
        return none
    items = SUMMARY_JOIN.join(f"{quoted(join_pieces(pieces))} {kind}" for pieces, kind in entities[:count])
    return template.format(items=items)


def join_pieces(pieces: Sequence[str]) -> str:
    """WordPiece tokens back to text: ``##`` continues a word, Chinese characters join without spaces."""
    text = ""
    for piece in pieces:
        if piece.startswith("##"):
            text += piece[2:]
        elif text and (piece.isascii() and text[-1].isascii()):
            text += " " + piece
        else:
            text += piece
    return text
