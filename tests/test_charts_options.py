"""Every chart builder, on awkward input (HTML-like and repeated tokens), makes a plotly figure that plotly's own
validation accepts and would make the same (the builders skip it: ``app.core.charts.figure``), with everything the
reader typed escaped, or a figure of text with everything escaped. ``BUILDERS`` is also the gallery of every
chart."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from app.attention import charts as attention_charts
from app.classroom import charts as classroom_charts
from app.core import charts as base
from app.core import live_charts as pretrain_live_charts
from app.core import markup, segments, shared_charts
from app.core.attention_stats import STATISTICS
from app.core.charts import Chart
from app.core.shared_charts import prediction_bars
from app.embeddings import charts as embedding_charts
from app.fill_mask.charts import fill_order_bars, pll_bars
from app.finetune import charts as finetune_charts
from app.heads import charts as heads_charts
from app.layers import charts as layers_charts
from app.masking import charts as masking_charts
from app.nsp import charts as nsp_charts
from model.results import FillStep, PllResult, Prediction, TokenScore

TOKENS = ["[CLS]", "<b>bank</b>", "&amp;", "bank", "[SEP]"]  # HTML-like and repeated tokens, as users type them
RNG = np.random.default_rng(0)
MAP = RNG.random((len(TOKENS), len(TOKENS)))
STATS = {name: RNG.random((3, 4)) for name in STATISTICS}
TITLES = {name: f"title {name}" for name in STATISTICS}

LIVE_RUNS = {"bert": "BERT", "random": "<i>random</i>"}
LIVE_RECORDS = {
    run: [
        {"steps": step, "mlm_loss": 5 - step / 10, "nsp_loss": 0.7, "heldout_top1": step / 20}
        | {"frequency_baseline_top1": 0.04, "kept_top1": 0.9, "random_top1": 0.1}
        for step in range(1, 5)
    ]
    for run in LIVE_RUNS
}

BUILDERS = {
    "heatmap": lambda: base.heatmap(MAP, TOKENS, TOKENS, title="<b>map</b>"),
    "probability_bars": lambda: base.probability_bars(TOKENS, RNG.dirichlet(np.ones(5)), title="p"),
    "token_boxes": lambda: markup.token_boxes(
        [[token, str(i)] for i, token in enumerate(TOKENS)],
        ["#EEEEEE"] * 5,
        hovers=TOKENS,
        legend_entries=[("<i>", "#EEEEEE")],
    ),
    "change_grid": lambda: attention_charts.change_grid(MAP[:3, :4], title="c", selected=(1, 2), selected_label="x"),
    "fill_order_bars": lambda: fill_order_bars(
        [FillStep(2, Prediction("<b>", 7, 0.4), []), FillStep(1, Prediction("bank", 3, 0.9), [])],
        {1: 1, 2: 2},
        title="order",
        label="{round}. {token} at mask {mask}",
    ),
    "pll_bars": lambda: pll_bars(
        [
            PllResult("<b>a</b> bank", -3.5, [TokenScore("<b>", -1.0), TokenScore("bank", -2.5)], False),
            PllResult("a river", -1.5, [TokenScore("a", -0.5), TokenScore("river", -1.0)], False),
        ],
        title="t",
        axis_title="-PLL",
        hover="{token}: {log_prob}",
    ),
    "guess_bars": lambda: classroom_charts.guess_bars(
        [("<b>river</b>", 5), ("bank", 3), ("bank ", 1)], {"bank"}, title="t", axis_title="n", others_label="others"
    ),
    "accuracy_by_layer": lambda: layers_charts.accuracy_by_layer(
        {"pretrained": [0.5, 0.8], "random": [0.4, 0.4], "control": [0.3, 0.3]},
        {k: k for k in layers_charts.COLOURS},
        selectivity=[0.1, 0.2],
        expected_layer=1,
        expected_label="<i>expected</i>",
        majority=0.3,
        majority_label="majority",
        layer_title="l",
        accuracy_title="a",
        title="t",
    ),
    "geometry_by_layer": lambda: layers_charts.geometry_by_layer(
        {"anisotropy_pretrained": [0.1, 0.3], "anisotropy_random": [0.2, 0.2]},
        {"anisotropy_pretrained": "<b>pre</b>", "anisotropy_random": "random"},
        layer_title="l",
        value_title="v",
        title="t",
    ),
    "pca_panels": lambda: layers_charts.pca_panels(
        RNG.standard_normal((3, 6, 2)),
        RNG.random((3, 2)),
        ["NOUN", "VERB", "<b>", "NOUN", "X", "VERB"],
        ["a <b>bank</b>", "b", "c", "d", "e", "f"],
        panel_title="layer {layer} ({share:.0%})",
        other_label="other",
        title="t",
    ),
    "pca_3d": lambda: layers_charts.pca_3d(
        RNG.standard_normal((6, 3)),
        ["NOUN", "VERB", "<b>", "NOUN", "X", "VERB"],
        ["a <b>bank</b>", "b", "c", "d", "e", "f"],
        explained=[0.5, 0.2, 0.1],
        axis_title="PC{k} ({share:.0%})",
        other_label="other",
        title="t",
    ),
    "tag_strip": lambda: finetune_charts.tag_strip(
        TOKENS, ["O", "B-PER", "I-LOC", "O", "O"], [0.9] * 5, [True, False, False, False, True], title="tags"
    ),
    "convergence_chart": lambda: masking_charts.convergence_chart(
        [1, 10, 100], [("<i>masked</i>", [0.1, 0.14, 0.15], 0.15, "#0072B2")], title="t", x_title="x", y_title="y"
    ),
    "prediction_bars": lambda: prediction_bars(
        [Prediction("river", 3, 0.5), Prediction("<i>", 4, 0.25)], title="BERT", causal=True
    ),
    "paired_maps": lambda: shared_charts.paired_maps(MAP, MAP.T, TOKENS, titles=("BERT", "GPT"))[1],
    "before_after_maps": lambda: attention_charts.before_after_maps(MAP, MAP, TOKENS, titles=("a", "b"))[0],
    "statistics_grid": lambda: shared_charts.statistics_grid(STATS, TITLES, selected=(1, 2), selected_label="x"),
    "statistics_grid_plain": lambda: shared_charts.statistics_grid(STATS, TITLES),
    "part_heatmap": lambda: embedding_charts.part_heatmap(MAP, TOKENS, 3, title="parts"),
    "token_vectors": lambda: embedding_charts.token_vectors(
        {name: RNG.standard_normal(8) for name in ("token", "segment", "position", "sum", "normalized")},
        RNG.standard_normal(8),
        6,
        labels={name: f"<b>{name}</b>" for name in ("token", "segment", "position", "sum", "normalized")},
        recomposed_label="token + segment + position",
        titles=("parts", "after LayerNorm"),
    ),
    "norm_bars": lambda: embedding_charts.norm_bars({"token": 1.5, "sum": 2.0}, {"token": "t", "sum": "s"}, title="n"),
    "position_similarity": lambda: embedding_charts.position_similarity(MAP, title="positions", axis_label="p"),
    "segment_strip": lambda: segments.segment_strip(
        TOKENS, [0, 0, 0, 1, 1], [True, False, False, False, True], segment_labels=("A", "B"), position_label="pos"
    ),
    "token_strip": lambda: masking_charts.token_strip(
        [TOKENS, ["[CLS]", "[MASK]", "&amp;", "bank", "[SEP]"]],
        [0, 1, 2, 0, 0],
        ["original", "read"],
        {0: "kept", 1: "<i>masked</i>", 2: "random"},
        graded=[False, True, True, False, False],
        title="strip",
    ),
    "is_next_gauge": lambda: nsp_charts.is_next_gauge(0.73, title="P(IsNext)"),
    "layer_profile": lambda: heads_charts.layer_profile(
        {"cls": [0.1, 0.5], "sep": [0.3, 0.2]}, {"cls": "[CLS]", "sep": "[SEP]"}, title="t", axis=("layer", "share")
    ),
    "thumbnails": lambda: heads_charts.thumbnails(
        RNG.random((2, 3, 4, 4)),
        np.array([["vertical", "diagonal", "block"], ["heterogeneous", "vertical+diagonal", "block"]]),
        {kind: f"<i>{kind}</i>" for kind in heads_charts.PATTERN_COLOURS},
        title="heads",
        axis=("layer", "head"),
    ),
    "pattern_counts": lambda: heads_charts.pattern_counts(
        {"vertical": [1, 2], "block": [2, 1]}, {"vertical": "v", "block": "b"}, title="t", axis=("layer", "heads")
    ),
    "head_grid": lambda: heads_charts.head_grid(
        RNG.random((2, 3)), [(0, 1)], title="t", value_name="importance", removed_name="removed", axis=("l", "h")
    ),
    "pruning_curve": lambda: heads_charts.pruning_curve(
        [0, 0.5, 1], [0.9, 0.5, 0.1], [0.9, 0.8, 0.2], ("important first", "random"), title="t", axis=("f", "a")
    ),
    "compared_bars": lambda: heads_charts.compared_bars(
        [("river", 0.5, 0.2), ("<b>", 0.1, 0.3)], ("all heads", "without"), title="t"
    ),
    "token_views": lambda: heads_charts.token_views(
        TOKENS, {"attention": RNG.random(5), "gradient": RNG.random(5)}, {"attention": "a", "gradient": "g"}, title="t"
    ),
    "training_curves": lambda: finetune_charts.training_curves(
        [
            {"init": init, "step": step, "loss": 1 / step, "accuracy": 0.5 + step / 50, "total_steps": 20}
            for init in ("pretrained", "random")
            for step in range(1, 6)
        ],
        run_names={"pretrained": "pre-trained", "random": "<b>random</b>"},
        loss_title="loss",
        accuracy_title="accuracy",
        step_title="step",
        title="fine-tuning",
        baselines={"majority": 0.5},
        heldout={"pretrained": 0.8},
    ),
    "cls_attention_bars": lambda: finetune_charts.cls_attention_bars(
        TOKENS, RNG.random(5), RNG.random(5), before_name="before", after_name="after", title="t"
    ),
    "layer_change_bars": lambda: finetune_charts.layer_change_bars(
        {"pretrained": {"embeddings": 0.01, "layer 0": 0.02}},
        part_names=["embeddings", "layer 0"],
        run_names={"pretrained": "pre-trained"},
        axis_title="change",
        title="t",
    ),
    "loss_curves": lambda: pretrain_live_charts.loss_curves(
        LIVE_RECORDS, run_names=LIVE_RUNS, mlm_title="MLM", nsp_title="NSP", step_title="step"
    ),
    "accuracy_curves": lambda: pretrain_live_charts.accuracy_curves(
        LIVE_RECORDS, run_names=LIVE_RUNS, baseline_name="word frequency", accuracy_title="top-1", step_title="step"
    ),
    "target_kind_bars": lambda: pretrain_live_charts.target_kind_bars(
        {run: rows[-1] for run, rows in LIVE_RECORDS.items()},
        run_names=LIVE_RUNS,
        kind_names={"masked": "[MASK]", "kept": "kept", "random": "random"},
        accuracy_title="top-1",
        title="t",
    ),
    "confusion_heatmap": lambda: finetune_charts.confusion_heatmap(
        np.eye(2), [[3, 0], [1, 4]], ["neg", "pos"], true_title="true", predicted_title="predicted", title="t"
    ),
}


# What plotly draws here; a misspelt type would fail validation.
TRACE_TYPES = {"heatmap", "bar", "scatter", "scatter3d", "indicator"}
USER_TEXT = ("<b>bank</b>", "<i>", "<i>random</i>", "<i>masked</i>", "<b>random</b>", "<b>pre</b>", "<i>expected</i>")


def axes(layout: dict) -> list[dict]:
    """Every 2-D axis of a layout, panels' included."""
    return [value for key, value in layout.items() if key.startswith(("xaxis", "yaxis"))]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_builder_makes_a_figure_plotly_validation_accepts_or_escaped_html(name):
    made = BUILDERS[name]()
    if isinstance(made, str):  # a figure of text (app.core.markup): whatever the reader typed is escaped
        assert not any(text in made for text in USER_TEXT), made
        assert "&lt;" in made
        return
    # The figure alone: a chart's title is text above it (``app.core.ui.plot``), so one bar's chart is 83 px high.
    assert isinstance(made, Chart) and isinstance(made.height, int) and 60 <= made.height <= 4000
    assert made.title is None or "\n" not in made.title
    spec = json.loads(plotly.io.to_json(made.figure, validate=False))  # JSON-compatible
    layout = spec["layout"]
    assert layout["height"] == made.height and layout["template"] == {}
    assert layout["font"]["family"] == base.FONT  # CJK fonts first
    assert "transition" not in layout and "frames" not in spec  # nothing animates
    for trace in spec["data"]:
        assert trace["type"] in TRACE_TYPES, trace["type"]
    for axis in axes(layout):
        if axis.get("type") == "category":
            assert len(set(axis["categoryarray"])) == len(axis["categoryarray"])  # equal labels would merge
    for trace in spec["data"]:
        for key in ("x", "y"):
            if trace.get("type") in ("bar", "heatmap") and isinstance(trace.get(key), list):
                labels = [v for v in trace[key] if isinstance(v, str)]
                assert len(set(labels)) == len(labels), labels
    # Plotly renders a few tags and entities: user text arrives escaped, never as markup.
    text = json.dumps(spec, ensure_ascii=False)
    assert not any(typed in text for typed in USER_TEXT), name
    assert "&amp;lt;" not in text  # escaped once, not twice (the typed "&amp;" is rightly "&amp;amp;")
    # Plotly's validation accepts every property and value, and makes the same figure of them.
    validated = json.loads(plotly.io.to_json(go.Figure(spec), validate=False))
    validated["layout"].pop("template")  # the empty template, as validation writes it
    spec["layout"].pop("template")
    assert validated == spec


def test_the_escaped_user_text_is_in_the_figures():
    """The check above finds no raw markup; this one, that the text itself is there, escaped."""
    for name in ("heatmap", "pll_bars", "guess_bars", "pca_panels", "loss_curves", "training_curves"):
        text = json.dumps(json.loads(BUILDERS[name]().figure.to_json()), ensure_ascii=False)
        assert "&lt;" in text, name
