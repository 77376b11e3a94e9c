"""The NSP lab in both languages (AppTest), its sample data and draw, and its chart builders."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import (
    HOSTILE_INPUTS,
    data_downloads,
    figure_of,
    open_app_page,
    pipelines,
    preformatted,
    read_boxes,
    read_legend,
    static_figures,
    written_stages,
)
from apptest_helpers import charts as page_charts
from streamlit.testing.v1 import AppTest

from app.core import models, segments
from app.core.i18n import strings_of
from app.core.palette import BLUE, PALE, VERMILLION
from app.nsp import charts
from app.nsp.samples import (
    DATA_PATH,
    SOURCES_FOR_LANG,
    draw_pair,
    is_clean_sentence,
    load_samples,
    pair_record,
    pair_text,
    pick_runs,
    provenance,
)
from model.data.corpus import iter_documents
from model.data.fetch import default_cache_dir

COMMON = strings_of("common")
TEXT = strings_of("nsp")


def open_page(lang: str = "en", text: str | None = None, mode: str | None = None) -> AppTest:
    return open_app_page("nsp", lang, text=text, nsp_mode=mode)


def shown_pair(at: AppTest) -> tuple[str, str]:
    """Sentences A and B as the page shows them (its two code blocks)."""
    return preformatted(at)[0], preformatted(at)[1]


def strips(at: AppTest) -> list[str]:
    """The page's figures of token boxes: the segment strip, once a pair is shown (the examples are a pipeline)."""
    return [markup for markup in static_figures(at) if 'class="boxes"' in markup]


def strip_figure(at: AppTest) -> str:
    return strips(at)[0]


def strip_boxes(at: AppTest) -> list[tuple[str, int]]:
    """Each box of the segment strip: its token, and its colour code (``segments.CELL_COLOURS``)."""
    return [(lines[0], segments.CELL_COLOURS.index(fill)) for _, fill, _, lines in read_boxes(strip_figure(at))]


def strip_tokens(at: AppTest) -> list[str]:
    return [token for token, _ in strip_boxes(at)]


def gauge_percent(at: AppTest) -> float:
    """The probability the dial shows, in percent."""
    return page_charts(at)[0]["data"][0]["value"]


# The page ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sampled_pair_is_shown_with_layout_gauge_and_truth(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    assert pipelines(at)[0] == written_stages(TEXT["examples"][lang])  # the two kinds of pair, drawn in HTML
    first, second = shown_pair(at)
    expected = draw_pair(load_samples(), lang, 0)
    assert (first, second) == pair_text(expected)
    truth = TEXT["truth_next"][lang] if expected.is_next else TEXT["truth_not"][lang]
    assert truth in [m.value for m in at.markdown]
    documents = load_samples()["documents"]
    a, b = documents[expected.document]["source"], documents[expected.other_document]["source"]
    named = {f"{w}_{side}": TEXT[f"{w}_{s}"][lang] for side, s in (("a", a), ("b", b)) for w in ("source", "licence")}
    assert TEXT["source_line" if a == b else "source_line_two"][lang].format(**named) in [c.value for c in at.caption]
    (gauge,) = page_charts(at)
    assert len(strips(at)) == 1 and [trace["type"] for trace in gauge["data"]] == ["indicator"]
    result = models.next_sentence("embedded", first, second)  # what the page asked the model
    assert gauge_percent(at) == round(100 * result.is_next, 1)
    above, below = TEXT["summary_gauge_above"][lang], TEXT["summary_gauge_below"][lang]
    assert charts.gauge_summary(result.is_next, above, below) in gauge["alt"]
    segment_names = [TEXT["segment_a"][lang], TEXT["segment_b"][lang]]
    assert read_legend(strip_figure(at)) == list(zip(segment_names, segments.LEGEND_COLOURS))
    tokens = strip_tokens(at)
    assert tokens == result.tokens
    assert tokens[0] == "[CLS]" and tokens.count("[SEP]") == 2 and tokens[-1] == "[SEP]"
    assert len(data_downloads(at)) == 2


