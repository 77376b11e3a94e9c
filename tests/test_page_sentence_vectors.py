"""The sentence-vectors page in both languages (AppTest): its figures and neighbours, hostile input, MiniLM
missing from the cache, and a trained model's neighbours."""

from __future__ import annotations

import pytest
from apptest_helpers import HOSTILE_INPUTS, chart_titles, open_app_page, preformatted
from apptest_helpers import charts as page_charts

from app.core.i18n import strings_of
from app.core.jobs import Owner
from app.sentence_vectors import jobs
from model.checkpoint import load
from model.data.translation_pairs import load_pool

TEXT = strings_of("sentence_vectors")


def open_page(lang: str = "en", text: str | None = None, **state):
    return open_app_page("sentence_vectors", lang, text=text, **state)


def sentences_of(frame) -> list[str]:
    return list(frame.value.iloc[:, -1])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_its_figures_and_neighbours(lang):
    at = open_page(
        lang,
        "My sister bakes bread every Sunday morning." if lang == "en" else "我妹妹每个星期天早上都烤面包。",
        sentence_vectors_side="both",
    )
    assert not at.error
    assert at.title[0].value == TEXT["title"][lang]
    titles = chart_titles(at)
    assert titles[0] == TEXT["chart_title"][lang].format(pairs=len(load_pool()))
    bars = page_charts(at)[0]
    recall = [y for y in bars["data"][0]["y"]]
    assert len(recall) >= 2 and all(0 <= y <= 100 for y in recall)
    # The figures the page states are the chart's: raw [CLS] and mean pooling recall@1, in percent.
    read = next(m.value for m in at.markdown if "**" in m.value and "%" in m.value and "[CLS]" in m.value)
    assert f"**{recall[0]:.0f}%**" in read and f"**{recall[1]:.0f}%**" in read
    pool = {s for pair in load_pool() for s in pair}
    frames = at.dataframe
    assert len(frames) >= 2  # [CLS] and mean, and MiniLM where the cache holds it
    for frame in frames[:2]:
        shown = sentences_of(frame)
        assert len(shown) == 5 and set(shown) <= pool
        cosines = list(frame.value.iloc[:, 0])
        assert cosines == sorted(cosines, reverse=True)


@pytest.mark.parametrize("name", ["empty", "whitespace", "long", "emoji", "rtl", "html"])
def test_hostile_input_shows_a_message_or_neighbours_never_a_traceback(name):
    at = open_page("en", HOSTILE_INPUTS[name])
    assert not at.error
    infos = [i.value for i in at.info]
    if name in ("empty", "whitespace"):
        assert TEXT["empty"]["en"] in infos and len(at.dataframe) == 0
    else:
        assert len(at.dataframe) >= 2
    if name == "long":
        assert any("only its first" in i for i in infos)


def test_minilm_missing_from_the_cache_is_said_plainly(monkeypatch, tmp_path):
    monkeypatch.setenv("BERT_LAB_CACHE", str(tmp_path / "empty-cache"))
    at = open_page("zh", "我妹妹每个星期天早上都烤面包。")
    warnings = [w.value for w in at.warning]
    assert TEXT["minilm_missing"]["zh"] in warnings
    assert any("--fetch-minilm" in block for block in preformatted(at))  # the command, wrapped to the column
    assert len(at.dataframe) == 2  # the raw model's neighbours are still there


def test_a_trained_models_neighbours_appear_beside_the_raw_ones():
    owner = Owner()
    job = jobs.ContrastiveJob(owner, load("embedded"), "embedded", 2).start()
    assert job.wait(120)
    snapshot = job.snapshot()
    assert snapshot.status == "done", snapshot.error
    assert snapshot.evaluations[0]["step"] == 0 and len(snapshot.evaluations) >= 2
    at = open_page("en", "My sister bakes bread every Sunday morning.", sentence_vectors_job=job, job_owner=owner)
    assert TEXT["trained_header"]["en"] in [s.value for s in at.subheader]
    assert TEXT["curve_title"]["en"] in chart_titles(at)
    assert any(TEXT["way_trained"]["en"] in m.value for m in at.markdown)
    assert len(at.dataframe) >= 4  # raw neighbours, then mean pooling beside the trained model
