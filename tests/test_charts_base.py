"""The building blocks of every chart (``app.core.charts``) and of every figure of text (``app.core.markup``)."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
import pytest
from apptest_helpers import figure_of

from app.core import charts as base
from app.core import markup
from app.core.palette import BLUE, SCALE_STOPS, SEQUENTIAL


def test_a_heatmap_draws_the_matrix_it_was_given_with_escaped_distinct_labels():
    tokens = ["[CLS]", "<b>bank</b>", "bank", "bank", "[SEP]"]
    matrix = np.random.default_rng(0).dirichlet(np.ones(5), size=5)
    chart = base.heatmap(matrix, tokens, tokens, title="map")
    figure = figure_of(chart)
    # The title is text above the figure (it wraps in a narrow column), not plotly's.
    assert chart.title == "map" and "title" not in figure["layout"]
    [trace] = figure["data"]
    x, y = trace["x"], trace["y"]
    # Repeated tokens stay apart (a category axis would merge them); user text is escaped, never markup.
    assert len(set(x)) == 5 and [html.unescape(label.rstrip("\u200b")) for label in x] == tokens and y == x
    assert "<b>" not in chart.figure.to_json() and "&lt;b&gt;bank&lt;/b&gt;" in x
    # float32: a large map sends half the bytes, and nothing reads it closer than its colour and hover.
    assert trace["z"].dtype == np.float32 and trace["z"].shape == (5, 5)
    np.testing.assert_allclose(trace["z"], matrix, atol=1e-6, rtol=0)
    assert figure["layout"]["yaxis"]["autorange"] == "reversed"  # the first token's row at the top, as it is read
    assert [c for _, c in trace["colorscale"]] == list(SCALE_STOPS[SEQUENTIAL])
    assert trace["zmin"] == pytest.approx(matrix.min(), abs=1e-6) and trace["zmax"] == pytest.approx(matrix.max())
    assert "%{z" in trace["hovertemplate"]
    # A map takes a drag: it zooms (and pans); the modebar offers both (app.ui.plot).
    assert figure["layout"]["dragmode"] == "zoom" and base.drag(chart.figure) == "plane"
    assert figure["layout"]["height"] == chart.height
    with pytest.raises(ValueError, match="does not match"):
        base.heatmap(matrix[:4], tokens, tokens)


def test_a_heatmap_of_nothing_but_nan_still_has_a_range():
    trace = figure_of(base.heatmap(np.full((2, 2), np.nan), ["a", "b"], ["a", "b"]))["data"][0]
    assert (trace["zmin"], trace["zmax"]) == (0.0, 1.0)


def test_a_long_sentence_numbers_its_axis_labels():
    tokens = [f"w{i % 7}" for i in range(base.NUMBERED_AXIS_FROM)]
    labels = base.axis_labels(tokens)
    assert labels[0] == "0 · w0" and labels[-1].startswith(f"{len(tokens) - 1} · ")
    assert base.axis_labels(tokens[:10]) == base.unique_labels(tokens[:10])  # short ones stay as they are
    # A short axis labels every token.
    short = figure_of(base.heatmap(np.eye(10), tokens[:10], tokens[:10]))["layout"]
    assert short["xaxis"]["ticktext"] == short["yaxis"]["ticktext"] == base.unique_labels(tokens[:10])


def test_a_long_map_labels_every_nth_position_and_keeps_its_width():
    """512 tokens: at most MOST_*_LABELS ticks, each a position (the hover names the tokens), and margins that do
    not grow with the tokens' text, so the plot keeps its width (plotly's own ticks squeezed it to a sliver)."""
    tokens = [f"supercalifragilistic{i % 7}" for i in range(512)]
    labels = base.axis_labels(tokens)
    layout = figure_of(base.heatmap(np.eye(512), tokens, tokens, x_on_top=True))["layout"]
    for axis, most in (("xaxis", base.MOST_COLUMN_LABELS), ("yaxis", base.MOST_ROW_LABELS)):
        ticks = layout[axis]
        assert len(ticks["tickvals"]) <= most and ticks["tickvals"][0] == labels[0]
        assert ticks["ticktext"] == [label.split(" · ")[0] for label in ticks["tickvals"]]  # "64" for "64 · …"
        assert ticks["automargin"] is False
    assert layout["margin"]["l"] < 80 and layout["margin"]["t"] < 80
    assert layout["xaxis"]["tickangle"] == 0  # positions lie flat


def test_a_right_to_left_token_keeps_its_pieces_in_reading_order():
    assert base.unique_labels(["##ر", "##ing"]) == ["\u200e##ر", "##ing"]


def test_probability_bars_write_percentages_largest_first():
    chart = base.probability_bars(["river", "bank", "<i>"], [0.5, 0.25, 0.125], title="t", color=BLUE)
    figure = figure_of(chart)
    [bars] = figure["data"]
    assert bars["type"] == "bar" and bars["orientation"] == "h"
    assert list(bars["x"]) == [50.0, 25.0, 12.5] and bars["text"] == ["50.0%", "25.0%", "12.5%"]
    assert bars["y"] == ["river", "bank", "&lt;i&gt;"] and figure["layout"]["yaxis"]["autorange"] == "reversed"
    assert bars["marker"]["color"] == BLUE
    assert figure["layout"]["xaxis"]["range"] == [0, 100] and figure["layout"]["xaxis"]["ticksuffix"] == "%"
    assert figure["layout"]["dragmode"] is False and base.drag(chart.figure) is None  # bars take no drag
    # Each bar has its band: more bars, a taller chart.
    assert base.probability_bars(list("abcdef"), [0.1] * 6).height > base.probability_bars(["a"], [1.0]).height


def test_presenter_mode_enlarges_every_text_of_a_copy():
    chart = base.heatmap(np.eye(2), ["a", "b"], ["a", "b"], title="t")
    layout = chart.figure._layout
    layout["annotations"] = base.panel_titles(["panel"], [0.5], [1.0])
    layout["xaxis"]["tickfont"] = {"size": 10}
    chart.figure.data[0].textfont = {"size": 9}
    before = chart.figure.to_json()
    shown = figure_of(base.Chart(base.presented(chart.figure), chart.height))
    scaled = round(base.FONT_SIZE * base.PRESENTER_SCALE)
    assert shown["layout"]["font"]["size"] == scaled  # what every text without a size of its own takes
    assert shown["layout"]["hoverlabel"]["font"]["size"] == scaled
    assert shown["layout"]["annotations"][0]["font"]["size"] == round(base.PANEL_TITLE_SIZE * base.PRESENTER_SCALE)
    assert shown["layout"]["xaxis"]["tickfont"]["size"] == 15 and shown["data"][0]["textfont"]["size"] == 14
    assert shown["layout"]["font"]["family"] == base.FONT  # CJK fonts kept
    # The chart itself is untouched (it may be cached and drawn for other students).
    assert chart.figure.to_json() == before


def test_presenter_mode_leaves_a_short_maps_token_labels_to_plotly_to_space():
    """Every token labels a short map's columns; enlarged on a projector they ran together, so presenter mode lets
    plotly label every n-th where they crowd. A long map's numbered ticks (already every n-th) stay as they are."""
    tokens = [f"t{i}" for i in range(17)]
    short = base.heatmap(np.eye(17), tokens, tokens)
    assert short.figure._layout["xaxis"]["tickvals"] == base.axis_labels(tokens)  # every label, as built
    spaced = figure_of(base.Chart(base.presented(short.figure), short.height))["layout"]["xaxis"]
    assert "tickvals" not in spaced and "ticktext" not in spaced and spaced.get("tickmode") is None
    assert spaced["categoryarray"] == base.axis_labels(tokens)  # the columns themselves unchanged
    assert short.figure._layout["xaxis"]["tickvals"] == base.axis_labels(tokens)  # the cached chart untouched
    n = base.NUMBERED_AXIS_FROM + 10
    long = base.heatmap(np.eye(n), [f"w{i}" for i in range(n)], [f"w{i}" for i in range(n)])
    kept = figure_of(base.Chart(base.presented(long.figure), long.height))["layout"]["xaxis"]
    assert kept["tickvals"] == long.figure._layout["xaxis"]["tickvals"] and kept["tickmode"] == "array"


