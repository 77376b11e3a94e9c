"""Every chart draws with the colour-blind-safe palette of ``app.charts.palette``: checked in the source (no colour
literal or colour-scale name outside the palette) and in the figures the builders return."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import plotly.colors
import pytest

from app.charts import attention, embeddings, fill_mask, finetune, heads, layers, masking, nsp, overview, palette
from model.inference import Prediction
from model.modeling import BertConfig

ROOT = Path(__file__).resolve().parents[1]
# A hex colour, not the "##" of a wordpiece ("##aff").
HEX = re.compile(r"(?<![#\w])#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})\b")
NAMED_SCALE = re.compile(r"colorscale[\"']?\s*[=:]\s*[\"']([A-Za-z_]+)[\"']")
# bertviz's head view tells its heads apart by colour, and no colour-blind-safe set has 12 or 16 distinct colours;
# its head numbers are written beside the colours.
EXEMPT = {ROOT / "app" / "charts" / "palette.py", ROOT / "app" / "bertviz_view.py"}
SOURCES = sorted(p for folder in ("app", "pages") for p in (ROOT / folder).rglob("*.py") if p not in EXEMPT)


def test_palette_colours_are_okabe_ito_and_tints():
    assert len(set(palette.CATEGORICAL)) == 8
    assert palette.tint(palette.BLUE, 1) == palette.BLUE and palette.tint(palette.BLUE, 0) == "#FFFFFF"
    assert palette.allowed("#777777") and palette.allowed("#fff") and palette.allowed(palette.LIGHT[palette.ORANGE])
    assert not palette.allowed("#E45756")  # the old red
    assert not palette.allowed("#54A24B")  # the old green


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_colour_outside_the_palette_in_the_source(path):
    source = path.read_text(encoding="utf-8")
    assert [c for c in HEX.findall(source) if not palette.allowed(c)] == []
    assert NAMED_SCALE.findall(source) == []  # colour scales are palette.SEQUENTIAL, SEQUENTIAL_SECOND, DIVERGING


def scale_key(scale) -> list[tuple[float, str]]:
    return [(round(float(v), 6), str(c).upper().replace(" ", "")) for v, c in scale]


ALLOWED_SCALES = [scale_key(plotly.colors.get_colorscale(name)) for name in palette.COLOUR_SCALES]


def colours_in(node, key: str = ""):
    """Every colour a figure's JSON names: (key, value) pairs, colour scales as lists."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "template":  # plotly's default theme, replaced by Streamlit's when drawn
                yield from colours_in(v, k)
    elif isinstance(node, list | tuple) and key != "colorscale":
        for item in node:
            yield from colours_in(item, key)
    elif key == "colorscale":
        yield key, node
    elif "color" in key.lower() and isinstance(node, str) and node.startswith("#"):
        yield key, node


def figures():
    tokens = ["[CLS]", "bank", "river", "[SEP]"]
    maps = np.random.default_rng(0).dirichlet(np.ones(4), size=4)
    stats = {name: np.random.default_rng(1).random((2, 3)) for name in ("cls", "sep", "entropy")}
    predictions = [Prediction(token="a", id=1, prob=0.6), Prediction(token="b", id=2, prob=0.3)]
    counts = {"vertical": [1, 2], "diagonal": [1, 0], "vertical+diagonal": [0, 0], "block": [0, 1]}
    counts["heterogeneous"] = [0, 0]
    names = {k: k for k in heads.PATTERN_COLOURS}
    yield from attention.paired_maps(maps, np.tril(maps), tokens, titles=("a", "b"))
    yield attention.statistics_grid(stats, {n: n for n in stats}, selected=(0, 1), selected_label="x")
    yield attention.change_grid(stats["cls"], title="c", selected=(1, 1), selected_label="x")
    yield fill_mask.prediction_bars(predictions, causal=True)
    yield nsp.segment_strip(
        tokens, [0, 0, 1, 1], [True, False, False, True], segment_labels=["A", "B"], position_label="p"
    )
    yield nsp.is_next_gauge(0.7, title="t")
    yield masking.token_strip([tokens, tokens], [4, 1, 2, 3], ["o", "r"], {i: str(i) for i in range(5)})
    yield embeddings.part_heatmap(np.random.default_rng(2).normal(size=(4, 8)), tokens, 8, title="t")
    yield embeddings.norm_bars(
        {k: 1.0 for k in embeddings.PART_COLORS}, {k: k for k in embeddings.PART_COLORS}, title="n"
    )
    yield heads.thumbnails(
        np.ones((2, 2, 3, 3)),
        np.array([["vertical", "block"], ["diagonal", "heterogeneous"]]),
        names,
        title="t",
        axis=("l", "h"),
    )
    yield heads.pattern_counts(counts, names, title="t", axis=("l", "h"))
    yield heads.head_grid(stats["sep"], [(0, 1)], title="t", value_name="v", removed_name="r", axis=("l", "h"))
    yield heads.pruning_curve([0, 0.5], [0.9, 0.4], [0.9, 0.7], ("i", "r"), title="t", axis=("x", "y"))
    yield finetune.tag_strip(tokens, ["O", "B-PER", "I-LOC", "O"], [0.9] * 4, [True, False, False, True])
    yield finetune.cls_attention_bars(tokens, [0.1] * 4, [0.2] * 4, before_name="b", after_name="a")
    yield layers.accuracy_by_layer(
        {"pretrained": [0.5, 0.8], "random": [0.4, 0.4], "control": [0.3, 0.3]},
        {k: k for k in layers.COLOURS},
        selectivity=[0.1, 0.2],
        layer_title="l",
        accuracy_title="a",
    )


def test_every_figure_draws_with_palette_colours_and_scales():
    seen = 0
    for fig in figures():
        # A trace without a colour of its own takes the layout's, not the theme's.
        assert fig.layout.colorway == palette.CATEGORICAL
        assert scale_key(fig.layout.colorscale.sequential) == scale_key(
            plotly.colors.get_colorscale(palette.SEQUENTIAL)
        )
        for key, value in colours_in(fig.to_plotly_json()):
            seen += 1
            if key == "colorscale":
                scale = scale_key(value)
                assert scale in ALLOWED_SCALES or all(palette.allowed(c) for _, c in scale), scale
            else:
                assert palette.allowed(value), (key, value)
    assert seen > 50  # the walk really found the colours


def test_the_overview_figures_draw_with_palette_colours():
    """The overview's figures are HTML (``app.charts.overview``): every colour in their markup and style."""
    config = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    markup = "".join(
        (
            overview.paradigm_figure("p", ["a", "b"], "n", "f", ["c", "d"], "m"),
            overview.parameter_bars(
                ["x"], [overview.parameters_by_part(config)], {p: p for p in overview.PARTS}, title="t"
            ),
            overview.results_bars(["glue"], [70.0], [80.0], before_label="b", bert_label="B", title="t"),
            markup.FIGURE_CSS,
        )
    )
    colours = HEX.findall(markup)
    assert len(set(colours)) >= 8  # the boxes, their fills, the four parts, the two bars
    assert [c for c in colours if not palette.allowed(c)] == []
