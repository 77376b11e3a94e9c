"""The overview page's figures and tables: the paradigm diagram, parameter counts by part, the paper's results.

Devlin et al. 2019 (BERT): section 3 and figure 1 (pre-training, then fine-tuning), section 3 (BERT-Base and
BERT-Large), the abstract and section 4 (results).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from model.modeling import BertConfig, count_parameters

from .base import SUMMARY_JOIN, base_layout, bottom_margin, figure, label_px, left_margin
from .palette import BLUE, ORANGE, PALE, SKY, VERMILLION

# Task key, previous best, BERT-Large, on the test sets, from Devlin et al. 2019: the abstract gives BERT's score
# and its absolute gain for GLUE (80.5, +7.7), SQuAD 1.1 F1 (93.2, +1.5) and SQuAD 2.0 F1 (83.1, +5.1);
# section 4.4 gives SWAG (86.3, +8.3 over OpenAI GPT). The previous best is BERT's score less its gain.
SOURCE_RESULTS = (
    ("glue", 72.8, 80.5),
    ("squad1", 91.7, 93.2),
    ("squad2", 78.0, 83.1),
    ("swag", 78.0, 86.3),
)

PARTS = ("embeddings", "encoder", "pooler", "heads")
PART_COLOURS = {"embeddings": SKY, "encoder": BLUE, "pooler": ORANGE, "heads": VERMILLION}


def parameters_by_part(config: BertConfig) -> dict[str, int]:
    """``count_parameters`` folded into the four parts a reader recognises; the MLM and NSP heads go together."""
    counts = count_parameters(config)
    return {
        "embeddings": counts["embeddings"],
        "encoder": counts["encoder"],
        "pooler": counts["pooler"],
        "heads": counts["mlm_head"] + counts["nsp_head"],
        "total": counts["total"],
    }


def size_table(configs: Sequence[BertConfig]) -> dict[str, list[int]]:
    """Rows of the sizes table (the shape of each model, then its parameters by part), one column per config."""
    shapes = {
        "layers": [c.num_hidden_layers for c in configs],
        "hidden": [c.hidden_size for c in configs],
        "attention_heads": [c.num_attention_heads for c in configs],
        "ffn": [c.intermediate_size for c in configs],
        "vocab": [c.vocab_size for c in configs],
    }
    counts = [parameters_by_part(c) for c in configs]
    return shapes | {part: [count[part] for count in counts] for part in (*PARTS, "total")}


def results_rows(results: Sequence[tuple[str, float, float]] = SOURCE_RESULTS) -> list[tuple[str, float, float, float]]:
    """Each task with its gain, rounded to the table's one decimal (so 86.5 - 80.2 reads 6.3, not 6.299999)."""
    return [(task, before, bert, round(bert - before, 1)) for task, before, bert in results]


def parameter_bars(
    models: Sequence[str], counts: Sequence[dict[str, int]], part_labels: dict[str, str], *, title: str, axis: str
) -> go.Figure:
    """Stacked horizontal bars, one per model, in millions of parameters."""
    data = [
        {
            "type": "bar",
            "name": part_labels[part],
            "y": list(models),
            "x": [c[part] / 1e6 for c in counts],
            "orientation": "h",
            "marker": {"color": PART_COLOURS[part]},
            "hovertemplate": "%{y}<br>" + part_labels[part] + ": %{x:.2f}M<extra></extra>",
        }
        for part in PARTS
    ]
    data.append(  # the total at each bar's end, without a legend entry
        {
            "type": "scatter",
            "y": list(models),
            "x": [c["total"] / 1e6 for c in counts],
            "mode": "text",
            "text": [f"{c['total'] / 1e6:.1f}M" for c in counts],
            "textposition": "middle right",
            "showlegend": False,
            "hoverinfo": "skip",
        }
    )
    margin = {"l": left_margin(models), "b": bottom_margin(title=True, legends=1)}
    layout = base_layout(title, 140 + 55 * len(models), margin) | {
        "barmode": "stack",
        "legend": {"orientation": "h", "y": -0.25, "traceorder": "normal"},
        "xaxis": {"title": {"text": axis}, "range": [0, max(c["total"] for c in counts) / 1e6 * 1.15]},
        "yaxis": {"autorange": "reversed", "type": "category"},
    }
    return figure({"data": data, "layout": layout})


