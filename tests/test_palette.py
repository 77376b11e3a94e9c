"""Every chart draws with the colour-blind-safe palette of ``app.core.palette``: checked in the source (no colour
literal or colour-scale name outside the palette) and in the figures the builders return."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_charts_options import BUILDERS

from app.core import palette
from app.core.markup import FIGURE_CSS
from app.overview import charts as overview
from model.modeling import BertConfig

ROOT = Path(__file__).resolve().parents[1]
# A hex colour, not the "##" of a wordpiece ("##aff").
HEX = re.compile(r"(?<![#\w])#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})\b")
NAMED_SCALE = re.compile(r"[\"'](?:Viridis|Cividis|RdBu\w*)[\"']", re.IGNORECASE)  # a scale named outside the palette
# bertviz's head view tells its heads apart by colour, and no colour-blind-safe set has 12 or 16 distinct colours;
# its head numbers are written beside the colours.
EXEMPT = {ROOT / "app" / "core" / "palette.py", ROOT / "app" / "attention" / "bertviz_view.py"}
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


ALLOWED_SCALES = [list(palette.SCALE_STOPS[name]) for name in palette.COLOUR_SCALES]


def colours_in(node, key: str = ""):
    """Every colour a figure names: (key, value) pairs; a colour scale's stops, or a list of colours (one per bar),
    as one list."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from colours_in(v, k)
    elif isinstance(node, list | tuple) and "colorscale" in key.lower():
        yield key, [colour for _, colour in node]
    elif isinstance(node, list | tuple) and "color" in key.lower() and node and all(isinstance(c, str) for c in node):
        yield key, list(node)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from colours_in(item, key)
    elif "color" in key.lower() and isinstance(node, str) and node.startswith("#"):
        yield key, node


def test_every_chart_draws_with_palette_colours_and_scales():
    seen = 0
    for name, build in BUILDERS.items():
        made = build()
        if isinstance(made, str):  # HTML: every colour in its markup
            colours = HEX.findall(made)
            assert colours and [c for c in colours if not palette.allowed(c)] == [], name
            seen += len(colours)
            continue
        spec = json.loads(made.figure.to_json())
        # A trace without a colour of its own takes the figure's, not the theme's.
        assert spec["layout"]["colorway"] == list(palette.CATEGORICAL), name
        for key, value in colours_in(spec):
            seen += 1
            if isinstance(value, list):
                if value == list(palette.CATEGORICAL):
                    continue
                assert [c.upper() for c in value] in ALLOWED_SCALES or all(palette.allowed(c) for c in value), (
                    name,
                    value,
                )
            else:
                assert palette.allowed(value), (name, key, value)
    assert seen > 100  # the walk really found the colours


def test_the_overview_figures_draw_with_palette_colours():
    """The overview's figures are HTML (``app.overview.charts``): every colour in their markup and style."""
    config = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
    markup = "".join(
        (
            overview.paradigm_figure("p", ["a", "b"], "n", "f", ["c", "d"], "m"),
            overview.parameter_bars(
                ["x"], [overview.parameters_by_part(config)], {p: p for p in overview.PARTS}, title="t"
            ),
            overview.results_bars(["glue"], [70.0], [80.0], before_label="b", bert_label="B", title="t"),
            FIGURE_CSS,
        )
    )
    colours = HEX.findall(markup)
    assert len(set(colours)) >= 8  # the boxes, their fills, the four parts, the two bars
    assert [c for c in colours if not palette.allowed(c)] == []
