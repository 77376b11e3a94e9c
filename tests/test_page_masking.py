"""The MLM masking page in both languages, driven through Streamlit's AppTest."""

from __future__ import annotations

import re

import pytest
from apptest_helpers import (
    charts,
    data_downloads,
    open_app_page,
    read_boxes,
    read_legend,
    static_figures,
)
from streamlit.testing.v1 import AppTest

from app.core.i18n import strings_of
from app.masking.charts import OUTCOME_COLORS
from app.masking.logic import NOT_CANDIDATE
from model.training.pretraining_data import MASKED

TEXT = strings_of("masking")

LONG_EN = "She opened the door and walked into the room, and the cinema was dark and the film was already playing."


def open_page(lang: str, text: str | None = None) -> AppTest:
    return open_app_page("masking", lang, text=text)


def strip_cells(at: AppTest) -> list[tuple[int, list[str]]]:
    """Every box of the token strip: the outcome its colour says, and its lines (original, read, label)."""
    _, *boxes = read_boxes(static_figures(at)[0])
    return [(OUTCOME_COLORS.index(fill), lines) for _, fill, _, lines in boxes]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_explains_and_draws_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    markdown = " ".join(m.value for m in at.markdown)
    assert TEXT["why_body"][lang] in markdown and TEXT["reasons_body"][lang] in markdown
    code = markdown  # the recipe's three cases, a table that reflows
    if lang == "zh":
        assert "我去 [MASK] 场看电影" in code and "我去 操 场看电影" in code and "我去 剧 场看电影" in code
    else:  # the English page teaches with an English sentence
        assert "He went to the [MASK] to swim." in code and "He went to the apple to swim." in code
    assert len(static_figures(at)) == 1 and not charts(at)  # the token strip, in HTML
    key, *boxes = read_boxes(static_figures(at)[0])
    assert key[3] == [TEXT[f"row_{row}"][lang] for row in ("original", "read", "label")]
    originals = [lines[0] for *_, lines in boxes]
    assert originals[0] == "[CLS]" and originals[-1] == "[SEP]"
    legend = dict(read_legend(static_figures(at)[0]))
    assert legend[TEXT["legend_masked"][lang]] == OUTCOME_COLORS[MASKED] and TEXT["legend_random"][lang] in legend
    assert len(data_downloads(at)) == 2
    assert at.dataframe  # the labels table


def test_draw_again_changes_seed_and_draw_and_a_typed_seed_reproduces():
    at = open_page("en", LONG_EN)
    first_seed, first_cells = at.number_input(key="w_masking_seed").value, strip_cells(at)
    at.button(key="masking_draw_again").click().run()
    assert not at.exception
    second_seed = at.number_input(key="w_masking_seed").value
    assert second_seed != first_seed and strip_cells(at) != first_cells
    assert f"**{second_seed}**" in " ".join(m.value for m in at.markdown)
    at.number_input(key="w_masking_seed").set_value(first_seed).run()
    assert strip_cells(at) == first_cells


def test_sliders_change_the_draw():
    at = open_page("en", LONG_EN)
    at.slider(key="w_masking_rate").set_value(100).run()
    at.slider(key="w_masking_split").set_value((100, 100)).run()
    assert not at.exception
    cells = strip_cells(at)
    assert {code for code, _ in cells} == {MASKED, NOT_CANDIDATE}  # every candidate masked; [CLS]/[SEP] never
    for code, (original, read, label) in cells:
        assert (read, label) == (("[MASK]", original) if code == MASKED else (original, ""))
    assert "**100%** → [MASK]" in " ".join(m.value for m in at.markdown)
    at.toggle(key="w_masking_whole_word").set_value(True).run()
    assert not at.exception


def test_predictions_and_many_draws():
    at = open_page("zh", "我去电影院看电影，电影很好看。")
    at.toggle(key="masking_predict").set_value(True).run()
    assert not at.exception
    columns = list(at.dataframe[1].value.columns)
    assert "第 1 猜测" in columns and "P(原词)" in columns
    at.button(key="masking_run_draws").click().run()
    assert not at.exception
    (chart,) = charts(at)
    lines = chart["data"]
    assert len(lines) == 8 and chart["layout"]["xaxis"]["type"] == "log"
    assert lines[0]["x"].tolist() == list(range(1, 1001))
    table = at.dataframe[-1].value
    assert list(table["目标"]) == pytest.approx([0.15, 0.8, 0.1, 0.1])
    # Each share ends where the table says, and its dashed target is the table's target, both in percent.
    ends = [line["y"][-1] for line in lines[::2]]
    assert ends == pytest.approx(100 * table["实际"].to_numpy(), abs=0.005)
    assert [line["y"][0] for line in lines[1::2]] == pytest.approx(100 * table["目标"].to_numpy())
    assert "抽取 1,000 次后" in chart["alt"]  # the summary is the chart's accessible name
    # The chart follows the settings once requested.
    at.slider(key="w_masking_split").set_value((50, 75)).run()
    target = charts(at)[0]["data"][3]
    assert (target["x"], target["y"]) == ([1, 1000], [50.0, 50.0])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hostile_inputs_never_raise(lang):
    at = open_page(lang)
    cases = {
        "": "info",
        "   \n ": "info",
        "[MASK]": "warning",
        "a" * 10_000: None,
        "😀🎉 emoji 🚀": None,
        "</script><script>alert(1)</script> **bold** <b>x</b>": None,
        "مرحبا بالعالم שלום עולם": None,
        "word " * 4_000: None,  # 20,000 characters: more tokens than the model takes
    }
    for text, message in cases.items():
        at.session_state["text"] = text
        at.run()
        assert not at.exception, text[:40]
        if message == "info":
            assert at.info
        elif message == "warning":
            assert at.warning
        else:
            assert static_figures(at)
    at.session_state["text"] = "word " * 600
    at.run()
    assert any("512" in i.value for i in at.info)  # truncation notice
    assert any("128" in c.value for c in at.caption)  # the strip shows a part, and says so


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_english_piece_in_a_chinese_sentence_is_explained(lang):
    at = open_page(lang, "我去电影院看电影，电影很好看。")
    at.slider(key="w_masking_rate").set_value(100).run()
    at.slider(key="w_masking_split").set_value((0, 100)).run()  # every chosen token replaced at random
    assert not at.exception
    lead = TEXT["random_from_vocabulary"][lang].split("{tokens}")[0]
    notes = [c.value for c in at.caption if c.value.startswith(lead)]
    assert len(notes) == 1 and re.search(r"[a-z#]", notes[0][len(lead) :])  # names the foreign pieces
    at.slider(key="w_masking_split").set_value((100, 100)).run()  # every chosen token → [MASK]: nothing foreign
    assert not [c.value for c in at.caption if c.value.startswith(lead)]


def test_the_labels_table_counts_positions_from_one():
    at = open_page("en", "She opened a door.")
    at.slider(key="w_masking_rate").set_value(100).run()
    positions = at.dataframe[0].value.iloc[:, 0].tolist()
    assert positions == [2, 3, 4, 5, 6]  # [CLS] is token 1; "she" … "." are 2 to 6
