"""GPT versus BERT in both languages (AppTest), and the pure helpers behind its live comparison."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from apptest_helpers import (
    HOSTILE_INPUTS,
    charts,
    data_downloads,
    figure_of,
    heatmap_matrix,
    labels,
    open_app_page,
    pipelines,
    preformatted,
    traces,
    written_stages,
)
from streamlit.testing.v1 import AppTest

from app.core.i18n import strings_of
from app.core.shared_charts import BIDIRECTIONAL_COLOR, CAUSAL_COLOR, paired_maps
from app.gpt_vs_bert import charts as logic

COMMON = strings_of("common")
TEXT = strings_of("gpt_vs_bert")

SHORT = "She opened the door and walked into the room."  # 12 tokens with [CLS] and [SEP]


def open_page(lang: str = "en", text: str | None = SHORT) -> AppTest:
    return open_app_page("gpt_vs_bert", lang, text=text)


# The page ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_comparison_sketch_and_live_maps_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    table = at.table[0].value
    assert len(table) == 7 and list(table.columns) == ["GPT", "BERT"]
    assert table.index[0] == TEXT["rows"][lang].splitlines()[0].split("|")[0]
    assert pipelines(at)[0] == written_stages(COMMON["sketch_gpt"][lang]) + written_stages(COMMON["sketch_bert"][lang])
    causal_map, bidirectional_map, causal_bars, bidirectional_bars = charts(at)
    causal, bidirectional = (heatmap_matrix(option) for option in (causal_map, bidirectional_map))
    scales = [traces(figure, "heatmap")[0] for figure in (causal_map, bidirectional_map)]
    assert scales[0]["zmax"] == scales[1]["zmax"] and scales[0]["zmin"] == scales[1]["zmin"] == 0  # one scale
    assert causal.shape == bidirectional.shape == (12, 12)
    assert np.allclose(np.triu(causal, k=1), 0)  # GPT-style: nothing to the right
    assert np.triu(bidirectional, k=1).sum() > 0.05  # BERT-style: the right side is seen
    assert np.allclose(causal.sum(axis=1), 1, atol=1e-3) and np.allclose(bidirectional.sum(axis=1), 1, atol=1e-3)
    assert causal_bars["data"][0]["type"] == bidirectional_bars["data"][0]["type"] == "bar"
    assert causal_bars["data"][0]["marker"]["color"] == CAUSAL_COLOR
    assert bidirectional_bars["data"][0]["marker"]["color"] == BIDIRECTIONAL_COLOR
    assert TEXT["mask_default"][lang] in preformatted(at)  # the sidebar sentence has no [MASK]
    assert len(data_downloads(at)) == 3


def views(at) -> list[str]:
    """The page's blocks of text as the model sees it (not the command lines of "For engineers", at the end)."""
    return [block for block in preformatted(at) if not block.startswith("python -m model")]


def test_causal_reading_at_the_mask_sees_only_its_left():
    at = open_page("zh", text=None)  # the default Chinese sentence has no [MASK]: the notes' example is used
    codes = views(at)
    causal_view, bidirectional_view = codes[-2], codes[-1]
    assert causal_view.endswith("[MASK]") and causal_view.startswith("[CLS] 我")
    assert bidirectional_view.endswith("[SEP]") and len(bidirectional_view) > len(causal_view)


def test_a_sidebar_sentence_with_mask_is_used():
    text = "The movie was [MASK] and everyone loved it."
    at = open_page("en", text=text)
    assert text in preformatted(at)
    assert TEXT["mask_source_session"]["en"] in [c.value for c in at.caption]
    causal_view = views(at)[-2]
    assert causal_view == "[CLS] the movie was [MASK]"


