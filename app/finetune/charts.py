"""Charts of the fine-tuning lab: live loss and accuracy curves, the confusion matrix, a tag strip for the
entity task, and what [CLS] attends to before and after fine-tuning.

Pure: lists and arrays in, a ``Chart`` out (the tag strip: HTML, a strip of token boxes that wraps like text).
Tokens come from the user's own sentence: escaped for plotly (``base.plotly_text``) and by ``app.core.markup``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from app.core.charts import (
    AXIS_TITLE_ROOM,
    BOTTOM_ROOM,
    BOTTOM_TITLE_ROOM,
    COLORBAR_ROOM,
    LEGEND_ROOM,
    NUMBERED_AXIS_FROM,
    SUMMARY_JOIN,
    Chart,
    axis_labels,
    base_layout,
    category_axis,
    chart,
    heatmap_spec,
    horizontal_line,
    left_margin,
    legend_below,
    plotly_text,
    quoted,
    rotated_bottom_margin,
    side_by_side,
    text_px,
    value_axis,
)
from app.core.markup import token_boxes
from app.core.numbers import percent
from app.core.palette import BASELINE, BLUE, GREEN, LIGHT, ORANGE, PALE, PURPLE, SEQUENTIAL, VERMILLION

RUN_COLOURS = {"pretrained": BLUE, "random": VERMILLION}
OTHER_RUN_COLOUR = "#333333"
# (B-, I-) of each kind: tints, as the tag strip writes dark text and its grey tag over them.
ENTITY_COLOURS = {kind: (LIGHT[c], PALE[c]) for kind, c in (("PER", ORANGE), ("LOC", GREEN), ("ORG", PURPLE))}
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


def steps_axis(last_step: int, name: str, index: int = 0) -> dict:
    """The step axis of panel ``index`` (0 or 1): from 0 to the first tick at or past ``last_step``, ticks a round
    number of steps apart (1, 2 or 5 times a power of ten), at most 8 of them."""
    power = 10 ** math.floor(math.log10(max(1.0, last_step / 8)))
    interval = next(power * m for m in (1, 2, 5, 10) if power * m * 8 >= last_step)
    return value_axis(
        title=name, range=[0, interval * math.ceil(last_step / interval)], dtick=interval, tick0=0, showgrid=True
    )


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
) -> Chart:
    """Loss (left) and batch accuracy in percent (right) against the step, one colour per run (pre-trained,
    random): raw values faint, their running mean solid, so two runs compare on one chart. The legend names runs;
    a run's curves share its legend group, so a click on its name hides them all.

    On the accuracy side, ``baselines`` (name -> held-out accuracy, such as the majority class) are dashed
    horizontal lines, and ``heldout`` (init -> held-out accuracy of a finished run) a diamond at the run's
    last step, named by the ``heldout_name`` template: "did fine-tuning beat the baselines?" at a glance.

    Redrawn every second while a run trains: plain lists (at most a few thousand points), built in one go."""
    curves, raw = run_traces(history, run_names, step_title, window)
    marks = heldout_marks(history, heldout or {}, run_names, heldout_name)
    slots = label_slots([100 * accuracy for accuracy in (baselines or {}).values()])
    lines = [
        horizontal_line(
            round(100 * accuracy, 2),
            f"{name} {percent(accuracy)}",
            colour=BASELINE,
            panel="2",
            label_x=1 - LABEL_SLOT_WIDTH * slot,
        )
        for (name, accuracy), slot in zip((baselines or {}).items(), slots)
    ]
    # The step axes span the whole run from the start, so a live chart grows across them instead of rescaling.
    last_step = max([h.get("total_steps", h["step"]) for h in history] + [1])
    panels = side_by_side((loss_title, accuracy_title))
    margin = {"t": 30, "l": left_margin(["0.25"]), "b": BOTTOM_ROOM + BOTTOM_TITLE_ROOM + LEGEND_ROOM}
    layout = base_layout(390, margin, legend=legend_below(), showlegend=True)
    layout |= {
        "xaxis": panels["xaxis"] | steps_axis(last_step, step_title, 0),
        "xaxis2": panels["xaxis2"] | steps_axis(last_step, step_title, 1),
        # Loss over its own range, so that its fall fills the panel; accuracy on the whole 0-100% scale.
        "yaxis": panels["yaxis"] | value_axis(),
        "yaxis2": panels["yaxis2"] | value_axis(percent=True, range=[0, 100]),
        "annotations": panels["annotations"] + [label for _, label in lines],
        "shapes": [shape for shape, _ in lines],
    }
    # Each run's running mean first: its legend entry stands for the run.
    return chart(curves + raw + marks, layout, title)


LABEL_GAP = 8  # percentage points: two baselines' labels closer than this would overlap on one line
LABEL_SLOT_WIDTH = 0.36  # of the panel's width: where the next label along ends, left of the first


def label_slots(values: Sequence[float]) -> list[int]:
    """For each line's label, its place along the panel (0: at the right end, 1: left of it, ...): the first place
    that no label of a line within ``LABEL_GAP`` takes, so that close baselines stay readable."""
    slots: list[int] = [0] * len(values)
    placed: list[int] = []
    for i in sorted(range(len(values)), key=lambda i: values[i]):
        taken = {slots[j] for j in placed if abs(values[j] - values[i]) < LABEL_GAP}
        slots[i] = next(k for k in range(len(values) + 1) if k not in taken)
        placed.append(i)
    return slots


def run_traces(
    history: Sequence[Mapping], run_names: Mapping[str, str], step_title: str, window: int
) -> tuple[list[dict], list[dict]]:
    """Each run's running means (``curves``) and raw values (``raw``), loss and accuracy, one colour per run."""
    curves, raw = [], []
    for init, name in run_names.items():
        steps = [h for h in history if h["init"] == init]
        if not steps:
            continue
        x = [h["step"] for h in steps]
        colour = RUN_COLOURS.get(init, OTHER_RUN_COLOUR)
        for panel, metric, scale, digits in (("", "loss", 1, 4), ("2", "accuracy", 100, 2)):
            y = [scale * h[metric] for h in steps]
            on_panel = {"name": plotly_text(name), "legendgroup": init, "xaxis": f"x{panel}", "yaxis": f"y{panel}"}
            raw.append(
                on_panel
                | {
                    "type": "scatter",
                    "mode": "lines",
                    "x": x,
                    "y": [round(v, digits) for v in y],
                    "line": {"color": LIGHT.get(colour, colour), "width": 1},
                    "showlegend": False,
                    "hoverinfo": "skip",
                }
            )
            unit = "%" if panel else ""
            curves.append(
                on_panel
                | {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "x": x,
                    "y": [round(v, digits) for v in smooth(y, window)],
                    "line": {"color": colour, "width": 3},
                    "marker": {"size": 4, "color": colour},
                    "showlegend": not panel,
                    "hovertemplate": f"{plotly_text(name)} · {plotly_text(step_title)} %{{x}}: %{{y}}{unit}"
                    "<extra></extra>",
                }
            )
    return curves, raw


