"""The layers lab's corpus search section in both languages, through AppTest: the page shows what
``model.analysis.search`` finds, settles links that name a token or layer this sentence or model lacks, and meets
hostile sentences with a message.

The index is built over the first 3,000 tokens of the pool (the real one has about 45,000) in a temporary cache,
so a run takes seconds; ``test_search.py`` tests the index itself.
"""

from __future__ import annotations

import html
import re

import pytest
from apptest_helpers import HOSTILE_INPUTS, charts, open_app_page

from app.core.i18n import TEXT_LANGUAGES, strings_of
from model.analysis import search
from model.checkpoint import load

TEXT = strings_of("layers")

SENTENCES = {"en": "I went to the bank to get money.", "zh": "他坐飞机去上海开会。"}
N_LAYERS = load("embedded").config.num_hidden_layers + 1


@pytest.fixture(autouse=True)
def small_index(monkeypatch, tmp_path_factory):
    monkeypatch.setattr(search, "POOL_TOKENS", 3000)
    monkeypatch.setenv("BERT_LAB_CACHE", str(tmp_path_factory.getbasetemp() / "search-cache"))


def run_search(lang: str, text: str, **state):
    at = open_app_page("layers", lang, text=text, **state)
    at.default_timeout = 300
    at.button(key="layers_run_search").click().run()
    assert not at.exception, at.exception[0].message if at.exception else ""
    return at


def match_lines(at) -> list[str]:
    return [line for m in at.markdown for line in m.value.splitlines() if re.match(r"\d+\. `", line)]


@pytest.mark.parametrize("lang", TEXT_LANGUAGES)
def test_the_page_shows_the_20_nearest_tokens_and_what_they_share(lang):
    text = SENTENCES[lang]
    at = open_app_page("layers", lang, text=text)
    assert TEXT["search_header"][lang] in [h.value for h in at.subheader]
    assert any(TEXT["search_waiting_build"][lang].split("{")[0] in i.value for i in at.info)
    assert not match_lines(at)  # nothing is searched before the button

    at.button(key="layers_run_search").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    lines = match_lines(at)
    assert len(lines) == search.TOP_K
    assert all(":blue-background[**" in line for line in lines)  # each match highlighted in its sentence

    # what the page lists is what the model's search finds, in order, for the token and layer it chose
    position, layer = at.session_state["layers_search_token"], at.session_state["layers_search_layer"]
    assert layer == 2 and 0 <= position
    from app.layers import search_logic

    found = search_logic.neighbours("embedded", search_logic.corpus_language(text), text, position, "cosine")
    scores = [float(re.match(r"\d+\. `([0-9.\-]+)`", line).group(1)) for line in lines]
    assert scores == [round(row["score"], 3) for row in found["rows"][layer]]

    by_title = {c["chart_title"]: c for c in charts(at)}
    token = at.session_state["layers_search_token"]
    shares = by_title[
        TEXT["search_shares_title"][lang].format(token=search_logic.query("embedded", text).tokens[token])
    ]
    names = [html.unescape(trace["name"]) for trace in shares["data"]]
    assert names[:3] == [TEXT[f"search_series_{k}"][lang] for k in ("same_token", "top_tag", "same_position")]
    assert all(len(trace["x"]) == N_LAYERS for trace in shares["data"])
    same_token = shares["data"][0]["y"]
    assert same_token == [round(100 * s["same_token"], 1) for s in found["summary"]]
    if lang == "zh":  # every Chinese sentence carries tags (People's Daily, or jieba's)
        assert TEXT["search_tags_title"][lang].format(layer=layer) in by_title
    assert "alt" in shares and shares["alt"]

    at.slider(key="w_layers_search_layer").set_value(0).run()
    assert not at.exception
    assert [float(re.match(r"\d+\. `([0-9.\-]+)`", line).group(1)) for line in match_lines(at)] == [
        round(row["score"], 3) for row in found["rows"][0]
    ]


def test_a_link_to_a_token_or_layer_this_sentence_lacks_is_settled():
    at = run_search("en", "bank money", layers_search_token=400, layers_search_layer=30)
    assert at.session_state["layers_search_token"] in (0, 1)
    assert at.session_state["layers_search_layer"] == 2
    assert len(match_lines(at)) == search.TOP_K


@pytest.mark.parametrize("case", ["empty", "whitespace", "long", "html", "rtl", "only_mask", "emoji"])
def test_hostile_sentences_get_a_message_or_a_search(case):
    text = HOSTILE_INPUTS[case]
    at = open_app_page("layers", "en", text=text)
    if case in ("empty", "whitespace"):
        assert not match_lines(at) and at.warning  # the sidebar or the section says the sentence is empty
        return
    at.button(key="layers_run_search").click().run(timeout=300)
    assert not at.exception, at.exception[0].message if at.exception else ""
    assert len(match_lines(at)) == search.TOP_K
    assert "<script>" not in "".join(match_lines(at))


def test_a_class_follows_the_token_and_layer_its_teacher_searches():
    from test_page_classroom import class_started, new_session, run

    teacher = class_started("en")
    student = new_session("en", room=teacher.session_state["class_room"])
    teacher.session_state["text"] = SENTENCES["en"]
    teacher.switch_page("pages/layers.py")
    run(teacher)
    teacher.selectbox(key="w_layers_search_token").set_value(4)  # "bank"
    teacher.slider(key="w_layers_search_layer").set_value(5)
    teacher.button(key="layers_run_search").click()
    run(teacher)
    run(student)
    assert [student.session_state[k] for k in ("layers_search_token", "layers_search_layer", "layers_search_ran")] == [
        4,
        5,
        True,
    ]
    assert match_lines(student) == match_lines(teacher) and len(match_lines(student)) == search.TOP_K
