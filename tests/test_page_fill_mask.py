"""The fill-mask page in both languages, driven through Streamlit's AppTest."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from apptest_helpers import charts, data_downloads, labels, open_app_page
from streamlit.testing.v1 import AppTest

from app.core.i18n import strings_of
from app.core.shared_charts import BIDIRECTIONAL_COLOR, CAUSAL_COLOR, ITERATIVE_COLOR, share_decimals
from app.core.tokens import escape_markdown
from model import inference

COMMON = strings_of("common")
TEXT = strings_of("fill_mask")


def open_page(lang: str, text: str | None = None) -> AppTest:
    return open_app_page("fill_mask", lang, text=text)


def section(at: AppTest, key: str):
    """The page's container with this key."""

    def find(node):
        for child in getattr(node, "children", {}).values():
            if getattr(child, "key", None) == key:
                return child
            found = find(child)
            if found is not None:
                return found
        return None

    block = find(at.main)
    assert block is not None, key
    return block


def fill_section(at: AppTest):
    """The first section, where the [MASK]s are filled."""
    return section(at, "fill_mask_predict")


def score_section(at: AppTest):
    """The second section, which scores whole sentences."""
    return section(at, "fill_mask_score")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sentence_without_a_mask_opens_on_its_last_word_masked_then_an_example_predicts(lang):
    at = open_page(lang)  # the default sentence has no [MASK]
    assert at.title[0].value == TEXT["title"][lang]
    sentence = at.session_state["text"]
    word = "room" if lang == "en" else "看"
    assert TEXT["auto_masked"][lang].format(word=word) in [i.value for i in at.info]
    opened = charts(fill_section(at))
    assert len(opened) == 2  # predictions at once: bidirectional and causal
    masked = sentence[: sentence.rindex(word)] + "[MASK]" + sentence[sentence.rindex(word) + len(word) :]
    (expected,) = inference.fill_mask(_embedded(), masked, top_k=5).masks
    assert labels(opened[0]["data"][0]["y"]) == [p.token for p in expected.predictions]
    assert at.session_state["text"] == sentence  # the shared sentence stays as the reader wrote it
    assert ("我去___场看电影" if lang == "zh" else "He went to the ___ to swim.") in " ".join(
        m.value for m in at.markdown
    )
    assert at.button_group  # the clickable tokens
    at.button(key="fill_mask_example_zh").click().run()
    assert not at.exception
    assert at.session_state["text"] == "我去[MASK]场看电影"
    drawn = charts(fill_section(at))
    assert len(drawn) == 2  # one [MASK]: bidirectional and causal
    assert drawn[0]["chart_title"] == TEXT["bidirectional_title"][lang]
    assert drawn[1]["chart_title"] == TEXT["causal_title"][lang]
    assert [c["data"][0]["marker"]["color"] for c in drawn] == [BIDIRECTIONAL_COLOR, CAUSAL_COLOR]
    for chart, causal in zip(drawn, (False, True)):
        (mask,) = inference.fill_mask(_embedded(), "我去[MASK]场看电影", top_k=5, causal=causal).masks
        assert labels(chart["data"][0]["y"]) == [p.token for p in mask.predictions]  # the most likely first
        assert list(chart["data"][0]["x"]) == pytest.approx(
            [100 * p.prob for p in mask.predictions], abs=0.05
        )  # one decimal drawn
    # One [MASK] gets no numbered heading (the several-mask test checks them): its bars start higher on the page.
    assert not any(m.value.startswith("#####") for m in at.markdown)
    seen_from_left = TEXT["context"][lang].split("{left}")[0]
    assert any(c.value.startswith(seen_from_left + "我") for c in at.caption)  # only "我去" lies to the left
    assert len(data_downloads(fill_section(at))) == 2


def test_clicking_tokens_masks_them_and_clicking_again_restores():
    at = open_page("en", "She opened the door and walked into the room.")
    pills = at.button_group[0]
    assert pills.options[:3] == ["she", "opened", "the"]
    assert pills.options[7] != pills.options[2]  # the second "the" is its own button
    pills.set_value([4, 8]).run()  # values are token positions: "door" and the second "the"
    assert not at.exception
    assert at.session_state["text"] == "She opened the [MASK] and walked into [MASK] room."
    assert len(charts(fill_section(at))) == 4
    at.button_group[0].set_value([4]).run()
    assert at.session_state["text"] == "She opened the [MASK] and walked into the room."
    at.button_group[0].set_value([]).run()
    assert at.session_state["text"] == "She opened the door and walked into the room."
    assert at.info  # no mask left: the explanation again