def heldout_marks(
    history: Sequence[Mapping], heldout: Mapping[str, float], run_names: Mapping[str, str], heldout_name: str
) -> list[dict]:
    """A diamond per finished run at its last step, on the accuracy panel: its held-out accuracy."""
    marks = []
    for init, accuracy in heldout.items():
        last = max((h["step"] for h in history if h["init"] == init), default=0)
        name = plotly_text(heldout_name.format(run=run_names.get(init, init)))
        marks.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": name,
                "x": [last],
                "y": [round(100 * accuracy, 2)],
                "marker": {
                    "symbol": "diamond",
                    "size": 13,
                    "color": RUN_COLOURS.get(init, OTHER_RUN_COLOUR),
                    "line": {"color": "#FFFFFF", "width": 1},
                },
                "hovertemplate": f"{name}: %{{y}}%<extra></extra>",
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
    return marks


def confusion_heatmap(
    shares: np.ndarray,
    counts: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    true_title: str,
    predicted_title: str,
    title: str | None = None,
) -> Chart:
    """Rows are the true labels, columns the predictions; colour is the row's share (in percent), the number in
    each cell the count."""
    spec = heatmap_spec(
        100 * np.asarray(shares, dtype=np.float64),
        labels,
        labels,
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=100,
        hover="%{y} → %{x}: %{text} (%{z:.1f}%)<extra></extra>",
        height=max(270, 40 * len(labels) + 120),
    )
    [cells] = spec["data"]
    cells |= {
        "text": np.asarray(counts, dtype=np.int64),
        "texttemplate": "%{text}",
        "textfont": {"size": 13},
        "colorbar": cells["colorbar"] | {"ticksuffix": "%"},
    }
    layout = spec["layout"]
    names = cells["y"]
    upright = len(names) <= 5
    layout["xaxis"] |= {"title": {"text": plotly_text(predicted_title)}, "tickangle": 0 if upright else -45}
    layout["yaxis"] |= {"title": {"text": plotly_text(true_title)}}
    layout["margin"] |= {
        "l": left_margin(names, title=True),
        "b": (BOTTOM_ROOM if upright else rotated_bottom_margin(names)) + BOTTOM_TITLE_ROOM,
        "r": COLORBAR_ROOM,
    }
    layout["dragmode"] = False  # a few cells: nothing to zoom into
    return chart([cells], layout, title)


def tag_code(tag: str, special: bool) -> int:
    """Colour code of a tagged token: 0 special, 1 outside, then B-/I- of PER, LOC, ORG (unknown types as O)."""
    if special:
        return 0
    kinds = list(ENTITY_COLOURS)
    prefix, _, kind = tag.partition("-")
    if prefix in ("B", "I") and kind in ENTITY_COLOURS:
        return 2 + 2 * kinds.index(kind) + (prefix == "I")
    return 1


TAG_COLOURS = [SPECIAL_COLOUR, OUTSIDE_COLOUR] + [c for pair in ENTITY_COLOURS.values() for c in pair]


