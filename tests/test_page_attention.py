"""The attention page in both languages, driven through Streamlit's AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_helpers import (
    APP,
    HOSTILE_INPUTS,
    charts,
    data_downloads,
    heatmap_matrix,
    labels,
    open_app_page,
    panel_titles,
    pipelines,
    traces,
    written_stages,
)
from streamlit.testing.v1 import AppTest
from test_bertviz_view import embedded_params

from app.attention.bertviz_view import MAX_BERTVIZ_TOKENS
from app.core.i18n import strings_of

TEXT = strings_of("attention")
COMMON = strings_of("common")

SHORT = "She opened the door and walked into the room."  # 12 tokens with [CLS] and [SEP]


def open_page(lang: str = "en", text: str | None = SHORT) -> AppTest:
    return open_app_page("attention", lang, text=text)


def show(at: AppTest, section: str) -> AppTest:
    return at.segmented_control(key="w_attention_section").set_value(section).run()


def iframes(at: AppTest) -> list[str]:
    return [e.proto.srcdoc for e in at.get("iframe")]


def map_titles(at: AppTest) -> list[str]:
    return [option["chart_title"] for option in charts(at)[:2]]


def rows_sum_to_one(matrix: np.ndarray) -> bool:
    """Each row of a drawn map adds up to 1, but for the rounding of its cells (to 4 decimals) as sent."""
    return np.allclose(matrix.sum(axis=1), 1, atol=5e-5 * matrix.shape[1])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_explains_and_draws_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    # The two architectures drawn as pipelines in HTML (they reflow on a phone), GPT's first.
    assert pipelines(at)[0] == written_stages(COMMON["sketch_gpt"][lang]) + written_stages(COMMON["sketch_bert"][lang])
    assert TEXT["how_to_read"][lang] in " ".join(m.value for m in at.markdown)
    sections = at.segmented_control(key="w_attention_section")
    assert sections.options == [TEXT[f"section_{name}"][lang] for name in ("maps", "heads", "neuron", "bertviz")]
    assert sections.value == "maps"
    drawn = charts(at)
    assert len(drawn) == 2 and not iframes(at)  # the two maps side by side; the other sections wait for a click
    which = TEXT["head_label"][lang].format(layer=1, head=1)  # index 0, counted from 1 as every page counts
    assert map_titles(at) == [
        TEXT["bidirectional_title"][lang].format(which=which),
        TEXT["causal_title"][lang].format(which=which),
    ]
    bidirectional, causal = heatmap_matrix(drawn[0]), heatmap_matrix(drawn[1])
    assert rows_sum_to_one(bidirectional) and rows_sum_to_one(causal)
    assert np.all(np.triu(causal, k=1) == 0) and np.any(np.triu(bidirectional, k=1) > 0)
    assert len(data_downloads(at)) == 2  # the maps as CSV, every map as JSON
    assert [d["config"]["modeBarButtons"] for d in drawn] == [[["toImage", "zoom2d", "pan2d", "resetScale2d"]]] * 2

    show(at, "heads")
    assert not at.exception and at.query_params["attention_section"] == "heads"  # a shared link opens it
    (grid,) = charts(at)
    grid_titles = panel_titles(grid)
    assert grid_titles[:6] == [  # shares are written as whole percentages, entropy in bits
        TEXT[f"stat_{s}"][lang] + ("" if s == "entropy" else " (%)")
        for s in ("entropy", "cls", "sep", "self", "previous", "next")
    ]
    assert any(b.key.startswith("attention_show_") for b in at.button)  # notable heads come with a jump
    (findings,) = [m.value for m in at.markdown if m.value.startswith("- ")]
    # focused, broad, then the top head of each share (none for "next" under the causal mask: 6 or 7)
    assert len(findings.splitlines()) >= 6 and TEXT["notable_focused"][lang].split("{")[0] in findings
    assert len(data_downloads(at)) == 1 and not iframes(at)

    show(at, "bertviz")
    assert not at.exception and not charts(at)
    (html,) = iframes(at)
    assert html.startswith("<!DOCTYPE html>") and "[CLS]" in html
    assert f"{TEXT['bertviz_word_layer'][lang]} <select" in html  # bertviz's own words in the page's language
    # The head view holds every layer; only the model view, a row per layer, asks which layers to draw.
    assert not at.get("multiselect") and embedded_params(html)["include_layers"] == list(range(6))
    at.radio(key="w_attention_bertviz_view").set_value("model").run()
    layers = at.multiselect(key="w_attention_bertviz_layers")
    assert layers.options[0] == TEXT["layer_chip"][lang].format(layer=1) and layers.value == [0]  # index 0, layer 1


def test_layer_and_head_persist_in_state_and_average_disables_head():
    at = open_page()
    at.selectbox(key="w_layer").set_value(3).run()
    at.selectbox(key="w_head").set_value(7).run()
    assert not at.exception
    assert at.session_state["layer"] == 3 and at.session_state["head"] == 7
    assert at.query_params["layer"] == "3" and at.query_params["head"] == "7"  # a shared link keeps them
    assert map_titles(at)[0] == TEXT["bidirectional_title"]["en"].format(which="L4 H8")  # counted from 1
    at.toggle(key="w_attention_average").set_value(True).run()
    assert not at.exception and at.selectbox(key="w_head").disabled
    assert TEXT["average_label"]["en"].format(layer=4, heads=12) in map_titles(at)[0]
    assert at.session_state["head"] == 7  # averaging does not forget the chosen head


def test_hiding_special_tokens_with_and_without_rescaling():
    at = open_page()
    at.toggle(key="w_attention_hide").set_value(True).run()
    assert not at.exception
    shown = charts(at)[0]
    columns = traces(shown, "heatmap")[0]["x"]
    assert "[CLS]" not in columns and "[SEP]" not in columns
    assert rows_sum_to_one(heatmap_matrix(shown))
    assert TEXT["note_renormalized"]["en"] in [c.value for c in at.caption]
    at.checkbox(key="w_attention_renormalize").uncheck().run()
    assert np.all(heatmap_matrix(charts(at)[0]).sum(axis=1) < 1)
    assert TEXT["note_as_is"]["en"] in [c.value for c in at.caption]


def test_show_buttons_jump_to_the_notable_head_and_causal_stats():
    at = open_page()
    at.toggle(key="w_attention_average").set_value(True).run()
    show(at, "heads")
    shows = [b for b in at.button if b.key.startswith("attention_show_")]
    assert len({b.label for b in shows}) == len(shows)  # a head notable twice has one button
    key = shows[-1].key
    at.button(key=key).click().run()
    assert not at.exception and at.session_state["attention_section"] == "maps"  # the jump opens the maps
    layer, head = at.session_state["layer"], at.session_state["head"]
    assert shows[-1].label == TEXT["show_head"]["en"].format(layer=layer + 1, head=head + 1)
    assert at.toggle(key="w_attention_average").value is False
    assert map_titles(at)[0] == TEXT["bidirectional_title"]["en"].format(which=f"L{layer + 1} H{head + 1}")
    show(at, "heads")
    at.radio(key="attention_stats_mask").set_value("causal").run()
    assert not at.exception
    *_, next_share = traces(charts(at)[0], "heatmap")  # the last panel
    values = np.asarray(next_share["z"], dtype=float)
    assert values.shape == (6, 12) and np.all(values == 0)


def test_bertviz_views_layers_and_sentence_b():
    at = show(open_page(), "bertviz")
    at.radio(key="w_attention_bertviz_view").set_value("model").run()
    assert not at.exception and len(iframes(at)) == 1
    at.multiselect(key="w_attention_bertviz_layers").set_value([]).run()
    assert not iframes(at) and at.info[0].value == TEXT["bertviz_no_layers"]["en"]
    at.multiselect(key="w_attention_bertviz_layers").set_value([0, 5]).run()
    at.toggle(key="attention_use_pair").set_value(True).run()
    assert not at.exception
    (html,) = iframes(at)
    assert "The hall was warm" not in html  # tokens are lower-cased WordPieces, embedded as JSON
    assert '"hall"' in html and '"warm"' in html
    at.text_input(key="attention_pair").set_value("").run()
    assert not at.exception and at.warning
    # An emptied sentence stops the page before these widgets; typing again finds the choices as they were.
    at.text_input(key="attention_pair").set_value("It was late.").run()
    at.session_state["text"] = ""
    at.run()
    assert not iframes(at)
    at.session_state["text"] = "The room was dark."
    at.run()
    assert at.multiselect(key="w_attention_bertviz_layers").value == [0, 5]
    assert at.radio(key="w_attention_bertviz_view").value == "model"
    assert len(iframes(at)) == 1


def test_bertviz_choices_and_words_follow_a_language_switch():
    at = show(open_page("en"), "bertviz")
    at.radio(key="w_attention_bertviz_view").set_value("model").run()
    at.multiselect(key="w_attention_bertviz_layers").set_value([0, 5]).run()
    at.radio(key="w_lang").set_value("zh").run()
    assert not at.exception
    layers = at.multiselect(key="w_attention_bertviz_layers")
    assert layers.value == [0, 5] and layers.options[:2] == ["第 1 层", "第 2 层"]
    assert at.radio(key="w_attention_bertviz_view").value == "model"
    (html,) = iframes(at)
    assert '.text("头")' in html and '.text("Heads")' not in html


def test_too_many_tokens_for_bertviz_and_json_give_clear_messages():
    text = " ".join(["word"] * (MAX_BERTVIZ_TOKENS + 5))
    at = open_page("zh", text)
    n = MAX_BERTVIZ_TOKENS + 7
    assert len(data_downloads(at)) == 1  # CSV of the maps, no all-layers JSON
    assert TEXT["json_too_long"]["zh"].format(limit=64, n=n) in [c.value for c in at.caption]
    show(at, "bertviz")
    assert not iframes(at)
    assert TEXT["bertviz_too_long"]["zh"].format(limit=MAX_BERTVIZ_TOKENS, n=n) in [i.value for i in at.info]


def test_a_layer_beyond_the_model_is_clamped():
    at = open_app_page("attention", "en", layer=99, head=99)
    assert at.session_state["layer"] == 5 and at.session_state["head"] == 11
    assert at.query_params["layer"] == "5" and at.query_params["head"] == "11"


@pytest.mark.parametrize("name", list(HOSTILE_INPUTS))
def test_hostile_input_gives_a_message_not_a_traceback(name):
    at = open_page("en", HOSTILE_INPUTS[name])
    if name in ("empty", "whitespace"):
        assert COMMON["empty_input"]["en"] in [i.value for i in at.info] and not charts(at)
        return
    assert len(charts(at)) == 2
    if name == "long":
        assert "512" in " ".join(i.value for i in at.info)
    if name == "html":
        columns = traces(charts(at)[0], "heatmap")[0]["x"]
        # Plotly renders tags: the token arrives escaped, never as markup, and reads "<" once drawn.
        assert "&lt;" in columns and not any("<" in column for column in columns) and "<" in labels(columns)
    assert len(charts(show(at, "heads"))) == 1 and not at.exception
    show(at, "bertviz")
    assert not at.exception
    if name == "html":
        (html,) = iframes(at)
        assert "</script><script>alert" not in html


def test_a_layer_change_sends_bertviz_the_same_document():
    at = show(open_page(), "bertviz")
    (html,) = iframes(at)
    assert embedded_params(html)["include_layers"] == list(range(6)) and embedded_params(html)["layer"] is None
    # The view picks the layer from the page's URL in the browser (test_browser.py watches it switch), so a
    # change of layer sends the very same document: the frame is not reloaded.
    assert "get(name)" in html and 'var name = "layer"' in html
    at.selectbox(key="w_layer").set_value(3).run()
    assert not at.exception
    assert iframes(at) == [html] and at.query_params["layer"] == "3"
    assert map_titles(show(at, "maps"))[0] == TEXT["bidirectional_title"]["en"].format(which="L4 H1")


def test_a_shared_link_opens_a_section_and_a_bad_one_opens_the_maps():
    for raw in ("bertviz", "nonsense"):
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params.update({"lang": "en", "attention_section": raw})
        at.run()
        at.switch_page("pages/attention.py")
        at.run()
        assert not at.exception
        assert at.session_state["attention_section"] == ("bertviz" if raw == "bertviz" else "maps")
        assert len(iframes(at)) == (raw == "bertviz") and len(charts(at)) == 2 * (raw != "bertviz")