@pytest.mark.parametrize("name", sorted(HOSTILE_INPUTS))
def test_hostile_sentence_gives_a_message_not_a_traceback(name):
    at = open_page("en", text=HOSTILE_INPUTS[name])
    specs = charts(at)
    if not HOSTILE_INPUTS[name].strip():
        assert [i.value for i in at.info].count(COMMON["empty_input"]["en"]) == 1, (
            "an empty sentence is asked for, once"
        )
        assert len(specs) == 2  # no attention maps; the fill-mask comparison still runs on its own example
        return
    assert len(specs) == 4
    if name == "long":
        assert at.info, "a cut input must be announced"
        assert heatmap_matrix(specs[0]).shape == (logic.MAX_HEATMAP_TOKENS,) * 2
    if name == "only_mask":
        assert TEXT["several_masks"]["en"].format(n=3) in [c.value for c in at.caption]
    if name == "html":
        columns = traces(specs[0], "heatmap")[0]["x"]
        # Plotly renders tags: the tokens arrive escaped, never as markup, and read as typed once drawn.
        assert "&lt;" in columns and not any("<" in column for column in columns) and "<" in labels(columns)


# Helpers ------------------------------------------------------------------------------------------------------


def test_mean_over_heads_takes_one_layer_and_keeps_rows_stochastic():
    rng = np.random.default_rng(0)
    attentions = rng.random((3, 4, 5, 5))
    attentions /= attentions.sum(-1, keepdims=True)
    mean = logic.mean_over_heads(attentions)
    assert mean.shape == (5, 5)
    assert np.allclose(mean, attentions[-1].mean(0)) and np.allclose(mean.sum(1), 1)
    assert np.allclose(logic.mean_over_heads(attentions, layer=0), attentions[0].mean(0))
    with pytest.raises(ValueError):
        logic.mean_over_heads(np.ones((4, 5, 5)))


def test_upper_triangle_share():
    assert logic.upper_triangle_share(np.tril(np.ones((4, 4)))) == 0.0
    assert logic.upper_triangle_share(np.ones((2, 2))) == pytest.approx(0.25)
    assert logic.upper_triangle_share(np.zeros((3, 3))) == 0.0


def test_visible_tokens():
    tokens = ["[CLS]", "我", "去", "[MASK]", "场", "[SEP]"]
    assert logic.visible_tokens(tokens, 3, causal=True) == ["[CLS]", "我", "去", "[MASK]"]
    assert logic.visible_tokens(tokens, 3, causal=False) == tokens
    with pytest.raises(IndexError):
        logic.visible_tokens(tokens, 6, causal=True)


def test_crop_and_download_rows():
    matrix = np.arange(16.0).reshape(4, 4)
    shown, tokens = logic.crop(matrix, list("abcd"), limit=2)
    assert shown.tolist() == [[0, 1], [4, 5]] and tokens == ["a", "b"]
    rows = logic.attention_rows(tokens, {"causal": shown})
    assert rows[1] == ["causal", 0, 1, "a", "b", 1.0] and len(rows) == 4


@dataclass
class _Prediction:
    token: str
    prob: float


def test_prediction_rows_rank_from_one():
    rows = logic.prediction_rows("causal", [_Prediction("cinema", 0.51234567), _Prediction("park", 0.2)])
    assert rows == [["causal", 1, "cinema", 0.512346], ["causal", 2, "park", 0.2]]


def test_paired_maps_share_one_scale_and_keep_labels_literal():
    tokens = ["[CLS]", "<b>x</b>", "x", "x"]
    causal = np.tril(np.full((4, 4), 0.25))
    both, left = paired_maps(np.full((4, 4), 0.25), causal, tokens, titles=("b", "c"))
    scales = [traces(figure_of(chart), "heatmap")[0] for chart in (both, left)]
    assert scales[0]["zmax"] == scales[1]["zmax"] == 0.25 and scales[0]["zmin"] == scales[1]["zmin"] == 0
    assert scales[1]["x"][1] == "&lt;b&gt;x&lt;/b&gt;"  # escaped: plotly renders tags
    assert len(set(scales[1]["x"])) == 4  # repeated tokens keep their own columns
    assert (both.title, left.title) == ("b", "c")


def test_the_forced_first_causal_row_does_not_set_the_colour_scale():
    causal = np.array([[1.0, 0.0], [0.4, 0.6]])
    bidirectional = np.array([[0.5, 0.5], [0.3, 0.7]])
    both, left = paired_maps(bidirectional, causal, ["a", "b"], titles=("b", "c"))
    scales = [traces(figure_of(chart), "heatmap")[0] for chart in (both, left)]
    assert scales[0]["zmax"] == scales[1]["zmax"] == pytest.approx(0.7)