def tag_strip(
    tokens: Sequence[str],
    tags: Sequence[str],
    probs: Sequence[float],
    special: Sequence[bool],
    *,
    title: str | None = None,
) -> str:
    """The sentence as a strip of token boxes (HTML) that wraps like text, each box coloured by its predicted
    entity tag (B- darker, I- paler) with the tag below the token; grey where the tokenizer flags [CLS] and
    [SEP]. A box's tooltip gives its position, tag and probability."""
    if not len(tokens) == len(tags) == len(probs) == len(special):
        raise ValueError(f"{len(tokens)} tokens, {len(tags)} tags, {len(probs)} probabilities, {len(special)} flags")
    codes = [tag_code(tag, flag) for tag, flag in zip(tags, special)]
    lines = [[token, "" if code == 0 else tag] for token, tag, code in zip(tokens, tags, codes)]
    hovers = [f"{i} · {token} · {tag} {percent(p)}" for i, (token, tag, p) in enumerate(zip(tokens, tags, probs))]
    legend = [(kind, start) for kind, (start, _) in ENTITY_COLOURS.items()]
    return token_boxes(lines, [TAG_COLOURS[code] for code in codes], hovers=hovers, legend_entries=legend, title=title)


# The width a row of upright category labels may take: a chart's plot on an 800 px screen beside the sidebar.
UPRIGHT_LABELS_PX = 440


def grouped_bars(
    names: Sequence[str], groups: Sequence[tuple[str, Sequence[float], str]], *, digits: int, title: str | None = None
) -> tuple[dict, list[dict], int]:
    """The category axis, the bar traces and the bottom margin of a grouped bar chart: one trace per group (name,
    values in percent, colour). The labels (escaped) stand upright while a row of them fits (a sentence of Chinese
    characters does), and are turned otherwise; past ``NUMBERED_AXIS_FROM`` they carry positions, and plotly
    shows every n-th."""
    crowded = len(names) >= NUMBERED_AXIS_FROM
    upright = sum(text_px(name) + 12 for name in names) <= UPRIGHT_LABELS_PX
    x = category_axis(names, title=title, every=not crowded, tickangle=0 if upright else -45)
    bars = [
        {
            "type": "bar",
            "name": plotly_text(name),
            "x": list(names),
            "y": [round(float(v), digits) for v in values],
            "marker": {"color": colour},
            "hovertemplate": f"{plotly_text(name)} · %{{x}}: %{{y}}%<extra></extra>",
        }
        for name, values, colour in groups
    ]
    bottom = (BOTTOM_ROOM if upright else rotated_bottom_margin(names)) + (BOTTOM_TITLE_ROOM if title else 0)
    return x, bars, bottom


def cls_attention_bars(
    tokens: Sequence[str],
    before: Sequence[float],
    after: Sequence[float],
    *,
    before_name: str,
    after_name: str,
    title: str | None = None,
) -> Chart:
    """Grouped bars over the tokens: how much [CLS] attends to each (in percent), before and after fine-tuning.
    The hover names the token and both weights."""
    if not len(tokens) == len(before) == len(after):
        raise ValueError(f"{len(tokens)} tokens but {len(before)} and {len(after)} attention weights")
    x, bars, bottom = grouped_bars(
        axis_labels(tokens),
        [
            (before_name, [100 * float(v) for v in before], LIGHT[BLUE]),
            (after_name, [100 * float(v) for v in after], ORANGE),
        ],
        digits=2,
    )
    layout = base_layout(
        370,
        {"t": 36, "l": left_margin(["100%"]), "b": bottom, "r": 24},
        barmode="group",
        hovermode="x unified",
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yref": "container", "yanchor": "top"},
        xaxis=x,
        yaxis=value_axis(percent=True, rangemode="tozero"),
    )
    for bar in bars:
        bar["hovertemplate"] = f"{bar['name']}: %{{y}}%<extra></extra>"
    return chart(bars, layout, title)


def layer_change_bars(
    changes: Mapping[str, Mapping[str, float]],
    *,
    part_names: Sequence[str],
    run_names: Mapping[str, str],
    axis_title: str,
    title: str | None = None,
) -> Chart:
    """Bars per encoder part, bottom to top (one group per run): how far fine-tuning moved its weights,
    ``‖ΔW‖ / ‖W‖``, in percent. ``part_names`` label ``changes``' keys, in their order. A legend only to tell
    several runs apart."""
    x, bars, bottom = grouped_bars(
        [plotly_text(name) for name in part_names],
        [
            (run_names[run], [100 * float(v) for v in values.values()], RUN_COLOURS.get(run, BLUE))
            for run, values in changes.items()
        ],
        digits=3,
    )
    several = len(bars) > 1
    layout = base_layout(
        310 + (LEGEND_ROOM if several else 0),
        {"t": 10 + (LEGEND_ROOM if several else 0), "l": left_margin(["10%"]) + AXIS_TITLE_ROOM, "b": bottom, "r": 24},
        barmode="group",
        showlegend=several,
        xaxis=x,
        yaxis=value_axis(title=axis_title, percent=True, rangemode="tozero"),
    )
    if several:
        layout["legend"] = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yref": "container"}
        layout["legend"]["yanchor"] = "top"
    return chart(bars, layout, title)


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
