"""The embeddings page (输入表示) in both languages, driven through Streamlit's AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_helpers import (
    HOSTILE_INPUTS,
    charts,
    data_downloads,
    heatmap_matrix,
    labels,
    open_app_page,
    panel_titles,
)
from streamlit.testing.v1 import AppTest

from app.core.i18n import strings_of

COMMON = strings_of("common")
TEXT = strings_of("embeddings")


def open_page(lang: str, text: str | None = None) -> AppTest:
    return open_app_page("embeddings", lang, text=text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_explains_and_draws_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    markdown = " ".join(m.value for m in at.markdown)
    example = (
        "`[CLS]` `我` `爱` `[MASK]`" if lang == "zh" else "`[CLS]` `my` `dog` `is` `[MASK]`"
    )  # the reader's language, as text that wraps on a phone
    assert example in markdown
    summed = "三者相加 → BERT 的输入" if lang == "zh" else "The three are added → BERT's input"
    assert summed in markdown
    assert TEXT["explain"][lang] in markdown
    assert TEXT["sum_check"][lang].split("{")[0] in markdown
    # The open tab's part heatmap (the token's), the token's vectors, its norms, the position similarity.
    drawn = charts(at)
    assert len(drawn) == 4
    assert drawn[0]["chart_title"] == TEXT["heatmap_title"][lang].format(part=TEXT["part_token"][lang], dims=32)
    assert labels([drawn[1]["data"][4]["name"]]) == [TEXT["recomposed"][lang]]
    assert panel_titles(drawn[1]) == [TEXT["panel_parts"][lang], TEXT["panel_normalized"][lang]]
    assert drawn[2]["chart_title"] == TEXT["norms_title"][lang]
    assert labels(drawn[2]["data"][0]["y"]) == [
        TEXT[f"part_{p}"][lang] for p in ("token", "segment", "position", "sum", "normalized")
    ]
    assert drawn[3]["chart_title"] == TEXT["position_heatmap_title"][lang]
    assert labels([drawn[3]["layout"]["xaxis"]["title"]["text"]]) == [TEXT["position_axis"][lang]]
    similarity = heatmap_matrix(drawn[3])
    assert np.allclose(np.diag(similarity), 1.0, atol=1e-3) and np.allclose(similarity, similarity.T)
    assert len(at.dataframe) == 1 and len(data_downloads(at)) == 3
    parts = ("token", "segment", "position", "sum", "normalized")
    assert [tab.label for tab in at.tabs] == [TEXT[f"part_{p}"][lang] for p in parts]


def test_each_tab_draws_its_own_part_and_only_the_open_one():
    at = open_page("en")
    for part in ("position", "normalized"):
        at.session_state["embeddings_part"] = TEXT[f"part_{part}"]["en"]  # as a click on the tab sets it
        at.run()
        assert not at.exception
        drawn = charts(at)
        assert len(drawn) == 4
        assert drawn[0]["chart_title"] == TEXT["heatmap_title"]["en"].format(part=TEXT[f"part_{part}"]["en"], dims=32)


def test_dimension_slider_and_token_choice_change_the_charts():
    at = open_page("en")
    assert heatmap_matrix(charts(at)[0]).shape[1] == 32
    at.slider(key="embeddings_dims").set_value(8).run()
    assert not at.exception
    drawn = charts(at)
    assert heatmap_matrix(drawn[0]).shape[1] == 8 and len(drawn[1]["data"][0]["x"]) == 8
    norms_before = list(drawn[2]["data"][0]["x"])
    at.selectbox(key="embeddings_token").set_value(0).run()  # [CLS]
    assert not at.exception
    assert list(charts(at)[2]["data"][0]["x"]) != norms_before


def test_sentence_b_gets_segment_b():
    at = open_page("zh", "我去看电影")
    segments = at.dataframe[0].value["segment"].tolist()
    assert set(segments) == {"A"}
    at.toggle(key="embeddings_use_pair").set_value(True).run()
    assert not at.exception
    assert at.text_input(key="embeddings_pair").value == TEXT["default_pair"]["zh"]
    segments = at.dataframe[0].value["segment"].tolist()
    assert segments[0] == "A" and segments[-1] == "B" and "B" in segments
    at.text_input(key="embeddings_pair").set_value("  ").run()
    assert not at.exception and at.warning  # an empty sentence B is explained, not a traceback


@pytest.mark.parametrize("name", list(HOSTILE_INPUTS))
def test_hostile_input_gives_a_message_not_a_traceback(name):
    at = open_page("en", HOSTILE_INPUTS[name])
    if name in ("empty", "whitespace"):
        assert COMMON["empty_input"]["en"] in [i.value for i in at.info] and not charts(at)
        return
    assert charts(at)
    if name == "long":
        info = " ".join(i.value for i in at.info)
        assert "512" in info
        captions = " ".join(c.value for c in at.caption)
        assert TEXT["downloads_limited"]["en"].format(n=512, limit=128) in captions
    if name == "html":
        tokens = at.dataframe[0].value["token"].tolist()
        assert "<" in tokens and "script" in tokens  # the text is shown as text, token by token
