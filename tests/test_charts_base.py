"""The building blocks of every chart (``app.core.charts``) and of every figure of text (``app.core.markup``)."""

from __future__ import annotations

import html
import json

import numpy as np
import pytest

from app.core import charts as base
from app.core import markup
from app.core.palette import BLUE, SCALE_STOPS, SEQUENTIAL


def test_a_heatmap_sends_each_cell_once_and_draws_the_matrix_it_was_given():
    tokens = ["[CLS]", "<b>bank</b>", "bank", "bank", "[SEP]"]
    matrix = np.random.default_rng(0).dirichlet(np.ones(5), size=5)
    chart = base.heatmap(matrix, tokens, tokens, title="map")
    option = chart.option
    # The title is text above the canvas (it wraps in a narrow column), not part of the option.
    assert chart.title == "map" and "title" not in option
    x, y = option["xAxis"]["data"], option["yAxis"]["data"]
    # Repeated tokens stay apart (a category axis would merge them) and read as typed: no markup, no entities.
    assert len(set(x)) == 5 and [label.rstrip("\u200b") for label in x] == tokens and y == x
    data = option["dataset"]["source"]
    assert len(data) == 25
    np.testing.assert_allclose(base.matrix_of(data, x, y), matrix, atol=5e-5, rtol=0)  # four decimals sent
    assert option["yAxis"]["inverse"]  # the first token's row at the top, as it is read
    assert option["visualMap"]["inRange"]["color"] == list(SCALE_STOPS[SEQUENTIAL])
    assert option["visualMap"]["min"] == pytest.approx(matrix.min(), abs=1e-4)
    assert option["series"][0]["encode"] == {"x": "x", "y": "y", "value": "value"}
    json.dumps({k: v for k, v in option.items() if k != "dataset"}, allow_nan=False)
    with pytest.raises(ValueError, match="does not match"):
        base.heatmap(matrix[:4], tokens, tokens)


def test_a_long_sentence_numbers_its_axis_labels():
    tokens = [f"w{i % 7}" for i in range(base.NUMBERED_AXIS_FROM)]
    labels = base.axis_labels(tokens)
    assert labels[0] == "0 · w0" and labels[-1].startswith(f"{len(tokens) - 1} · ")
    assert base.axis_labels(tokens[:10]) == base.unique_labels(tokens[:10])  # short ones stay as they are


def test_a_right_to_left_token_keeps_its_pieces_in_reading_order():
    assert base.unique_labels(["##ر", "##ing"]) == ["\u200e##ر", "##ing"]


def test_probability_bars_write_percentages_largest_first():
    chart = base.probability_bars(["river", "bank", "<i>"], [0.5, 0.25, 0.125], title="t", color=BLUE)
    series = chart.option["series"][0]
    assert series["data"] == [50.0, 25.0, 12.5]
    assert chart.option["yAxis"]["data"] == ["river", "bank", "<i>"] and chart.option["yAxis"]["inverse"]
    assert series["itemStyle"]["color"] == BLUE and series["label"]["formatter"] == "{c}%"
    assert chart.option["xAxis"]["max"] == 100
    # Each bar has its band: more bars, a taller chart.
    assert base.probability_bars(list("abcdef"), [0.1] * 6).height > base.probability_bars(["a"], [1.0]).height


def test_presenter_mode_enlarges_every_text_of_a_copy():
    chart = base.heatmap(np.eye(2), ["a", "b"], ["a", "b"], title="t")
    chart.option["legend"] = {"bottom": 0}
    chart.option["title"] = base.panel_titles(["panel"], ["50%"], [0])
    shown = base.presented(chart.option)
    assert shown["xAxis"]["axisLabel"]["fontSize"] == round(base.FONT_SIZE * base.PRESENTER_SCALE)
    assert shown["yAxis"]["axisLabel"]["fontSize"] == round(base.FONT_SIZE * base.PRESENTER_SCALE)
    assert shown["legend"]["textStyle"]["fontSize"] == round(base.FONT_SIZE * base.PRESENTER_SCALE)
    assert shown["title"][0]["textStyle"]["fontSize"] == round(base.PANEL_TITLE_SIZE * base.PRESENTER_SCALE)
    assert shown["textStyle"]["fontSize"] == round(base.FONT_SIZE * base.PRESENTER_SCALE)
    # The chart itself is untouched (it may be cached and drawn for other students), its data shared, not copied.
    assert "fontSize" not in chart.option["xAxis"]["axisLabel"] and "legend" not in shown["legend"]
    assert "textStyle" not in chart.option["legend"]
    assert shown["dataset"]["source"] is chart.option["dataset"]["source"]
    bars = base.presented(base.probability_bars(["a"], [1.0]).option)
    assert bars["series"][0]["label"]["fontSize"] == round(base.FONT_SIZE * base.PRESENTER_SCALE)


def test_a_chart_is_named_by_its_titles_and_its_finding():
    option = {"title": [{"text": "entropy"}, {"text": "[CLS]"}]}
    named = base.accessible_name(base.Chart(option, 100, "Statistics"), "most: L1 H2")
    assert named == "Statistics. entropy. [CLS]. most: L1 H2"
    assert base.accessible_name(base.Chart(option, 100), None) == "entropy. [CLS]"
    assert base.accessible_name(base.Chart({}, 100), None) is None


def test_token_boxes_escape_what_the_reader_typed():
    figure = markup.token_boxes(
        [["<script>x</script>", "0"], ["bank", ""]],
        ["#EEEEEE", BLUE],
        hovers=['a "quoted" hover', "bank"],
        legend_entries=[("<i>kept</i>", "#EEEEEE")],
        row_names=["token", "position"],
        title="A & B",
    )
    assert "<script>" not in figure and html.escape("<script>x</script>") in figure
    assert "<i>kept</i>" not in figure and "&lt;i&gt;kept&lt;/i&gt;" in figure
    assert 'title="a &quot;quoted&quot; hover"' in figure
    assert figure.count('class="box"') == 2 and figure.count('class="box key"') == 1
    assert f"--fill:{BLUE}" in figure and "<small>0</small>" in figure and "<small>&nbsp;</small>" in figure
    assert "<figcaption>A &amp; B</figcaption>" in figure
    assert 'class=edge style="background:#EEEEEE"' in figure  # a pale square gets an edge on white
    with pytest.raises(ValueError):
        markup.token_boxes([["a"]], ["#EEEEEE", BLUE])
