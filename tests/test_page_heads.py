"""The head lab page in both languages, driven through Streamlit's AppTest on the tiny test checkpoint
(the embedded model's statistics take tens of seconds on two cores; bench/bench_heads.py measures them)."""

from __future__ import annotations

import html

import numpy as np
import pytest
from apptest_helpers import charts, data_downloads, figure_of, heatmap_matrix, open_app_page, panel_titles, traces
from streamlit.proto.PlotlyChart_pb2 import PlotlyChart as PlotlyChartProto

from app.core.i18n import strings_of
from app.core.models import get_model
from app.core.palette import allowed
from app.heads import charts as head_charts
from model import inference, results
from model.analysis import heads
from model.checkpoint import load_folder

TEXT = strings_of("heads")

N_LAYERS, N_HEADS = 2, 4  # the tiny test checkpoint


def open_page(folder, lang: str = "en", **state):
    return open_app_page("heads", lang, model_choice="folder", model_folder=str(folder), **state)


def markdown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def step(at, number: int):
    return at.segmented_control(key="w_heads_step").set_value(number).run()


def thumbnail_tiles(figure: dict, n_layers: int, n_heads: int) -> np.ndarray:
    """The thumbnails chart's tiles read back from its canvas: (layers, heads, t, t), in percent of each head's
    largest weight."""
    canvas = traces(figure, "heatmap")[0]["z"]
    pitch = canvas.shape[1] // n_heads
    margin = head_charts.TILE_MARGIN
    t = pitch - 2 * margin
    tiles = canvas.reshape(n_layers, pitch, n_heads, pitch).transpose(0, 2, 1, 3)
    return tiles[:, :, margin : margin + t, margin : margin + t]


def frame_colours(figure: dict) -> list[str]:
    """The thumbnails' frame colours, layer by layer, head by head."""
    return [shape["line"]["color"] for shape in figure["layout"]["shapes"]]