def results_bars(
    tasks: Sequence[str],
    before: Sequence[float],
    bert: Sequence[float],
    *,
    before_label: str,
    bert_label: str,
    title: str,
    axis: str,
) -> go.Figure:
    """Grouped bars: the previous best beside BERT for each task."""
    data = [
        {
            "type": "bar",
            "name": name,
            "x": list(tasks),
            "y": list(scores),
            "marker": {"color": colour},
            "text": [str(score) for score in scores],  # as plotly's validation would write them
            "textposition": "outside",
        }
        for name, scores, colour in ((before_label, before, "#BBBBBB"), (bert_label, bert, BLUE))
    ]
    low = min(min(before), min(bert))
    margin = {"l": left_margin(["100"], title=True), "b": bottom_margin(legends=2)}
    layout = base_layout(title, 380, margin) | {
        # A zero baseline would hide 6-point gains between 80 and 93; the axis starts just below the lowest score.
        "yaxis": {"title": {"text": axis}, "range": [max(0.0, low - 10), 100]},
        "barmode": "group",
        "legend": {"orientation": "h", "y": -0.2},
    }
    return figure({"data": data, "layout": layout})


def _arrow(x: float, y: float, ax: float, ay: float, colour: str, size: float | None = None) -> dict:
    """An annotation that is only an arrow, from (ax, ay) to (x, y) in data coordinates."""
    return {
        "x": x,
        "y": y,
        "ax": ax,
        "ay": ay,
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "text": "",
        "showarrow": True,
        "arrowhead": 3,
        "arrowwidth": 2,
        "arrowcolor": colour,
    } | ({} if size is None else {"arrowsize": size})


# A step's box is 28% of the diagram's width: about 140 px on an 800 px screen with the sidebar open, where "General
# language representation" on one line ran over its box and into the next. Its words wrap to lines this wide.
BOX_LINE_PX = 120
BOX_TEXT_SCALE = 14 / 12  # the boxes' 14 px text against the 12 px labels that label_px estimates


def box_text(step: str) -> str:
    """``step`` in lines that fit a box, broken between words (a Chinese step, without spaces, stays whole)."""
    lines: list[str] = []
    for word in step.split():
        if lines and label_px([f"{lines[-1]} {word}"]) * BOX_TEXT_SCALE <= BOX_LINE_PX:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return "<br>".join(lines) or step


