"""The layers lab page in both languages, driven through Streamlit's AppTest.

Small sizes keep the runs short; the numbers themselves come from ``model.analysis`` (tested on its own in
``test_analysis.py``), so here the page must show them, in the right language, with its tables and downloads.
"""

from __future__ import annotations

import html

import numpy as np
import pytest
from apptest_helpers import charts, data_downloads, open_app_page, panel_titles

from app.core.i18n import strings_of
from model.checkpoint import load

TEXT = strings_of("layers")

N_LAYERS = load("embedded").config.num_hidden_layers + 1


def open_page(lang: str, **state):
    at = open_app_page("layers", lang, layers_train=20, layers_test=20, layers_contexts=8, **state)
    at.default_timeout = 300  # a run computes features: seconds alone, minutes on a shared, loaded machine
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_waits_then_probes_and_measures_in_each_language(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    infos = [i.value for i in at.info]
    assert infos[:2] == [TEXT["probe_waiting"][lang], TEXT["geometry_waiting"][lang]]
    corpus = TEXT[f"search_corpus_{lang}"][lang]  # the shared sentence is in the page's language
    assert infos[2:] in (
        [TEXT["search_waiting"][lang].format(corpus=corpus)],
        [TEXT["search_waiting_build"][lang].format(corpus=corpus)],
    )
    assert not charts(at)  # nothing runs before the button: a visit costs no CPU

    at.button(key="layers_run_probe").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    (accuracy,) = charts(at)
    task = "pos-en" if lang == "en" else "pos-zh"
    assert accuracy["chart_title"] == TEXT["accuracy_title"][lang].format(task=TEXT[f"task_{task}"][lang])
    names = [html.unescape(trace["name"]) for trace in accuracy["data"]]
    assert names == [TEXT[f"line_{k}"][lang] for k in ("selectivity", "pretrained", "random", "control")]
    # the expected layer and the majority baseline, each a line named with its value
    layout = accuracy["layout"]
    marks = {html.unescape(label["text"]) for label in layout["annotations"]}
    assert any(name.startswith(TEXT["majority_marker"][lang].split("{")[0]) for name in marks)
    assert len(layout["shapes"]) == len(marks) == 2  # each line with its name
    table = at.dataframe[0].value
    assert list(table.columns) == [
        TEXT[f"col_{k}"][lang] for k in ("layer", "pretrained", "random", "control", "selectivity")
    ]
    assert len(table) == N_LAYERS
    # the table and the plotted lines (in percent) are the same numbers, and selectivity is accuracy minus control
    line = accuracy["data"][1]
    plotted = [[layer, value / 100] for layer, value in zip(line["x"], line["y"])]
    assert plotted == [[layer, pytest.approx(value, abs=1e-4)] for layer, value in enumerate(table.iloc[:, 1])]
    assert (table.iloc[:, 1] - table.iloc[:, 3]).tolist() == pytest.approx(table.iloc[:, 4].tolist(), abs=2e-4)
    assert table.iloc[:, 1].max() > table.iloc[:, 3].max()  # the real task beats the control task somewhere

    at.button(key="layers_run_geometry").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    geometry, projection, view = charts(at)[1:]
    word = at.session_state["layers_word"]
    assert geometry["chart_title"] == TEXT["geometry_title"][lang].format(word=word)
    titles = panel_titles(projection)
    assert len(titles) == N_LAYERS and titles[0].startswith(TEXT["panel_title"][lang].split("{")[0])
    assert len([key for key in projection["layout"] if key.startswith("xaxis")]) == N_LAYERS
    # each point carries its label and its sentence, which the hover shows: the label, then the sentence
    for trace in projection["data"]:
        assert trace["hovertemplate"].index("customdata[0]") < trace["hovertemplate"].index("customdata[1]")
    per_layer = [0] * N_LAYERS
    for trace in projection["data"]:
        per_layer[int(trace["xaxis"][1:] or 1) - 1] += len(trace["x"])
    kept = per_layer[0]
    assert len(set(per_layer)) == 1 and 0 < kept <= at.session_state["layers_contexts"]  # every vector
    points = [point for trace in projection["data"] for point in trace["customdata"]]
    assert all(
        isinstance(label, str) and word.lower() in html.unescape(sentence.replace("<br>", "")).lower()
        for label, sentence in points
    )
    # The 3-D view: the same vectors at the last layer by default, on three principal components.
    last = N_LAYERS - 1
    assert view["chart_title"] == TEXT["projection_3d_title"][lang].format(word=word, layer=last)
    assert {trace["type"] for trace in view["data"]} == {"scatter3d"} and "scene" in view["layout"]
    assert sum(len(trace["x"]) for trace in view["data"]) == kept
    assert sorted(t["name"] for t in view["data"]) == sorted(t["name"] for t in projection["data"] if t["xaxis"] == "x")
    assert (
        view["config"]["modeBarButtons"][0][0] == "toImage" and "orbitRotation" in view["config"]["modeBarButtons"][0]
    )
    scene = view["layout"]["scene"]
    assert [scene[f"{name}axis"]["title"]["text"][:3] for name in "xyz"] == ["PC1", "PC2", "PC3"]
    at.slider(key="layers_projection_3d_layer").set_value(0).run(timeout=300)
    assert not at.exception
    assert charts(at)[-1]["chart_title"] == TEXT["projection_3d_title"][lang].format(word=word, layer=0)
    assert len(data_downloads(at)) == 5  # probe CSV+JSON, geometry CSV+JSON, projection CSV
    assert len(at.get("download_button")) == 5 + 4  # and each chart's HTML


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
    assert [w.value for w in at.warning] == [TEXT["word_error_too_few_other"]["en"].format(corpus=corpus, n=0)]
    at.text_input(key="w_layers_word").set_value("two words").run()
    assert [w.value for w in at.warning] == [TEXT["word_error_not_one_word"]["en"]]


def test_pca_3d_projects_on_the_three_directions_of_most_variance():
    from app.layers.logic import pca_3d

    rng = np.random.default_rng(0)
    # Ten points spread along three known axes of a 16-dimensional space, most along the first.
    basis = np.linalg.qr(rng.normal(size=(16, 3)))[0].T
    spread = rng.normal(size=(10, 3)) * [9.0, 3.0, 1.0]
    coords, explained = pca_3d(spread @ basis + 5.0)
    assert coords.shape == (10, 3) and explained.shape == (3,)
    assert explained.sum() == pytest.approx(1.0, abs=1e-5) and list(explained) == sorted(explained, reverse=True)
    # The distances between the points are kept: the three components hold all of their spread.
    distances = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    assert np.allclose(distances, np.linalg.norm(spread[:, None] - spread[None], axis=-1), atol=1e-3)
    two, shares = pca_3d(rng.normal(size=(2, 16)))  # two points: one direction, the others zero
    assert np.allclose(two[:, 1:], 0) and shares[1] == pytest.approx(0, abs=1e-9) and shares[2] == 0


def test_probes_measured_once_are_read_back_by_a_later_server(monkeypatch, tmp_path):
    """A second server (here: caches cleared) shows the same report without computing a vector."""
    import streamlit as st

    from app.layers import logic
    from model.analysis import lab

    monkeypatch.setenv("BERT_LAB_CACHE", str(tmp_path))
    st.cache_data.clear()  # a report another test of this process left in memory would never reach the disk
    logic._features.clear()
    first = open_page("en")
    first.button(key="layers_run_probe").click().run(timeout=300)
    measured = first.dataframe[0].value
    assert list((tmp_path / "probes").glob("pos-en-pretrained-20-20-control-*.json"))

    st.cache_data.clear()
    logic._features.clear()
    monkeypatch.setattr(lab, "probe_features", lambda *a, **k: pytest.fail("the vectors were computed again"))
    again = open_page("en")
    again.button(key="layers_run_probe").click().run(timeout=300)
    assert not again.exception, again.exception[0].message if again.exception else ""
    assert again.dataframe[0].value.equals(measured)
