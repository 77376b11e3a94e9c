"""The fill-mask page in both languages, driven through Streamlit's AppTest."""

from __future__ import annotations

import pytest
from apptest_helpers import figures, open_app_page
from streamlit.testing.v1 import AppTest

from app.text.common import TEXT as COMMON
from app.text.fill_mask import TEXT


def open_page(lang: str, text: str | None = None) -> AppTest:
    return open_app_page("fill_mask", lang, text=text)


def fill_tab(at: AppTest):
    """The first tab, where the [MASK]s are filled (the second scores whole sentences)."""
    return at.tabs[0]


def score_tab(at: AppTest):
    return at.tabs[1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_mask_explains_then_example_predicts(lang):
    at = open_page(lang)  # the default sentence has no [MASK]
    assert at.title[0].value == TEXT["title"][lang]
    assert any(TEXT["no_mask"][lang][:20] in i.value for i in at.info)
    assert "我去___场看电影" in at.code[0].value
    assert at.button_group  # the clickable tokens
    at.button(key="fill_mask_example_zh").click().run()
    assert not at.exception
    assert at.session_state["text"] == "我去[MASK]场看电影"
    charts = figures(fill_tab(at))
    assert len(charts) == 2  # one [MASK]: bidirectional and causal
    assert charts[0]["layout"]["title"]["text"] == TEXT["bidirectional_title"][lang]
    assert charts[1]["layout"]["title"]["text"] == TEXT["causal_title"][lang]
    assert len(charts[0]["data"][0]["y"]) == 5
    seen_from_left = TEXT["context"][lang].split("{left}")[0]
    assert any(c.value.startswith(seen_from_left + "我") for c in at.caption)  # only "我去" lies to the left
    assert len(fill_tab(at).get("download_button")) == 2


def test_clicking_tokens_masks_them_and_clicking_again_restores():
    at = open_page("en", "She opened the door and walked into the room.")
    pills = at.button_group[0]
    assert pills.options[:3] == ["she", "opened", "the"]
    assert pills.options[7] != pills.options[2]  # the second "the" is its own button
    pills.set_value([4, 8]).run()  # values are token positions: "door" and the second "the"
    assert not at.exception
    assert at.session_state["text"] == "She opened the [MASK] and walked into [MASK] room."
    assert len(figures(fill_tab(at))) == 4
    at.button_group[0].set_value([4]).run()
    assert at.session_state["text"] == "She opened the [MASK] and walked into the room."
    at.button_group[0].set_value([]).run()
    assert at.session_state["text"] == "She opened the door and walked into the room."
    assert at.info  # no mask left: the explanation again


def test_top_k_slider_changes_the_bars():
    at = open_page("en", "She opened the [MASK].")
    at.slider(key="fill_mask_top_k").set_value(12).run()
    assert not at.exception
    assert all(len(chart["data"][0]["y"]) == 12 for chart in figures(fill_tab(at)))
    at.slider(key="fill_mask_top_k").set_value(1).run()
    assert all(len(chart["data"][0]["y"]) == 1 for chart in figures(fill_tab(at)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hostile_inputs_never_raise(lang):
    at = open_page(lang)
    cases = {
        "": "info",
        "   ": "info",
        "[MASK]": 2,
        "[MASK]" * 2000: 40,
        "a" * 10_000: "info",
        "😀 [MASK] 🎉": 2,
        "</script><script>alert(1)</script> **bold** <b>x</b> [MASK]": 2,
        "مرحبا [MASK] שלום": 2,
        "x" * 30_000: "warning",
    }
    for text, expected in cases.items():
        at.session_state["text"] = text
        at.run()
        assert not at.exception, text[:40]
        if expected == "info":
            assert at.info
        elif expected == "warning":
            assert at.warning
        else:
            assert len(fill_tab(at).get("plotly_chart")) == expected, text[:40]
    at.session_state["text"] = "word " * 600 + "The [MASK] is red."  # the only [MASK] is past the 512th token
    at.run()
    assert not at.exception and not fill_tab(at).get("plotly_chart")
    assert [w.value for w in at.warning] == [COMMON["error_mask_cut_off"][lang].format(limit=512)]
    at.session_state["text"] = "[MASK]" * 2000
    at.run()
    assert any("20" in i.value for i in at.info)  # only the first 20 masks get panels, and the page says so