def test_a_new_sentence_wins_over_the_token_buttons_of_the_old_one():
    """Typing in the sidebar and at once clicking another page: the page change can reach the server after the
    run that took the new sentence, still carrying the old sentence's token buttons, which the browser shows until
    that run's page arrives. To the server, whose run dropped those buttons, they look changed, and their callback
    must not write the old sentence back (the teacher's sentence that went back to the default in a class)."""
    at = open_page("en", "She opened the door and walked into the room.")
    old_buttons = at.button_group[0]._widget_state  # as the browser holds them: nothing picked
    at.text_area(key="w_text").input("A new [MASK] sentence.")
    at.run()
    assert at.button_group[0].options[:3] == ["a", "new", "sentence"]
    # AppTest sends the widgets it shows; the browser's late message also holds the old buttons.
    late = at._tree.get_widget_states()
    late.widgets.append(old_buttons)
    at._run(late)
    assert not at.exception
    assert at.session_state["text"] == "A new [MASK] sentence."


def test_top_k_slider_changes_the_bars():
    at = open_page("en", "She opened a [MASK].")
    at.slider(key="w_fill_mask_top_k").set_value(12).run()
    assert not at.exception
    assert all(len(chart["data"][0]["y"]) == 12 for chart in charts(fill_section(at)))
    at.slider(key="w_fill_mask_top_k").set_value(1).run()
    assert all(len(chart["data"][0]["y"]) == 1 for chart in charts(fill_section(at)))


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
            assert len(fill_section(at).get("plotly_chart")) == expected, text[:40]
    at.session_state["text"] = "word " * 600 + "The [MASK] is red."  # the only [MASK] is past the 512th token
    at.run()
    assert not at.exception and not fill_section(at).get("plotly_chart")
    assert [w.value for w in at.warning] == [COMMON["error_mask_cut_off"][lang].format(limit=512)]
    at.session_state["text"] = "[MASK]" * 2000
    at.run()
    assert any("20" in i.value for i in at.info)  # only the first 20 masks get panels, and the page says so


# Several masks at once ------------------------------------------------------------------------------------


