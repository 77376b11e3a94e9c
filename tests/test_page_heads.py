"""The head lab page in both languages, driven through Streamlit's AppTest on the tiny test checkpoint
(the embedded model's statistics take tens of seconds on two cores; bench/bench_heads.py measures them)."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_helpers import figures, open_app_page, plot_array

from app.text.heads import TEXT
from model.analysis import heads


def open_page(folder, lang: str = "en", **state):
    return open_app_page("heads", lang, model_choice="folder", model_folder=str(folder), **state)


def markdown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def step(at, number: int):
    return at.segmented_control(key="w_heads_step").set_value(number).run()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_runs_the_four_steps_in_each_language(lang, hf_checkpoint):
    at = open_page(hf_checkpoint[0], lang)
    assert at.title[0].value == TEXT["title"][lang]
    steps = at.segmented_control(key="w_heads_step")
    assert steps.options == [TEXT[f"step{i}_title"][lang] for i in range(1, 5)] and steps.value == 1
    # One step at a time: its header, its charts, and a button to the next one.
    assert [h.value for h in at.header] == [TEXT["step1_title"][lang]]
    assert TEXT["reference_findings"][lang] in markdown(at)
    figs = figures(at)
    assert len(figs) == 2  # feature grid, layer profile
    grid_titles = [a["text"] for a in figs[0]["layout"]["annotations"]]
    # shares are written as whole percentages, entropy in its own unit
    assert grid_titles == [TEXT[f"feature_{f}"][lang] + ("" if f == "entropy" else " (%)") for f in heads.FEATURES]
    assert len(at.get("download_button")) == 2

    at.button(key="heads_next_step").click().run()
    assert not at.exception and at.session_state["heads_step"] == 2
    assert [h.value for h in at.header] == [TEXT["step2_title"][lang]]
    assert TEXT["pattern_reference"][lang] in " ".join(c.value for c in at.caption)
    thumbnails, counts = figures(at)
    # Thumbnails: each head's map scaled to its own maximum, tiled with one-cell gaps, sent in single precision.
    assert thumbnails["data"][0]["z"]["dtype"] == "f4"
    tiles = plot_array(thumbnails["data"][0]["z"])
    assert np.isnan(tiles).any() and np.nanmax(tiles) == 1.0 and np.nanmin(tiles) >= 0

    step(at, 3)
    assert [h.value for h in at.header] == [TEXT["step3_title"][lang]]
    importance_grid, compared = figures(at)  # the importance grid, the fill-mask comparison
    importance = plot_array(importance_grid["data"][0]["marker"]["color"])
    assert importance.shape == (8,) and (importance > 0).all()
    assert len(at.get("download_button")) == 2

    step(at, 4)
    assert [h.value for h in at.header] == [TEXT["step4_title"][lang]] and not at.button
    (views,) = figures(at)
    views = plot_array(views["data"][0]["z"])
    assert views.shape[0] == 4 and np.allclose(views.sum(1), 1, atol=1e-4)
    assert len(at.get("download_button")) == 2
    assert at.query_params["heads_step"] == "4"  # a shared link opens the same step


def test_removing_heads_changes_fill_mask_and_nsp_and_restores(hf_checkpoint):
    at = open_page(hf_checkpoint[0], heads_step=3)
    bars = figures(at)[1]["data"]
    assert plot_array(bars[0]["x"]).tolist() == plot_array(bars[1]["x"]).tolist()  # nothing removed yet
    at.button(key="heads_keep_button").click().run()  # keep the 4 most important of 8
    assert not at.exception
    assert len(at.session_state["heads_off"]) == 4
    bars = figures(at)[1]["data"]
    assert plot_array(bars[0]["x"]).tolist() != plot_array(bars[1]["x"]).tolist()
    assert at.metric[0].delta != "+0.0 pp"
    at.button(key="heads_restore").click().run()
    assert at.session_state["heads_off"] == []
    at.selectbox(key="heads_whole_layer").set_value(1).run()
    at.button(key="heads_remove_layer").click().run()
    assert at.session_state["heads_off"] == ["1.0", "1.1", "1.2", "1.3"]


def test_pruning_curve_runs_on_request_and_shows(hf_checkpoint):
    at = open_page(hf_checkpoint[0], heads_step=3)
    at.button(key="heads_curve_button").click().run()
    assert not at.exception
    curve = figures(at)[-1]  # the curve ends step 3
    by_importance, random_mean = (plot_array(trace["y"]) for trace in curve["data"])
    assert len(by_importance) == 11 and by_importance[0] == random_mean[0]
    assert TEXT["curve_summary"]["en"].split("{")[0] in " ".join(c.value for c in at.caption)  # the chart's summary


def test_a_link_with_off_layer_and_head_restores_the_view(hf_checkpoint):
    # AppTest's switch_page drops query parameters, so the link's values arrive as the state init_state and
    # the page make of them; the browser check opens /heads?heads_off=...&layer=...&head=... itself.
    at = open_page(hf_checkpoint[0], heads_off=["1.3", "0.1"], layer=1, head=2, heads_step=3)
    assert at.session_state["heads_off"] == ["0.1", "1.3"]
    assert TEXT["removed_count"]["en"].format(n=2, total=8) in [c.value for c in at.caption]
    step(at, 4)
    assert "(layer 1, head 2)" in markdown(at)


def test_removed_heads_from_a_link_keep_only_heads_the_model_has():
    from app.heads_lab import parse_off

    assert parse_off("0.1,1.3,9.9", 2, 4) == [(0, 1), (1, 3)]
    assert parse_off("1.3,0.1,1.3", 2, 4) == [(0, 1), (1, 3)]
    assert parse_off("x", 2, 4) == [] and parse_off(None, 2, 4) == [] and parse_off("", 2, 4) == []
