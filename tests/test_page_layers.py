"""The layers lab page in both languages, driven through Streamlit's AppTest.

Small sizes keep the runs short; the numbers themselves come from ``model.analysis`` (tested on its own in
``test_analysis.py``), so here the page must show them, in the right language, with its tables and downloads.
"""

from __future__ import annotations

import pytest
from apptest_helpers import charts, open_app_page

from app.layers.text import TEXT
from model.checkpoint import load

N_LAYERS = load("embedded").config.num_hidden_layers + 1


def open_page(lang: str, **state):
    at = open_app_page("layers", lang, layers_train=20, layers_test=20, layers_contexts=8, **state)
    at.default_timeout = 300  # a run computes features: seconds alone, minutes on a shared, loaded machine
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_waits_then_probes_and_measures_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    assert [i.value for i in at.info][1:] == [TEXT["probe_waiting"][lang], TEXT["geometry_waiting"][lang]]
    assert not charts(at)  # nothing runs before the button: a visit costs no CPU

    at.button(key="layers_run_probe").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    (accuracy,) = charts(at)
    task = "pos-en" if lang == "en" else "pos-zh"
    assert accuracy["chart_title"] == TEXT["accuracy_title"][lang].format(task=TEXT[f"task_{task}"][lang])
    names = [series["name"] for series in accuracy["series"]]
    assert names == [TEXT[f"line_{k}"][lang] for k in ("selectivity", "pretrained", "random", "control")]
    # the expected layer and the majority baseline, each a line named with its value
    marks = {mark["name"] for mark in accuracy["series"][1]["markLine"]["data"]}
    assert any(name.startswith(TEXT["majority_marker"][lang].split("{")[0]) for name in marks)
    table = at.dataframe[0].value
    assert list(table.columns) == [
        TEXT[f"col_{k}"][lang] for k in ("layer", "pretrained", "random", "control", "selectivity")
    ]
    assert len(table) == N_LAYERS
    # the table and the plotted lines (in percent) are the same numbers, and selectivity is accuracy minus control
    plotted = [[layer, value / 100] for layer, value in accuracy["series"][1]["data"]]
    assert plotted == [[layer, pytest.approx(value, abs=1e-4)] for layer, value in enumerate(table.iloc[:, 1])]
    assert (table.iloc[:, 1] - table.iloc[:, 3]).tolist() == pytest.approx(table.iloc[:, 4].tolist(), abs=2e-4)
    assert table.iloc[:, 1].max() > table.iloc[:, 3].max()  # the real task beats the control task somewhere

    at.button(key="layers_run_geometry").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    geometry, projection = charts(at)[1:]
    word = at.session_state["layers_word"]
    assert geometry["chart_title"] == TEXT["geometry_title"][lang].format(word=word)
    panel_titles = [title["text"] for title in projection["title"]]
    assert len(panel_titles) == N_LAYERS and panel_titles[0].startswith(TEXT["panel_title"][lang].split("{")[0])
    assert len(projection["grid"]) == N_LAYERS
    # each point carries its label and its sentence, which the tooltip shows: the label, then the sentence
    assert projection["tooltip"]["formatter"].index("{@[2]}") < projection["tooltip"]["formatter"].index("{@[3]}")
    per_layer = [0] * N_LAYERS
    for series in projection["series"]:
        per_layer[series["xAxisIndex"]] += len(series["data"])
    assert len(set(per_layer)) == 1 and 0 < per_layer[0] <= at.session_state["layers_contexts"]  # every vector
    points = [point for series in projection["series"] for point in series["data"]]
    assert all(isinstance(label, str) and word.lower() in sentence.lower() for _, _, label, sentence in points)
    assert len(at.get("download_button")) == 5  # probe CSV+JSON, geometry CSV+JSON, projection CSV


def test_task_and_word_come_from_a_shared_link():
    from apptest_helpers import APP
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update(
        {
            "layers_task": "ner-zh",
            "layers_word": "打",
            "layers_train": "20",
            "layers_test": "20",
            "layers_contexts": "6",
            "layers_probe_ran": "1",
        }
    )
    at.session_state["lang"] = "en"
    at.run()
    at.switch_page("pages/layers.py")
    at.run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    assert at.session_state["layers_task"] == "ner-zh" and at.session_state["layers_word"] == "打"
    assert charts(at)[0]["chart_title"].startswith(TEXT["task_ner-zh"]["en"])


def test_a_word_the_corpus_lacks_is_explained():
    at = open_page("en", layers_word="qqqzzz", layers_geometry_ran=True)
    corpus = TEXT["corpus_en"]["en"]
    assert [w.value for w in at.warning] == [TEXT["word_error_too_few"]["en"].format(corpus=corpus, n=0)]
    at.text_input(key="w_layers_word").set_value("two words").run()
    assert [w.value for w in at.warning] == [TEXT["word_error_not_one_word"]["en"]]