@functools.cache
def _embedded():
    from model.checkpoint import load

    return load("embedded")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_says_masks_are_independent_and_fills_one_at_a_time(lang):
    at = open_page(lang)
    # Said below the predictions, in a folded section of its own with its two-mask examples.
    assert any(TEXT["independent_note"][lang][:30] in m.value for m in at.markdown)
    assert TEXT["independent_heading"][lang] in [e.label for e in at.expander]
    at.button(key=f"fill_mask_example_two_{lang}").click().run()
    text = at.session_state["text"]
    assert text == TEXT[f"example_two_{lang}"][lang] and text.count("[MASK]") == 2
    assert len(charts(fill_section(at))) == 4  # all at once: bidirectional and causal for each mask
    # Each mask numbered, its position counted from 1 with [CLS] first.
    positions = [i + 1 for i, token in enumerate(_embedded().tokenizer.encode(text).tokens) if token == "[MASK]"]
    headings = [m.value.lstrip("# ") for m in fill_section(at).markdown if m.value.startswith("#####")]
    assert headings == [TEXT["mask_heading"][lang].format(number=n, position=p) for n, p in enumerate(positions, 1)]
    from model import inference

    expected = inference.fill_mask_iterative(_embedded(), text, top_k=5)
    independent = inference.fill_mask(_embedded(), text, top_k=5)
    tops = {m.index: m.predictions[0].token for m in independent.masks}
    together = inference.fill_in(text, _embedded().tokenizer.encode(text).offsets, tops)
    all_at_once = TEXT["filled_independent"][lang].format(text=escape_markdown(together))
    assert all_at_once in [m.value for m in fill_section(at).markdown]  # what the independent guesses say together
    at.radio(key="w_fill_mask_decode").set_value("iterative").run()
    assert not at.exception
    markdown = [m.value for m in fill_section(at).markdown]
    assert all_at_once in markdown
    assert TEXT["filled_iterative"][lang].format(text=escape_markdown(expected.filled_text)) in markdown
    assert "[MASK]" not in expected.filled_text
    drawn = charts(fill_section(at))
    assert len(drawn) == 1 + 2 * 2  # the order of filling, then all-at-once beside one-at-a-time per mask
    order = drawn[0]
    numbers = {m.index: n for n, m in enumerate(independent.masks, start=1)}
    assert labels(order["data"][0]["y"]) == [
        TEXT["order_label"][lang].format(round=n, token=step.chosen.token, mask=numbers[step.index])
        for n, step in enumerate(expected.steps, start=1)
    ]
    assert list(order["data"][0]["x"]) == pytest.approx(
        [100 * step.chosen.prob for step in expected.steps], abs=0.05
    )  # one decimal
    assert order["data"][0]["marker"]["color"] == ITERATIVE_COLOR
    round_titles = [c["chart_title"] for c in drawn[2::2]]
    rounds = {step.index: n for n, step in enumerate(expected.steps, start=1)}
    assert round_titles == [TEXT["iterative_title"][lang].format(round=rounds[m.index]) for m in independent.masks]
    # Each mask's caption shows the sentence as the model read it in that mask's round: this mask in bold,
    # the other one still [MASK] in round 1, and already filled in round 2.
    context = TEXT["iterative_context"][lang].split("{text}")[0]
    captions = [c.value for c in fill_section(at).caption if c.value.startswith(context)]
    assert len(captions) == 2
    for mask, caption in zip(independent.masks, captions):
        assert caption.count("**\\[MASK\\]**") == 1
        assert caption.count("\\[MASK\\]") == (2 if rounds[mask.index] == 1 else 1), caption
    filled_last = captions[[m.index for m in independent.masks].index(expected.steps[1].index)]
    assert expected.steps[0].chosen.token in filled_last
    assert len(data_downloads(fill_section(at))) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_at_a_time_with_hostile_input(lang):
    at = open_page(lang, "我去[MASK]场看电影")
    at.radio(key="w_fill_mask_decode").set_value("iterative").run()
    assert any(TEXT["single_mask_same"][lang] == c.value for c in fill_section(at).caption)
    cases = {
        "[MASK]" * 2000: "warning",  # more masks than one-at-a-time filling takes
        "no mask here": "masked",  # its last word is masked, and the page says so
        "123 !!!": "info",  # no word to mask: the page asks for a [MASK]
        "": "info",
        "</script><script>alert(1)</script> <b>x</b> [MASK] [MASK]": 5,
        "😀 [MASK] 🎉": 3,
    }
    for text, expected in cases.items():
        at.session_state["text"] = text
        at.run()
        assert not at.exception, text[:40]
        if expected == "warning":
            assert [w.value for w in at.warning] == [COMMON["error_too_many_masks"][lang].format(count=510, limit=20)]
        elif expected == "info":
            assert fill_section(at).info and not fill_section(at).get("plotly_chart")
        elif expected == "masked":
            assert TEXT["auto_masked"][lang].format(word="here") in [i.value for i in fill_section(at).info]
            assert len(fill_section(at).get("plotly_chart")) == 3  # the order, then the one [MASK] both ways
        else:
            assert len(fill_section(at).get("plotly_chart")) == expected, text[:40]


