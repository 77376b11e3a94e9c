"""The overview page's figures and tables: the paradigm diagram, parameter counts by part, the paper's results.

Devlin et al. 2019 (BERT): section 3 and figure 1 (pre-training, then fine-tuning), section 3 (BERT-Base and
BERT-Large), the abstract and section 4 (results).

The overview is the first page a student opens, and its three figures are static: they are drawn in HTML and CSS
(``st.html``, ``app.core.markup``), not as charts, so a new browser's first page loads no chart library (when
the charts were plotly's, this took a new browser's overview from 4.6-5.2 s to 2.7-3.0 s; ``bench/browser_latency.py``
measures it). The figures' text is the page's own: it wraps, scales with presenter mode and is read by screen
readers as text.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.charts import SUMMARY_JOIN
from app.core.markup import figure as _figure
from app.core.markup import legend as _legend
from app.core.markup import stages, stages_summary
from app.core.markup import text as _text
from app.core.palette import BLUE, ORANGE, SKY, VERMILLION
from model.modeling import BertConfig, count_parameters

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


GREY = "#BBBBBB"  # the previous best, beside BERT's blue
# Bars end short of the track, leaving room for the value written after the longest.
BAR_ROOM = 0.85


def _bar(parts: Sequence[tuple[float, str, str]], value: str) -> str:
    """One bar of ``parts`` (each its share of the track, colour and tooltip) end to end, then ``value``."""
    length = sum(share for share, _, _ in parts)
    segments = "".join(
        f'<i style="width:{share / (length or 1):.3%};background:{colour}" title="{_text(tip)}"></i>'
        for share, colour, tip in parts
    )
    return f'<div class="bar"><span style="width:{length:.3%}">{segments}</span>{_text(value)}</div>'


def _row(name: str, bars: str) -> str:
    """A row of a bar chart: its name, then its bars (two cells of the chart's grid)."""
    return f'<div class="name">{_text(name)}</div><div class="track">{bars}</div>'


def parameter_bars(
    models: Sequence[str], counts: Sequence[dict[str, int]], part_labels: dict[str, str], *, title: str
) -> str:
    """Stacked horizontal bars, one per model, in millions of parameters, each ending in its total."""
    scale = max(c["total"] for c in counts) / BAR_ROOM
    rows = []
    for model, count in zip(models, counts, strict=True):
        parts = [
            (count[part] / scale, PART_COLOURS[part], f"{model}: {part_labels[part]} {count[part] / 1e6:.2f}M")
            for part in PARTS
        ]
        rows.append(_row(model, _bar(parts, f"{count['total'] / 1e6:.1f}M")))
    legend = _legend([(part_labels[part], PART_COLOURS[part]) for part in PARTS])
    return _figure(title, f'<div class="bars">{"".join(rows)}</div>{legend}')


def results_bars(
    tasks: Sequence[str],
    before: Sequence[float],
    bert: Sequence[float],
    *,
    before_label: str,
    bert_label: str,
    title: str,
) -> str:
    """For each task, the previous best and BERT as two bars from zero, each ending in its score.

    From zero, not from just below the lowest score: a bar's length is its score, so a gain of 1.5 points looks
    as small as it is; each score is written at its bar's end.
    """
    rows = []
    for task, old, new in zip(tasks, before, bert, strict=True):
        bars = "".join(
            _bar([(score / 100 * BAR_ROOM, colour, f"{task}: {name} {score:.1f}")], f"{score:.1f}")
            for score, colour, name in ((old, GREY, before_label), (new, BLUE, bert_label))
        )
        rows.append(_row(task, bars))
    legend = _legend([(before_label, GREY), (bert_label, BLUE)])
    return _figure(title, f'<div class="bars">{"".join(rows)}</div>{legend}')


def paradigm_figure(
    pretrain_title: str,
    pretrain_steps: Sequence[str],
    pretrain_note: str,
    finetune_title: str,
    finetune_steps: Sequence[str],
    finetune_note: str,
) -> str:
    """Two rows of boxes joined by arrows: the big pre-training step above, the small fine-tuning step below, and
    an arrow that carries the pre-trained model from the one into the other."""
    return stages(
        [
            (pretrain_title, pretrain_steps, pretrain_note, BLUE),
            (finetune_title, finetune_steps, finetune_note, ORANGE),
        ],
        carry=True,
    )


def paradigm_summary(stages: Sequence[tuple[str, Sequence[str], str]], template: str) -> str:
    """The diagram of ``paradigm_figure`` read aloud, one stage after the other: {stage}, {steps} (joined by
    arrows) and {note} of ``template`` per (title, steps, note) stage."""
    return stages_summary(stages, template, SUMMARY_JOIN)


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