def series_values(figure: dict, index: int) -> list[float]:
    """A trace's values: a line's y, a vertical bar's heights, a horizontal bar's lengths."""
    trace = figure["data"][index]
    return list(trace["x"] if trace.get("orientation") == "h" else trace["y"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_runs_the_four_steps_in_each_language(lang, hf_checkpoint):
    at = open_page(hf_checkpoint[0], lang)
    assert at.title[0].value == TEXT["title"][lang]
    steps = at.segmented_control(key="w_heads_step")
    assert steps.options == [TEXT[f"step{i}_title"][lang] for i in range(1, 5)] and steps.value == 1
    # One step at a time: its header, its charts, and a button to the next one.
    assert [h.value for h in at.header] == [TEXT["step1_title"][lang]]
    assert TEXT["reference_findings"][lang] in markdown(at)
    figs = charts(at)
    assert len(figs) == 2  # feature grid, layer profile
    grid_titles = panel_titles(figs[0])
    # shares are written as whole percentages, entropy in its own unit
    assert grid_titles == [TEXT[f"feature_{f}"][lang] + ("" if f == "entropy" else " (%)") for f in heads.FEATURES]
    profile = figs[1]
    assert [s["name"] for s in profile["data"]] == [
        TEXT[f"feature_{f}"][lang] for f in ("cls", "sep", "punct", "prev", "next")
    ]
    assert all(0 <= v <= 100 for i in range(5) for v in series_values(profile, i))  # shares in percent
    assert len(data_downloads(at)) == 2

    at.button(key="heads_next_step").click().run()
    assert not at.exception and at.session_state["heads_step"] == 2
    assert [h.value for h in at.header] == [TEXT["step2_title"][lang]]
    assert TEXT["pattern_reference"][lang] in " ".join(c.value for c in at.caption)
    thumbnails, counts = charts(at)
    # Thumbnails: each head's map scaled to its own maximum, in whole percent, sent as float32; nothing drawn in
    # the margins between tiles.
    canvas = traces(thumbnails, "heatmap")[0]["z"]
    assert canvas.dtype == np.float32
    tiles = thumbnail_tiles(thumbnails, N_LAYERS, N_HEADS)
    assert np.count_nonzero(~np.isnan(canvas)) == tiles.size  # a cell each, none in the margins between tiles
    assert not np.isnan(tiles).any() and (tiles.max(axis=(2, 3)) == 100).all() and tiles.min() >= 0
    assert np.array_equal(tiles, np.round(tiles))
    # The model as the app loaded it (Traditional characters folded as the pages read them), measured afresh.
    stats = heads.head_statistics(get_model(str(hf_checkpoint[0])), at.session_state["heads_lang"])
    assert np.array_equal(tiles, np.round(100 * stats.thumbnails / stats.thumbnails.max(axis=(2, 3), keepdims=True)))
    # Each head is framed in its pattern's colour, and the counts' bars count those patterns, layer by layer.
    frames = np.array(frame_colours(thumbnails)).reshape(N_LAYERS, N_HEADS)
    assert frames.tolist() == [[head_charts.PATTERN_COLOURS[str(p)] for p in row] for row in stats.patterns]
    assert all(allowed(colour) for colour in frames.ravel())
    hovers = traces(thumbnails, "scatter")[0]["hovertext"]  # each tile names its head and its pattern
    assert len(hovers) == N_LAYERS * N_HEADS and hovers[-1].endswith(TEXT[f"pattern_{stats.patterns[-1, -1]}"][lang])
    for index, (kind, per_layer) in enumerate(stats.pattern_counts().items()):
        assert counts["data"][index]["name"] == TEXT[f"pattern_{kind}"][lang]
        assert series_values(counts, index) == list(per_layer)
    assert np.sum([series_values(counts, i) for i in range(len(heads.PATTERNS))], axis=0).tolist() == [N_HEADS] * 2

    step(at, 3)
    assert [h.value for h in at.header] == [TEXT["step3_title"][lang]]
    importance_grid, compared = charts(at)  # the importance grid, the fill-mask comparison
    importance = heatmap_matrix(importance_grid)
    assert importance.shape == (2, 4) and (importance > 0).all()
    assert np.allclose(importance, stats.importance, atol=1e-9)  # the model's own numbers
    targets = importance_grid["data"][1]  # a point on each cell, layer by layer: what a click selects
    assert [(layer, head) for head, layer in zip(targets["x"], targets["y"])] == [
        (layer, head) for layer in range(2) for head in range(4)
    ]
    assert importance_grid["layout"]["clickmode"] == "event+select"
    # Points only: a click, not a box or a lasso.
    assert importance_grid["selection_mode"] == [PlotlyChartProto.SelectionMode.POINTS]
    assert len(data_downloads(at)) == 2

    step(at, 4)
    assert [h.value for h in at.header] == [TEXT["step4_title"][lang]] and not at.button
    (views,) = charts(at)
    shown = heatmap_matrix(views) / 100
    # The chart's numbers are the model's own (rounded to 0.01 percentage points), and each view's shares sum to 1.
    expected = heads.token_views(
        load_folder(hf_checkpoint[0]),
        at.text_input(key="heads_fill_text").value,
        None,
        at.selectbox(key="heads_view_token").value,
        at.session_state["layer"],
        at.session_state["head"],
    )
    rows = np.stack([getattr(expected, v) for v in ("raw", "norm", "rollout", "gradient_x_input")])
    assert shown.shape[0] == 4 and np.allclose(shown, rows, atol=5e-5)
    assert np.allclose(rows.sum(1), 1, atol=1e-4)
    assert len(data_downloads(at)) == 2
    assert at.query_params["heads_step"] == "4"  # a shared link opens the same step


def test_a_click_on_the_importance_grid_names_the_head_under_it():
    """The selection ``st.plotly_chart`` reports for a click (a point with its x and y, and its index in its
    trace) names the head whose cell that is: the page removes or restores it (the browser test clicks for
    real)."""
    values = np.arange(2 * 4, dtype=float).reshape(2, 4) / 10
    grid = figure_of(
        head_charts.head_grid(
            values, [(1, 2)], title="t", value_name="importance", removed_name="removed", axis=("layer", "head")
        )
    )
    cells, targets, crosses = grid["data"]
    assert np.array_equal(cells["z"], values)
    for index, (head, layer, (value, layer_shown, head_shown)) in enumerate(
        zip(targets["x"], targets["y"], targets["customdata"])
    ):
        assert (layer_shown, head_shown) == (layer + 1, head + 1)  # the hover counts from 1, as every page does
        point = {"curve_number": 1, "point_number": index, "point_index": index, "x": head, "y": layer}
        selection = {"points": [point], "point_indices": [index], "box": [], "lasso": []}
        assert head_charts.clicked_heads(selection, 4) == [(layer, head)]
        assert value == values[layer, head]
        # A selection that carries only the points' indices names the same head.
        assert head_charts.clicked_heads({"points": [], "point_indices": [index]}, 4) == [(layer, head)]
    assert (crosses["x"], crosses["y"]) == ([2], [1])
    assert crosses["hoverinfo"] == "skip"  # the cross takes no hover: a click goes to the point under it
    assert head_charts.clicked_heads({"points": [], "point_indices": [], "box": [], "lasso": []}, 4) == []


def test_removing_heads_changes_fill_mask_and_nsp_and_restores(hf_checkpoint):
    at = open_page(hf_checkpoint[0], heads_step=3)
    bars = charts(at)[1]
    assert series_values(bars, 0) == series_values(bars, 1)  # nothing removed yet
    at.button(key="heads_keep_button").click().run()  # keep the 4 most important of 8
    assert not at.exception
    assert len(at.session_state["heads_off"]) == 4
    bars = charts(at)[1]
    assert series_values(bars, 0) != series_values(bars, 1)
    assert at.metric[0].delta != "+0.0 pp"
    at.button(key="heads_restore").click().run()
    assert at.session_state["heads_off"] == []
    at.selectbox(key="heads_whole_layer").set_value(1).run()
    at.button(key="heads_remove_layer").click().run()
    assert at.session_state["heads_off"] == ["1.0", "1.1", "1.2", "1.3"]
    bars = charts(at)[1]
    # Every word in either top 5 shows its real probability in both runs, also where it left one top 5 (not 0).
    bundle = load_folder(hf_checkpoint[0])
    text = at.text_input(key="heads_fill_text").value
    ids = [bundle.tokenizer.token_to_id(html.unescape(token)) for token in bars["data"][0]["y"]]
    removed = [tuple(map(int, name.split("."))) for name in at.session_state["heads_off"]]
    for index, heads_off in ((0, []), (1, removed)):
        real = inference.mask_token_probabilities(bundle, text, ids, removed_heads=heads_off)
        assert series_values(bars, index) == pytest.approx([100 * p for p in real], abs=0.06)
        assert all(v > 0 for v in series_values(bars, index))


def test_a_word_that_left_a_top_5_is_compared_at_its_real_probability():
    from app.heads.logic import compared_predictions, compared_tokens

    def result(*predictions):
        masks = [results.MaskPredictions(5, [results.Prediction(tok, i, p) for tok, i, p in predictions])]
        return results.FillMaskResult("x [MASK]", [], [], masks, False)

    full = result(("paris", 7, 0.6), ("lyon", 8, 0.2))
    ablated = result(("lyon", 8, 0.5), ("rome", 9, 0.3))
    tokens = compared_tokens(full, ablated)
    assert tokens == [("paris", 7), ("lyon", 8), ("rome", 9)]  # the full model's order, then the newcomers
    # the page asks the model for every one of them in both runs (inference.mask_token_probabilities)
    rows = compared_predictions(tokens, [0.6, 0.2, 0.04], [0.03, 0.5, 0.3])
    assert rows == [("paris", 0.6, 0.03), ("lyon", 0.2, 0.5), ("rome", 0.04, 0.3)]
    with pytest.raises(ValueError):
        compared_predictions(tokens, [0.6, 0.2], [0.03, 0.5, 0.3])


def test_pruning_curve_runs_on_request_and_shows(hf_checkpoint):
    at = open_page(hf_checkpoint[0], heads_step=3)
    at.button(key="heads_curve_button").click().run()
    assert not at.exception
    curve = charts(at)[-1]  # the curve ends step 3
    by_importance, random_mean = (series_values(curve, index) for index in (0, 1))
    assert len(by_importance) == 11 and by_importance[0] == random_mean[0]
    assert TEXT["curve_summary"]["en"].split("{")[0] in " ".join(c.value for c in at.caption)  # the chart's summary


def test_a_link_with_off_layer_and_head_restores_the_view(hf_checkpoint):
    # AppTest's switch_page drops query parameters, so the link's values arrive as the state init_state and
    # the page make of them; the browser check opens /heads?heads_off=...&layer=...&head=... itself.
    at = open_page(hf_checkpoint[0], heads_off=["1.3", "0.1"], layer=1, head=2, heads_step=3)
    assert at.session_state["heads_off"] == ["0.1", "1.3"]
    assert TEXT["removed_count"]["en"].format(n=2, total=8) in [c.value for c in at.caption]
    step(at, 4)
    assert "(layer 2, head 3)" in markdown(at)  # the link indexes from 0, the page counts from 1


def test_removed_heads_from_a_link_keep_only_heads_the_model_has():
    from app.heads.logic import parse_off

    assert parse_off("0.1,1.3,9.9", 2, 4) == [(0, 1), (1, 3)]
    assert parse_off("1.3,0.1,1.3", 2, 4) == [(0, 1), (1, 3)]
    assert parse_off("x", 2, 4) == [] and parse_off(None, 2, 4) == [] and parse_off("", 2, 4) == []