def _score_chart(at):
    drawn = charts(score_section(at))
    assert len(drawn) == 1
    return drawn[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_score_section_ranks_candidates_by_pll_with_each_token(lang):
    from model import inference

    at = open_page(lang)
    assert at.text_area(key="w_fill_mask_candidates").value == TEXT["score_default"][lang]
    candidates = ["我去剧场看电影", "我去机场看电影", "She opened the door and walked into the room."]
    at.text_area(key="w_fill_mask_candidates").set_value("\n".join(candidates) + "\n\n").run()
    assert not at.exception
    assert TEXT["score_press"][lang] in [c.value for c in score_section(at).caption]  # nothing computed yet
    at.button(key="fill_mask_score_run").click().run()
    scores = sorted((inference.pseudo_log_likelihood(_embedded(), c) for c in candidates), key=lambda r: -r.pll)
    chart = _score_chart(at)
    assert chart["chart_title"] == TEXT["score_chart_title"][lang]
    assert labels(chart["layout"]["yaxis"]["categoryarray"]) == [r.text for r in scores]  # best first
    *segments, totals = chart["data"]
    first = segments[0]
    assert labels(first["y"]) == [r.text for r in scores]
    assert first["x"] == pytest.approx([-r.tokens[0].log_prob for r in scores], abs=1e-4)
    assert labels(first["text"]) == [r.tokens[0].token for r in scores]
    assert {name: float(text) for name, text in zip(labels(totals["y"]), totals["text"])} == {
        r.text: pytest.approx(r.pll, abs=0.005) for r in scores
    }
    assert totals["x"] == pytest.approx([-r.pll for r in scores], abs=1e-3)  # written at each bar's end
    longest = max(len(r.tokens) for r in scores)
    assert len(segments) == longest and chart["layout"]["barmode"] == "stack"  # one trace a position, stacked
    for i, r in enumerate(scores):  # each bar is the sentence's tokens end to end, the shorter ones' tails empty
        row = [(s["x"][i], s["text"][i]) for s in segments]
        assert labels([text for _, text in row[: len(r.tokens)]]) == [t.token for t in r.tokens]
        assert sum(x for x, _ in row[: len(r.tokens)]) == pytest.approx(-r.pll, abs=1e-3)
        assert all(x is None for x, _ in row[len(r.tokens) :])
    assert len(data_downloads(score_section(at))) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_score_section_hostile_input_never_raises(lang):
    at = open_page(lang)
    box = "w_fill_mask_candidates"
    at.text_area(key=box).set_value("  \n \n").run()
    assert [i.value for i in score_section(at).info] == [TEXT["score_empty"][lang]]
    lines = ["a [MASK] here", "x" * 30_000, "word " * 100, "<b>bold</b> <script>alert(1)</script>", "好"]
    at.text_area(key=box).set_value("\n".join(lines)).run()
    at.button(key="fill_mask_score_run").click().run()
    assert not at.exception
    warnings = [w.value for w in score_section(at).warning]
    assert len(warnings) == 3
    prefix = TEXT["score_line_error"][lang].split("{reason}")[0]
    assert warnings[0] == prefix.format(line=1) + COMMON["error_mask_in_score"][lang]
    assert warnings[1].startswith(prefix.format(line=2))
    assert warnings[2].startswith(prefix.format(line=3)) and "100" in warnings[2]
    chart = _score_chart(at)
    # Escaped: plotly renders tags; it reads as typed once drawn, and nowhere is it markup.
    assert "<b>bold</b> <script>alert(1)</script>" in labels(chart["layout"]["yaxis"]["categoryarray"])
    assert not any("<script>" in str(trace) or "<b>bold" in str(trace) for trace in chart["data"])
    assert not any("<script>" in text for text in chart["layout"]["yaxis"]["ticktext"])
    at.text_area(key=box).set_value("\n".join(f"sentence {n}" for n in range(12))).run()
    at.button(key="fill_mask_score_run").click().run()
    assert any("8" in i.value and "12" in i.value for i in score_section(at).info)
    assert len(_score_chart(at)["layout"]["yaxis"]["categoryarray"]) == 8


@pytest.mark.parametrize(
    ("lang", "text"), [("en", "Seven purple giraffes [MASK] the violin."), ("zh", "我们坐[MASK]铁去学校。")]
)
def test_the_logit_lens_shows_the_answer_after_every_layer(lang, text):
    at = open_page(lang, text)
    assert not at.exception
    lens = inference.logit_lens(_embedded(), text, top_k=3)
    (chart,) = charts(section(at, "fill_mask_by_layer"))
    assert chart["chart_title"] == TEXT["lens_title"][lang]
    (bars,) = chart["data"]
    expected = [TEXT["lens_embeddings"][lang].format(token=lens.layers[0][0].token)] + [
        TEXT["lens_layer"][lang].format(depth=k, token=top[0].token) for k, top in enumerate(lens.layers) if k
    ]
    assert list(bars["y"]) == expected
    assert list(bars["x"]) == pytest.approx([round(100 * p, 1) for p in lens.answer_probs])
    assert lens.layers[-1][0].token == inference.fill_mask(_embedded(), text, top_k=1).masks[0].predictions[0].token
    assert TEXT["lens_note"][lang] in [c.value for c in at.caption]
    table = section(at, "fill_mask_by_layer").dataframe[0].value
    assert list(table.iloc[:, 0]) == [TEXT["lens_embeddings_row"][lang]] + [str(k) for k in range(1, len(lens.layers))]
    assert table.iloc[-1, 1].split(" · ")[0].startswith(lens.answer.token + " ")  # the top 3, the answer first
    word = "the" if lang == "en" else "地"
    at.text_input(key="w_fill_mask_follow").input(word).run()
    followed = inference.logit_lens(_embedded(), text, top_k=3, word=word)
    table = section(at, "fill_mask_by_layer").dataframe[0].value
    assert list(table.columns)[2] == TEXT["lens_col_rank"][lang].format(word=word)
    assert list(table.iloc[:, 2]) == followed.word_ranks
    at.text_input(key="w_fill_mask_follow").input("zzqxjw").run()  # not one token: said, and the lens stays
    assert not at.exception and at.warning and charts(section(at, "fill_mask_by_layer"))


@pytest.mark.parametrize(
    ("lang", "text"), [("en", "Seven purple giraffes [MASK] the violin."), ("zh", "我们坐[MASK]铁去学校。")]
)
def test_integrated_gradients_give_each_word_its_share_of_the_answer(lang, text):
    from model.analysis.attribution import integrated_gradients

    at = open_page(lang, text)
    assert not charts(section(at, "fill_mask_attribution"))  # on request only: a sentence's edit stays fast
    at.toggle(key="w_fill_mask_attribution").set_value(True).run()
    assert not at.exception
    result = integrated_gradients(_embedded(), text)
    (chart,) = charts(section(at, "fill_mask_attribution"))
    assert chart["chart_title"] == TEXT["ig_title"][lang]
    integrated, gradient = chart["data"]  # the coloured bars, and gradient × input's grey ones beside them
    assert [integrated["name"], gradient["name"]] == [COMMON["ig_integrated"][lang], COMMON["ig_gradient"][lang]]
    words = [i for i, special in enumerate(result.special) if not special and i != result.index]
    assert list(integrated["y"]) == [result.tokens[i] for i in words]  # every word, in the sentence's order
    d = share_decimals(result)  # two significant digits for the largest bar
    assert list(integrated["x"]) == pytest.approx([round(result.scores[i], d + 2) for i in words])
    assert list(gradient["x"]) == pytest.approx([round(result.gradient_x_input[i], d + 2) for i in words])
    assert sum(result.scores) == pytest.approx(result.end - result.start, abs=0.01 * abs(result.end - result.start))
    totals = {
        "steps": result.steps,
        "delta": f"{abs(result.delta):.{d + 1}f}",
        "one_point": f"{sum(result.gradient_x_input):+.{d}f}",
        "move": f"{result.end - result.start:+.{d}f}",
    }
    note = f"{COMMON['ig_note'][lang].format(**totals)} {TEXT['ig_note'][lang]}"
    assert note in [c.value for c in at.caption]


@pytest.mark.parametrize(
    ("lang", "text"), [("en", "Seven purple giraffes [MASK] the violin."), ("zh", "我们坐[MASK]铁去学校。")]
)
def test_causal_tracing_maps_each_layer_and_token_on_request(lang, text):
    from model.analysis.tracing import causal_trace

    at = open_page(lang, text)
    assert not charts(section(at, "fill_mask_tracing"))  # on request only
    at.toggle(key="w_fill_mask_trace").set_value(True).run()
    assert not at.exception
    trace = causal_trace(_embedded(), text)
    shown = charts(section(at, "fill_mask_tracing"))
    assert [c["chart_title"] for c in shown] == [TEXT[f"trace_{k}_title"][lang] for k in ("layer", "attention", "ffn")]
    for chart, kind in zip(shown, ("layer", "attention", "ffn")):
        (cells,) = chart["data"]
        assert np.allclose(np.asarray(cells["z"], dtype=float), trace.restored[kind])
    layer, token = trace.strongest("layer")
    assert f"{trace.restored['layer'][layer, token]:.3f}" in shown[0]["alt"]
    # The student picks the words to blur: every word at first, then only some, then none (said, no maps).
    (blur,) = [group for group in at.button_group if group.key.startswith("fill_mask_blur_")]
    assert blur.label == TEXT["trace_pick"][lang] and blur.value == trace.corrupted
    blur.set_value(trace.corrupted[:1]).run()
    assert not at.exception
    one = causal_trace(_embedded(), text, trace.corrupted[:1])
    (cells,) = charts(section(at, "fill_mask_tracing"))[0]["data"]
    assert np.allclose(np.asarray(cells["z"], dtype=float), one.restored["layer"])
    assert TEXT["trace_note"][lang].format(noise="3", samples=4) in [c.value for c in at.caption]
    [group for group in at.button_group if group.key.startswith("fill_mask_blur_")][0].set_value([]).run()
    assert not at.exception and not charts(section(at, "fill_mask_tracing"))
    assert TEXT["trace_pick_none"][lang] in [i.value for i in at.info]