def paradigm_figure(
    pretrain_title: str,
    pretrain_steps: Sequence[str],
    pretrain_note: str,
    finetune_title: str,
    finetune_steps: Sequence[str],
    finetune_note: str,
) -> go.Figure:
    """Two rows of boxes joined by arrows: the big pre-training step above, the small fine-tuning step below.

    An elbow connector carries the last box of pre-training (the general representation) into the first of
    fine-tuning (general BERT), running through the gap between the rows so it crosses no label. Built in one go:
    adding each box and arrow to a figure re-validated it, most of the overview's run.
    """
    pretrain_y, pretrain_half, finetune_y, finetune_half, elbow_y = 3.4, 0.8, 1.0, 0.5, 2.3
    rows = (
        (pretrain_title, pretrain_steps, pretrain_note, pretrain_y, pretrain_half, PALE[BLUE], BLUE),
        (finetune_title, finetune_steps, finetune_note, finetune_y, finetune_half, PALE[ORANGE], ORANGE),
    )
    annotations, shapes, centres = [], [], {}
    for title, steps, note, y, half_height, fill, line in rows:
        # The pre-training labels sit above their row, the fine-tuning ones below, clear of the connector.
        label_y = y + half_height + 0.3 if y == pretrain_y else y - half_height - 0.3
        annotations.append(
            {"x": 0.1, "y": label_y, "text": f"<b>{title}</b>", "showarrow": False, "xanchor": "left"}
            | {"font": {"size": 15, "color": line}}
        )
        annotations.append(
            {"x": 9.9, "y": label_y, "text": note, "showarrow": False, "xanchor": "right"}
            | {"font": {"size": 13, "color": "#555"}}
        )
        centres[y] = [1.6 + 3.4 * i for i in range(len(steps))]
        for centre, step in zip(centres[y], steps):
            shapes.append(
                {"type": "rect", "x0": centre - 1.4, "x1": centre + 1.4, "y0": y - half_height, "y1": y + half_height}
                | {"fillcolor": fill, "line": {"color": line, "width": 2}}
            )
            annotations.append(
                {"x": centre, "y": y, "text": box_text(step), "showarrow": False, "font": {"size": 14, "color": "#222"}}
            )
        for left, right in zip(centres[y], centres[y][1:]):
            annotations.append(_arrow(right - 1.45, y, left + 1.45, y, line, size=1.2))
    last, first = centres[pretrain_y][-1], centres[finetune_y][0]
    shapes.append(
        {
            "type": "path",
            "path": f"M {last},{pretrain_y - pretrain_half} V {elbow_y} H {first}",
            "line": {"color": "#888", "width": 2},
        }
    )
    annotations.append(_arrow(first, finetune_y + finetune_half + 0.02, first, elbow_y, "#888"))
    layout = base_layout(None, 380) | {
        "annotations": annotations,
        "shapes": shapes,
        "xaxis": {"visible": False, "range": [0, 10]},
        "yaxis": {"visible": False, "range": [-0.1, 4.6]},
        "plot_bgcolor": "rgba(0,0,0,0)",
        "paper_bgcolor": "rgba(0,0,0,0)",
        "dragmode": False,
    }
    return figure({"data": [], "layout": layout})


def paradigm_summary(stages: Sequence[tuple[str, Sequence[str], str]], template: str) -> str:
    """The diagram of ``paradigm_figure`` read aloud, one stage after the other: {stage}, {steps} (joined by
    arrows) and {note} of ``template`` per (title, steps, note) stage."""
    return SUMMARY_JOIN.join(
        template.format(stage=title, steps=" → ".join(steps), note=note) for title, steps, note in stages
    )


def parameters_summary(models: Sequence[str], counts: Sequence[dict[str, int]], template: str) -> str:
    """The largest and the smallest model of ``parameter_bars`` and how much of the largest the encoder holds:
    {large}, {large_total}, {encoder_share}, {small}, {small_total}, {ratio} of ``template`` (totals in
    millions)."""
    totals = [c["total"] for c in counts]
    large = max(range(len(totals)), key=totals.__getitem__)
    small = min(range(len(totals)), key=totals.__getitem__)
    return template.format(
        large=models[large],
        large_total=totals[large] / 1e6,
        encoder_share=counts[large]["encoder"] / totals[large],
        small=models[small],
        small_total=totals[small] / 1e6,
        ratio=totals[large] / totals[small],
    )


def results_summary(tasks: Sequence[str], before: Sequence[float], bert: Sequence[float], template: str) -> str:
    """BERT's largest and smallest gain over the previous best in ``results_bars``: {top}, {top_before},
    {top_bert}, {top_gain}, {low}, {low_gain} of ``template`` (gains rounded as in ``results_rows``)."""
    gains = [round(b - a, 1) for a, b in zip(before, bert, strict=True)]
    top = max(range(len(gains)), key=gains.__getitem__)
    low = min(range(len(gains)), key=gains.__getitem__)
    return template.format(
        top=tasks[top],
        top_before=before[top],
        top_bert=bert[top],
        top_gain=gains[top],
        low=tasks[low],
        low_gain=gains[low],
    )
