"""The overview page in both languages (AppTest), and its table and chart builders."""

from __future__ import annotations

import shutil

import pytest
from apptest_helpers import figures, open_app_page
from streamlit.testing.v1 import AppTest

from app.charts import overview as charts
from app.navigation import PAGE_FILES, PAGES_DIR
from app.text.common import TEXT as COMMON
from app.text.overview import TEXT
from model.modeling import BertConfig, bert_base, bert_large, count_parameters


def open_page(lang: str = "en", **state) -> AppTest:
    return open_app_page("overview", lang, **state)


# The page ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_overview_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    headers = [h.value for h in at.header]
    assert headers[:2] == [TEXT["paradigm_header"][lang], TEXT["sizes_header"][lang]]
    assert TEXT["why_header"][lang] in headers
    paradigm, parameters, results = figures(at)
    paradigm_text = [a["text"].replace("<br>", " ") for a in paradigm["layout"]["annotations"]]  # as wrapped to fit
    for step in TEXT["pretrain_steps"][lang].split("|") + TEXT["finetune_steps"][lang].split("|"):
        assert step in paradigm_text
    assert [trace["name"] for trace in parameters["data"][:4]] == [TEXT[f"row_{p}"][lang] for p in charts.PARTS]
    assert [trace["y"] for trace in results["data"]] == [[72.8, 91.7, 78.0, 78.0], [80.5, 93.2, 83.1, 86.3]]

    sizes = at.table[0].value  # indexed by the quantity
    base, large, loaded = sizes.columns
    totals = sizes.loc[TEXT["row_total"][lang]]
    assert totals[base] == count_parameters(bert_base())["total"]
    assert totals[large] == count_parameters(bert_large())["total"]
    assert loaded == TEXT["model_loaded"][lang].format(name=COMMON["model_embedded_name"][lang])

    gains = at.table[1].value.iloc[:, 2].tolist()
    assert gains == [7.7, 1.5, 5.1, 8.3]  # the gains the paper states
    assert TEXT["why_points"][lang] in [m.value for m in at.markdown]
    existing = [n for n in PAGE_FILES if n != "overview" and (PAGES_DIR / f"{n}.py").exists()]
    assert len(at.get("page_link")) == len(existing)
    assert len(at.get("download_button")) == 2  # CSV of each table


def test_loaded_model_card_and_sizes(hf_checkpoint, tmp_path):
    folder = tmp_path / "tiny-bert"
    shutil.copytree(hf_checkpoint[0], folder)
    (folder / "README.md").write_text("# Tiny test model\n\nTrained on nothing at all.", encoding="utf-8")
    at = open_page("en", model_choice="folder", model_folder=str(folder))
    assert at.expander[0].label == TEXT["card_expander"]["en"]
    assert "# Tiny test model" in next(m.value for m in at.expander[0].markdown)
    sizes = at.table[0].value
    loaded = TEXT["model_loaded"]["en"].format(name="tiny-bert")
    assert sizes.loc[TEXT["row_layers"]["en"], loaded] == 2
    assert sizes.loc[TEXT["row_hidden"]["en"], loaded] == 32


@pytest.mark.parametrize("text", ["", "</script><script>alert(1)</script> **bold** <b>x</b>", "x" * 10_000])
def test_any_sentence_leaves_the_overview_intact(text):
    at = open_page("zh", text=text)
    assert len(figures(at)) == 3


# Builders -------------------------------------------------------------------------------------------------------


def test_parameter_parts_add_up_and_match_the_paper():
    for config, paper in ((bert_base(), 110e6), (bert_large(), 340e6)):
        parts = charts.parameters_by_part(config)
        assert sum(parts[p] for p in charts.PARTS) == parts["total"] == count_parameters(config)["total"]
        assert abs(parts["total"] - paper) / paper < 0.02  # the paper rounds to 110M and 340M


def test_size_table_has_one_column_per_config():
    tiny = BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32)
    table = charts.size_table([bert_base(), tiny])
    assert list(table) == ["layers", "hidden", "attention_heads", "ffn", "vocab", *charts.PARTS, "total"]
    assert table["layers"] == [12, 2] and table["attention_heads"] == [12, 2] and table["vocab"] == [30522, 100]
    assert table["total"][1] == count_parameters(tiny)["total"]


def test_results_rows_round_the_gain():
    assert [row[3] for row in charts.results_rows()] == [7.7, 1.5, 5.1, 8.3]  # the gains the paper states
    assert charts.results_rows([("x", 0.1, 0.3)]) == [("x", 0.1, 0.3, 0.2)]


def test_parameter_bars_stack_parts_in_millions():
    counts = [charts.parameters_by_part(bert_base()), charts.parameters_by_part(bert_large())]
    labels = {p: p.upper() for p in charts.PARTS}
    fig = charts.parameter_bars(["base", "large"], counts, labels, title="t", axis="M")
    assert fig.layout.barmode == "stack"
    assert [trace.name for trace in fig.data[:4]] == ["EMBEDDINGS", "ENCODER", "POOLER", "HEADS"]
    assert sum(trace.x[0] for trace in fig.data[:4]) == pytest.approx(counts[0]["total"] / 1e6)
    assert fig.data[4].text == ("110.1M", "336.2M")


def test_results_bars_group_previous_best_and_bert():
    fig = charts.results_bars(
        ["a", "b"], [80.0, 70.0], [85.0, 75.0], before_label="before", bert_label="BERT", title="t", axis="s"
    )
    assert fig.layout.barmode == "group" and [trace.name for trace in fig.data] == ["before", "BERT"]
    assert fig.layout.yaxis.range[0] < 70.0


def test_paradigm_figure_draws_every_step_and_the_connector():
    fig = charts.paradigm_figure("big", ["a", "b", "c"], "once", "small", ["d", "e", "f"], "fast")
    texts = [a.text for a in fig.layout.annotations]
    for label in ("a", "b", "c", "d", "e", "f", "<b>big</b>", "<b>small</b>", "once", "fast"):
        assert label in texts
    assert sum(shape.type == "rect" for shape in fig.layout.shapes) == 6
    assert sum(shape.type == "path" for shape in fig.layout.shapes) == 1


@pytest.mark.parametrize(
    ("folder", "lang", "message"),
    [
        ("/tmp/" + "y" * 300, "zh", "无法加载该模型：无法读取 /tmp/yyyy"),  # a name longer than the file system allows
        ("/nonexistent/路径", "zh", "无法加载该模型：/nonexistent/路径：找不到这个文件夹。"),
        ("/", "en", "Could not load this model: /config.json is missing: is this a BERT checkpoint folder?"),
    ],
)
def test_a_model_folder_that_cannot_load_falls_back_with_a_message(folder, lang, message):
    at = open_page(lang, model_choice="folder", model_folder=folder)
    assert not at.exception
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and errors[0].startswith(message)
    assert len(errors[0]) < 200  # the typed path is shortened, not echoed whole
    assert at.table[0].value.columns[2] == TEXT["model_loaded"][lang].format(name=COMMON["model_embedded_name"][lang])
    assert len(figures(at)) == 3