def test_sample_another_pair_draws_the_next_pair():
    at = open_page("en")
    seen = {shown_pair(at)}
    for draw in (1, 2, 3):
        at.button(key="nsp_sample_again").click().run()
        assert not at.exception
        assert shown_pair(at) == pair_text(draw_pair(load_samples(), "en", draw))
        seen.add(shown_pair(at))
    assert len(seen) > 1
    # Draw 3's B comes from the other English source than its A: the caption names both, each with its licence.
    documents, pair = load_samples()["documents"], draw_pair(load_samples(), "en", 3)
    assert documents[pair.document]["source"] != documents[pair.other_document]["source"]
    shown = [c.value for c in at.caption if c.value.startswith("Sentence A: ")]
    assert len(shown) == 1 and "Sentence B: " in shown[0] and "MPL-2.0" in shown[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_typed_pair_uses_the_sidebar_sentence_and_the_second_box(lang):
    at = open_page(lang, text="She opened a door.", mode="type")
    assert at.radio(key="w_nsp_mode").value == "type"
    assert at.sidebar.text_area, "the entry script (sidebar) ran before the page"
    assert shown_pair(at) == ("She opened a door.", TEXT["second_default"][lang])
    at.text_input(key=f"nsp_second_{lang}").input("Nobody was there.").run()
    assert not at.exception
    tokens = strip_tokens(at)
    assert tokens[:6] == ["[CLS]", "she", "opened", "a", "door", "."]
    assert "nobody" in tokens
    codes = [code for _, code in strip_boxes(at)]
    assert codes[: tokens.index("[SEP]") + 1] == [1] + [0] * (tokens.index("[SEP]") - 1) + [1]  # segment A
    assert set(codes[tokens.index("[SEP]") + 1 :]) == {2, 3} and codes[-1] == 3  # segment B, ending in [SEP]
    positions = [lines[1] for *_, lines in read_boxes(strip_figure(at))]
    assert positions == [str(i) for i in range(len(tokens))]  # each token's position below it


@pytest.mark.parametrize("name", sorted(HOSTILE_INPUTS))
def test_hostile_sentence_gives_a_message_not_a_traceback(name):
    at = open_page("en", text=HOSTILE_INPUTS[name], mode="type")
    if not HOSTILE_INPUTS[name].strip():
        assert COMMON["empty_input"]["en"] in [i.value for i in at.info], "an empty sentence is asked for"
        assert not page_charts(at) and not strips(at)
        return
    assert shown_pair(at)[0] == HOSTILE_INPUTS[name]  # shown literally
    assert len(strips(at)) == 1 and len(page_charts(at)) == 1
    if name == "long":
        assert at.info, "a cut input must be announced"


def test_empty_second_sentence_is_explained():
    at = open_page("zh", mode="type")
    at.text_input(key="nsp_second_zh").input("   ").run()
    assert not at.exception
    assert at.warning


# Sample data and the draw ---------------------------------------------------------------------------------


def test_samples_are_modern_text_with_a_named_licence_in_both_languages():
    samples = json.loads(DATA_PATH.read_text(encoding="utf-8"))
    for source in samples["sources"].values():
        assert source["name"] and source["licence"] and "held-out" in source["selection"]
    # The corpus holds out 2% of its documents: ten Brown samples, sixty-two People's Daily articles, thirty-nine and
    # thirty-four LibreOffice help pages.
    for lang, least in (("en", 24), ("zh", 24)):
        documents = [d for d in samples["documents"] if d["lang"] == lang]
        assert len(documents) >= least
        assert {d["source"] for d in documents} == set(SOURCES_FOR_LANG[lang])
        for source in SOURCES_FOR_LANG[lang]:  # the page names each source in both languages
            assert all(TEXT[f"{what}_{source}"][shown] for what in ("source", "licence") for shown in ("en", "zh"))
        for document in documents:
            assert document["source"] in samples["sources"]
            assert len(document["sentences"]) >= 3
            assert all(is_clean_sentence(s, lang) for s in document["sentences"])


def test_chinese_samples_hold_no_text_of_the_three_kingdoms():
    """三国演义's classical Chinese was hard for students to read; the samples are modern newspaper prose."""
    zh = [s for d in load_samples()["documents"] if d["lang"] == "zh" for s in d["sentences"]]
    assert zh and "sanguo" not in {d["source"] for d in load_samples()["documents"]}
    sanguo = sorted((default_cache_dir() / "corpus" / "sources").glob("sanguo.v*.jsonl"))
    if not sanguo:
        return  # without the corpus cache only the sources can be checked
    novel = "".join(s for doc in iter_documents(sanguo[-1]) for s in doc["sentences"])
    assert not [s for s in zh if s in novel]
    assert not any(s[i : i + 8] in novel for s in zh for i in range(0, len(s) - 8, 4))  # nor a phrase of it


def test_draw_is_reproducible_and_uses_the_real_pairing():
    samples = load_samples()
    documents = samples["documents"]
    assert draw_pair(samples, "zh", 7) == draw_pair(samples, "zh", 7)
    outcomes = set()
    for draw in range(40):
        pair = draw_pair(samples, "en", draw)
        first = documents[pair.document]
        assert first["lang"] == "en" and documents[pair.other_document]["lang"] == "en"
        index = first["sentences"].index(pair.a[0])
        assert pair.a == first["sentences"][index : index + len(pair.a)]
        if pair.is_next:
            after = index + len(pair.a)
            assert pair.b == first["sentences"][after : after + len(pair.b)]
        else:
            assert pair.other_document != pair.document
            assert pair.b[0] in documents[pair.other_document]["sentences"]
        outcomes.add(pair.is_next)
    assert outcomes == {True, False}


def test_pick_runs_keeps_consecutive_clean_sentences_one_per_document():
    documents = [
        [
            'He said: "no"',
            "The rain fell all night long.",
            "The river rose over its banks.",
            "Nobody in the house slept.",
        ],
        ["Short.", "The dog barked at the moon again.", "Then it lay down by the fire.", "Morning came to the farm."],
        ["Too few clean sentences here.", "--"],
    ]
    runs = pick_runs(documents, "en", count=5, run_length=3)
    assert [index for index, _ in runs] == [0, 1]
    assert runs[0][1] == documents[0][1:]
    assert len(pick_runs(documents * 4, "en", count=2, run_length=3)) == 2


def test_clean_sentence_rules():
    assert is_clean_sentence("The choir sang in the old town hall.", "en")
    assert not is_clean_sentence('"Well, no, not this year."', "en")  # dialogue quotes
    assert is_clean_sentence("新修的图书馆下个月对市民开放。", "zh")
    assert not is_clean_sentence("馆长笑着说：“欢迎大家常来。”", "zh")
    assert is_clean_sentence("孙先生在艺术上十分重视“千锤百炼”。", "zh")  # a quoted term
    assert not is_clean_sentence("他回答说“明天再来。", "zh")  # half a quotation


def test_pair_record_and_provenance():
    samples = load_samples()
    pair = draw_pair(samples, "zh", 3)
    origin = provenance(samples, pair)
    assert (
        "People's Daily" in origin["source_a"] and origin["licence_a"] == samples["sources"]["peoples-daily"]["licence"]
    )
    # A NotNext pair whose B comes from the language's other source names both, each with its licence.
    mixed = next(
        p
        for p in (draw_pair(samples, "en", draw) for draw in range(200))
        if samples["documents"][p.document]["source"] != samples["documents"][p.other_document]["source"]
    )
    origin_mixed = provenance(samples, mixed)
    assert {origin_mixed["source_id_a"], origin_mixed["source_id_b"]} == {"brown", "libreoffice-help-en"}
    assert {origin_mixed["licence_a"], origin_mixed["licence_b"]} == {
        samples["sources"]["brown"]["licence"],
        samples["sources"]["libreoffice-help-en"]["licence"],
    }
    record = pair_record("A", "B", pair.is_next, 0.25, origin)
    assert record["truly_is_next"] is pair.is_next and record["model_is_next_probability"] == 0.25
    assert pair_record("A", "B", None, 0.5)["truly_is_next"] is None


# Charts -----------------------------------------------------------------------------------------------------


def test_cell_codes_mark_segments_and_specials():
    special = [True, False, True, False, False, True]
    assert segments.cell_codes([0, 0, 0, 1, 1, 1], special) == [1, 0, 1, 2, 2, 3]
    with pytest.raises(ValueError):
        segments.cell_codes([0, 1], special)


def test_segment_strip_escapes_tokens_and_colours_them_by_segment():
    tokens = ["[CLS]", "<b>x</b>", "[SEP]"] + ["w"] * 20 + ["[SEP]"]
    segment_ids = [0, 0, 0] + [1] * 21
    special = [token in ("[CLS]", "[SEP]") for token in tokens]
    markup = segments.segment_strip(
        tokens, segment_ids, special, segment_labels=["A", "<i>B</i>"], position_label="pos", title="in & out"
    )
    boxes = read_boxes(markup)
    assert [lines for *_, lines in boxes] == [[token, str(i)] for i, token in enumerate(tokens)]
    codes = segments.cell_codes(segment_ids, special)
    assert [fill for _, fill, _, _ in boxes] == [segments.CELL_COLOURS[code] for code in codes]
    assert boxes[1][2] == "pos 1 · <b>x</b> · A" and boxes[5][2] == "pos 5 · w · <i>B</i>"
    assert read_legend(markup) == [("A", segments.LEGEND_COLOURS[0]), ("<i>B</i>", segments.LEGEND_COLOURS[1])]
    assert "<b>" not in markup and "<i>" not in markup and "&lt;b&gt;x&lt;/b&gt;" in markup
    assert "<figcaption>in &amp; out</figcaption>" in markup


@pytest.mark.parametrize("probability", [0.734, 0.12, 0.5])
def test_gauge_shows_the_probability_in_percent_with_the_decision_line(probability):
    chart = charts.is_next_gauge(probability, title="P(IsNext)")
    [dial] = figure_of(chart)["data"]
    percent = round(100 * probability, 1)
    assert chart.title == "P(IsNext)" and dial["type"] == "indicator" and dial["mode"] == "gauge+number"
    number = dial["number"]
    assert dial["value"] == percent and (number["suffix"], number["valueformat"]) == ("%", ".1f")  # "12.0%"
    gauge = dial["gauge"]
    assert gauge["axis"]["range"] == [0, 100] and gauge["shape"] == "angular"  # a half dial from 0% to 100%
    # Below the line the band is vermillion, above it blue; the dark line sits at 50% across band and bar.
    assert [(step["range"], step["color"]) for step in gauge["steps"]] == [
        ([0, 50], PALE[VERMILLION]),
        ([50, 100], PALE[BLUE]),
    ]
    assert gauge["threshold"]["value"] == 50 and gauge["threshold"]["line"]["color"] == charts.DECISION_LINE
    assert gauge["threshold"]["thickness"] == 1 and gauge["bar"]["color"] == BLUE


def test_switching_language_in_the_sidebar_keeps_the_chosen_mode():
    at = open_page("en", mode="type")
    at.sidebar.radio[0].set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == TEXT["title"]["zh"]
    assert at.radio(key="w_nsp_mode").value == "type"
    assert shown_pair(at)[1] == TEXT["second_default"]["zh"]
