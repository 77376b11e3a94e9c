"""The overview page in both languages (AppTest), and its table and chart builders."""

from __future__ import annotations

import html
import re
import shutil

import pytest
from apptest_helpers import open_app_page, static_figures
from streamlit.testing.v1 import AppTest

from app.core.i18n import strings_of
from app.core.navigation import PAGE_FILES, PAGES_DIR
from app.overview import charts
from model.modeling import BertConfig, bert_base, bert_large, count_parameters

COMMON = strings_of("common")
TEXT = strings_of("overview")


def open_page(lang: str = "en", **state) -> AppTest:
    return open_app_page("overview", lang, **state)


def boxes(markup: str) -> list[str]:
    """The steps of the paradigm diagram, as they read."""
    return [html.unescape(m) for m in re.findall(r'<div class="step">([^<]*)</div>', markup)]


def legend(markup: str) -> list[str]:
    return [html.unescape(m) for m in re.findall(r"<li><i [^>]*></i>([^<]*)</li>", markup)]


def bars(markup: str) -> list[tuple[float, str]]:
    """Each bar of a bar figure: its length (% of the track) and the value written after it."""
    return [
        (float(w), v)
        for w, v in re.findall(r'<div class="bar"><span style="width:([\d.]+)%">.*?</span>([^<]*)</div>', markup)
    ]


def segments(markup: str) -> list[list[float]]:
    """Each bar's segments: their shares of the bar (%)."""
    return [
        [float(w) for w in re.findall(r'<i style="width:([\d.]+)%', bar)]
        for bar in re.findall(r'<div class="bar">(.*?)</div>', markup)
    ]


# The page ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_overview_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    headers = [h.value for h in at.header]
    assert headers[:2] == [TEXT["paradigm_header"][lang], TEXT["sizes_header"][lang]]
    assert TEXT["why_header"][lang] in headers
    paradigm, parameters, results = static_figures(at)
    assert boxes(paradigm) == TEXT["pretrain_steps"][lang].split("|") + TEXT["finetune_steps"][lang].split("|")
    assert legend(parameters) == [TEXT[f"row_{p}"][lang] for p in charts.PARTS]
    assert [value for _, value in bars(results)] == ["72.8", "80.5", "91.7", "93.2", "78.0", "83.1", "78.0", "86.3"]
    assert not at.get("plotly_chart")  # the first page a student opens loads no chart library

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
    assert len(static_figures(at)) == 3


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
    markup = charts.parameter_bars(["base", "large"], counts, labels, title="t")
    assert legend(markup) == ["EMBEDDINGS", "ENCODER", "POOLER", "HEADS"]
    (base, base_total), (large, large_total) = bars(markup)
    assert (base_total, large_total) == ("110.1M", "336.2M")
    assert large == pytest.approx(100 * charts.BAR_ROOM, abs=1e-3)  # the largest fills the room for bars
    assert base / large == pytest.approx(counts[0]["total"] / counts[1]["total"], rel=1e-4)
    for bar, count in zip(segments(markup), counts):
        assert sum(bar) == pytest.approx(100, abs=0.01)
        assert bar[1] / 100 == pytest.approx(count["encoder"] / count["total"], abs=1e-5)


def test_results_bars_start_from_zero():
    markup = charts.results_bars(
        ["a", "b"], [80.0, 70.0], [85.0, 75.0], before_label="before", bert_label="BERT", title="t"
    )
    assert legend(markup) == ["before", "BERT"]
    assert bars(markup) == [(pytest.approx(score * charts.BAR_ROOM), f"{score:.1f}") for score in (80, 85, 70, 75)]
    assert markup.count(charts.GREY) == 2 + 1  # the previous best's bars and its legend key


def test_paradigm_figure_draws_every_step_in_order():
    markup = charts.paradigm_figure("big", ["a", "b", "c"], "once", "small", ["d", "e", "f"], "fast")
    assert boxes(markup) == ["a", "b", "c", "d", "e", "f"]
    heads = re.findall(r'<div class="stage-head"><strong>([^<]*)</strong><span>([^<]*)</span>', markup)
    assert heads == [("big", "once"), ("small", "fast")]
    assert markup.count('class="carry"') == 1  # the arrow from the one stage into the other


def test_figures_show_markup_in_their_labels_as_text():
    """A model's name is the folder the reader typed; a step is our own text: both are written, never run."""
    hostile = '<img src=x onerror="alert(1)">'
    counts = [charts.parameters_by_part(bert_base())]
    markups = [
        charts.parameter_bars([hostile], counts, {p: hostile for p in charts.PARTS}, title=hostile),
        charts.results_bars([hostile], [1.0], [2.0], before_label=hostile, bert_label=hostile, title=hostile),
        charts.paradigm_figure(hostile, [hostile], hostile, hostile, [hostile], hostile),
    ]
    for markup in markups:
        assert "<img" not in markup and html.escape(hostile) in markup


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
    assert len(static_figures(at)) == 3