def test_a_chart_is_named_by_its_titles_and_its_finding():
    layout = {"annotations": base.panel_titles(["entropy", "<b>[CLS]</b>"], [0.25, 0.75], [1, 1])}
    layout["annotations"].append({"text": "a line's label"})  # not a panel's title
    figure = base.figure({"data": [], "layout": layout})
    named = base.accessible_name(base.Chart(figure, 100, "Statistics"), "most: L1 H2")
    assert named == "Statistics. entropy. <b>[CLS]</b>. most: L1 H2"  # text, as a screen reader says it
    assert base.accessible_name(base.Chart(figure, 100), None) == "entropy. <b>[CLS]</b>"
    assert base.accessible_name(base.Chart(go.Figure(), 100), None) is None


def test_a_standalone_figure_draws_its_title_and_leaves_the_chart_as_it_was():
    chart = base.probability_bars(["a"], [1.0], title="<b>A</b> & B")
    before = chart.figure.to_json()
    alone = figure_of(base.Chart(base.standalone(chart), chart.height))
    assert alone["layout"]["title"]["text"] == "&lt;b&gt;A&lt;/b&gt; &amp; B"
    assert alone["layout"]["height"] == chart.height + base.TITLE_ROOM
    assert alone["layout"]["margin"]["t"] == figure_of(chart)["layout"]["margin"]["t"] + base.TITLE_ROOM
    assert chart.figure.to_json() == before
    page = base.standalone(chart).to_html(include_plotlyjs=True, full_html=True)
    assert (
        page.startswith("<!doctype html>") and "Plotly.newPlot" in page and len(page) > 1_000_000
    )  # plotly.js inlined


def test_wrapped_text_breaks_at_spaces_or_anywhere_in_chinese_and_is_escaped():
    assert base.wrapped("a <b> c", 1000) == "a &lt;b&gt; c"
    assert base.wrapped("one two three", 40).split("<br>") == ["one", "two", "three"]
    lines = base.wrapped("我" * 40, 100).split("<br>")
    assert len(lines) > 1 and "".join(lines) == "我" * 40 and all(base.text_px(line) <= 100 for line in lines)


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
