"""The masking pages' pure logic and charts, on a tiny vocabulary and a tiny random model (no Streamlit)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from apptest_helpers import figure_of, legend_names, read_boxes, read_legend

from app.core.charts import left_to_right
from app.core.models import has_mlm_head
from app.core.palette import BLUE, ORANGE
from app.core.shared_charts import prediction_bars
from app.core.tokens import escape_markdown, last_word_position, mask_selected, token_surface
from app.fill_mask import logic as fill_lab
from app.masking import logic as lab
from app.masking.charts import OUTCOME_COLORS, convergence_chart, token_strip
from model.checkpoint import LoadedBert, load
from model.inference import InputError
from model.modeling import BertConfig, BertForPreTraining
from model.results import FillMaskResult, MaskPredictions, Prediction
from model.tokenization import BertTokenizer
from model.training.pretraining_data import KEPT, MASKED, NOT_CHOSEN, RANDOM
from tests.conftest import write_vocab

LONG = "she opened the door and walked into the room , the cinema was dark and the film was playing . " * 2


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory) -> BertTokenizer:
    folder = tmp_path_factory.mktemp("vocab")
    vocab = write_vocab(folder / "vocab.txt")
    return BertTokenizer.from_vocab(vocab)


@pytest.fixture(scope="module")
def bundle(tokenizer) -> LoadedBert:
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    return LoadedBert(BertForPreTraining(config).eval(), tokenizer, "tiny", None)


# Settings ------------------------------------------------------------------------------------------------


def test_settings_from_sliders_split_at_the_handles():
    s = lab.MaskingSettings.from_sliders(15, (80, 90))
    assert (s.rate, s.mask_prob, s.random_prob) == (0.15, 0.8, pytest.approx(0.1))
    assert s.kept_prob == pytest.approx(0.1)
    assert lab.MaskingSettings.from_sliders(15, (90, 80)).mask_prob == 0.8  # handles in either order
    everything_masked = lab.MaskingSettings.from_sliders(100, (100, 100))
    assert everything_masked.kept_prob == 0 and everything_masked.random_prob == 0


@pytest.mark.parametrize("bad", [{"rate": 1.5}, {"mask_prob": 0.9, "random_prob": 0.2}, {"random_prob": -0.1}])
def test_settings_refuse_impossible_values(bad):
    with pytest.raises(ValueError):
        lab.MaskingSettings(**bad)


# One draw ------------------------------------------------------------------------------------------------


def test_draw_follows_bert_recipe(tokenizer):
    enc = tokenizer.encode(LONG)
    draw = lab.draw_masking(enc, tokenizer, seed=1)
    n = sum(not s for s in enc.special)
    assert draw.candidates == n
    assert len(draw.chosen) == round(0.15 * n)
    for i, code in enumerate(draw.outcome):
        if enc.special[i]:
            assert code == lab.NOT_CANDIDATE and draw.labels[i] == -100
        if code == MASKED:
            assert draw.read_tokens[i] == "[MASK]"
        if code in (KEPT, NOT_CHOSEN, lab.NOT_CANDIDATE):
            assert draw.read_ids[i] == enc.ids[i]
        if code in (MASKED, RANDOM, KEPT):
            assert draw.labels[i] == enc.ids[i]
        if code == RANDOM:
            assert draw.read_ids[i] not in tokenizer.special_ids
            assert not draw.read_tokens[i].startswith("[unused")


def test_same_seed_same_draw_other_seed_other_draw(tokenizer):
    enc = tokenizer.encode(LONG)
    a, b = lab.draw_masking(enc, tokenizer, seed=5), lab.draw_masking(enc, tokenizer, seed=5)
    assert a.outcome == b.outcome and a.read_ids == b.read_ids
    others = [lab.draw_masking(enc, tokenizer, seed=s).outcome for s in range(6, 10)]
    assert any(o != a.outcome for o in others)


def test_typed_mask_and_frame_tokens_are_never_chosen(tokenizer):
    enc = tokenizer.encode("the [MASK] opened")
    for seed in range(20):
        draw = lab.draw_masking(enc, tokenizer, seed=seed, settings=lab.MaskingSettings(rate=1.0))
        assert draw.outcome[2] == lab.NOT_CANDIDATE
        assert draw.labels[0] == draw.labels[2] == draw.labels[-1] == -100
    only_masks = lab.draw_masking(tokenizer.encode("[MASK] [MASK]"), tokenizer, seed=0)
    assert only_masks.candidates == 0 and only_masks.chosen == []


def test_whole_word_masking_takes_every_piece_of_a_word(tokenizer):
    enc = tokenizer.encode("unaffable cinema door")
    pieces = [i for i, w in enumerate(enc.word_ids) if w == 0]
    assert len(pieces) > 1  # the tiny vocabulary splits "unaffable"
    settings = lab.MaskingSettings(rate=0.5, whole_word=True)
    for seed in range(20):
        chosen = set(lab.draw_masking(enc, tokenizer, seed=seed, settings=settings).chosen)
        assert chosen.isdisjoint(pieces) or chosen.issuperset(pieces)


def test_draw_rows_and_json_cover_every_position(tokenizer):
    enc = tokenizer.encode("she opened a door")
    draw = lab.draw_masking(enc, tokenizer, seed=3)
    rows = draw.rows()
    assert len(rows) == len(enc.ids) and len(rows[0]) == len(draw.ROW_HEADER)
    assert next(r[3] for r in rows) == "special"
    payload = json.loads(json.dumps(draw.to_json()))
    assert payload["seed"] == 3 and len(payload["positions"]) == len(enc.ids)
    names = {MASKED: "M", RANDOM: "R", KEPT: "K"}
    assert [r[0] for r in draw.chosen_rows(names)] == [i + 1 for i in draw.chosen]  # a reader counts from 1
    assert [r[0] for r in rows] == list(range(len(enc.ids)))  # the download keeps the model's index
    assert draw.label_tokens()[0] == ""


def test_draw_knows_the_text_behind_each_token(tokenizer):
    text = "She opened 🎉 door"
    enc = tokenizer.encode(text)
    draw = lab.draw_masking(enc, tokenizer, seed=0, text=text)
    assert draw.surface[1:-1] == ["She", "opened", "🎉", "door"]  # the emoji is an [UNK] token
    hover = draw.hover_texts("{position}:{surface}:{token}:{read}")
    assert hover[3].startswith("4:🎉:[UNK]:") and hover[0].startswith("1:[CLS]:[CLS]")  # counted from 1


def test_a_random_replacement_from_another_script_is_named(tokenizer):
    text = "我去电影场看电影"  # every character is in the test vocabulary: no [UNK]
    enc = tokenizer.encode(text)
    settings = lab.MaskingSettings(rate=1.0, mask_prob=0.0, random_prob=1.0)  # every token replaced at random
    draws = [lab.draw_masking(enc, tokenizer, seed=seed, settings=settings, text=text) for seed in range(5)]
    foreign = [token for draw in draws for token in draw.foreign_replacements()]
    assert foreign and all(lab.script(token) == "latin" for token in foreign)
    for draw in draws:
        replaced = [draw.read_tokens[i] for i in draw.chosen if draw.read_ids[i] != draw.ids[i]]
        assert sorted(draw.foreign_replacements()) == sorted(t for t in replaced if lab.script(t) == "latin")
    assert (lab.script("##cating"), lab.script("影"), lab.script("。"), lab.script("2")) == ("latin", "cjk", None, None)


def test_the_lab_draws_random_tokens_from_the_pre_training_pool(tokenizer, monkeypatch):
    from model.training import pretraining_data

    seen = []
    real = pretraining_data.mask_tokens

    def spy(*args, **kwargs):
        seen.append(kwargs["random_token_ids"])
        return real(*args, **kwargs)

    monkeypatch.setattr(lab, "mask_tokens", spy)
    lab.draw_masking(tokenizer.encode("She opened a door."), tokenizer, seed=0)
    assert torch.equal(seen[0], pretraining_data.random_token_pool(tokenizer))


# Predictions at the chosen positions -----------------------------------------------------------------------


def test_predict_chosen_reads_the_corrupted_ids(bundle, tokenizer):
    enc = tokenizer.encode("she opened the door and walked into the room")
    draw = lab.draw_masking(enc, tokenizer, seed=2, settings=lab.MaskingSettings(rate=0.5))
    predictions = lab.predict_chosen(bundle, draw, top_k=3)
    assert [p.position for p in predictions] == draw.chosen
    with torch.inference_mode():
        logits = bundle.model(torch.tensor([draw.read_ids])).mlm_logits[0]  # (T, V)
    probs = logits.softmax(-1)
    for p in predictions:
        assert len(p.top) == 3
        assert [prob for _, prob in p.top] == sorted((prob for _, prob in p.top), reverse=True)
        assert p.top[0][0] == tokenizer.id_to_token(int(probs[p.position].argmax()))
        assert p.original_prob == pytest.approx(float(probs[p.position, draw.ids[p.position]]), abs=1e-5)
    rows = lab.chosen_prediction_rows(predictions)
    assert len(rows) == len(predictions) and len(rows[0]) == 8
    assert rows[0][6] == f"{predictions[0].original_prob:.2%}"


def test_predict_chosen_with_nothing_chosen_and_without_mlm_head(bundle, tokenizer):
    empty = lab.draw_masking(tokenizer.encode("[MASK]"), tokenizer, seed=0)
    assert lab.predict_chosen(bundle, empty) == []
    classifier = LoadedBert(torch.nn.Linear(2, 2), tokenizer, "classifier", None)
    assert not has_mlm_head(classifier) and has_mlm_head(bundle)
    with pytest.raises(InputError):
        lab.predict_chosen(classifier, empty)


# Many draws ------------------------------------------------------------------------------------------------


def test_statistics_converge_to_the_settings(tokenizer):
    enc = tokenizer.encode(LONG)
    stats = lab.draw_statistics(enc, tokenizer, draws=2000, seed=0)
    assert len(stats.draws) == len(stats.masked_share) == 2000
    assert stats.masked_share[-1] == pytest.approx(0.8, abs=0.03)
    assert stats.random_share[-1] == pytest.approx(0.1, abs=0.02)
    assert stats.kept_share[-1] == pytest.approx(0.1, abs=0.02)
    # Without whole words every draw chooses the same rounded number of tokens.
    assert np.allclose(stats.chosen_share, stats.rounded_rate)
    assert stats.chosen_per_draw == round(0.15 * stats.candidates) and not stats.chosen_varies
    table = stats.table()
    assert [row[0] for row in table] == list(stats.SERIES) and table[1][3] == 0.8
    assert sum(row[1] for row in table[1:]) == table[0][1]


def test_statistics_are_reproducible_and_follow_the_settings(tokenizer):
    enc = tokenizer.encode("unaffable cinema door walked")
    settings = lab.MaskingSettings(rate=0.3, mask_prob=0.5, random_prob=0.5, whole_word=True)
    a = lab.draw_statistics(enc, tokenizer, draws=300, seed=4, settings=settings)
    b = lab.draw_statistics(enc, tokenizer, draws=300, seed=4, settings=settings)
    assert np.array_equal(a.masked_share, b.masked_share, equal_nan=True)
    assert a.totals["kept"] == 0
    assert a.series()[2][2] == 0.5
    assert a.chosen_varies  # "unaffable" is several pieces: a draw takes it whole or not at all
    one_piece_words = lab.draw_statistics(
        tokenizer.encode("cinema door walked in"), tokenizer, draws=300, seed=4, settings=settings
    )
    assert not one_piece_words.chosen_varies
    with pytest.raises(ValueError):
        lab.draw_statistics(enc, tokenizer, draws=0, seed=0)


def test_statistics_of_a_sentence_without_candidates(tokenizer):
    stats = lab.draw_statistics(tokenizer.encode("[MASK]"), tokenizer, draws=10, seed=0)
    assert stats.totals["chosen"] == 0 and np.isnan(stats.masked_share).all() and stats.rounded_rate == 0


# Fill-mask helpers ----------------------------------------------------------------------------------------


def test_mask_selected_replaces_the_chosen_pieces(tokenizer):
    text = "She opened a door."
    enc = tokenizer.encode(text)
    door = enc.tokens.index("door")
    masked = mask_selected(text, enc.offsets, [door, 1])
    assert masked == "[MASK] opened a [MASK]."
    again = tokenizer.encode(masked)
    assert fill_lab.mask_positions(again, tokenizer.mask_token_id) == [1, 4]
    assert mask_selected(text, enc.offsets, []) == text
    assert mask_selected(text, enc.offsets, [0, 99]) == text  # [CLS] and out-of-range positions do nothing


def test_mask_selected_on_chinese_and_word_pieces(tokenizer):
    text = "我去电影场看电影"
    enc = tokenizer.encode(text)
    assert mask_selected(text, enc.offsets, [3]) == "我去[MASK]影场看电影"
    pieces = tokenizer.encode("unaffable")
    masked = mask_selected("unaffable", pieces.offsets, [1, 2])
    assert masked.startswith("[MASK][MASK]")
    assert fill_lab.mask_positions(tokenizer.encode(masked), tokenizer.mask_token_id) == [1, 2]


def test_maskable_positions_skip_specials_and_typed_masks(tokenizer):
    enc = tokenizer.encode("the [MASK] door opened")
    assert fill_lab.maskable_positions(enc, tokenizer.mask_token_id, 10) == [1, 3, 4]
    assert fill_lab.maskable_positions(enc, tokenizer.mask_token_id, 2) == [1, 3]


def test_pill_labels_are_escaped_and_distinct():
    labels = fill_lab.pill_labels(["[CLS]", "the", "**x**", "the", "the"], [1, 2, 3, 4])
    assert labels[2] == r"\*\*x\*\*"
    assert len(set(labels.values())) == 4 and labels[3].strip("\u200b") == "the"
    text = "go 🎉"
    surface = token_surface(text, [(0, 0), (0, 2), (3, 4), (0, 0)])
    assert surface == ["", "go", "🎉", ""]
    assert fill_lab.readable_tokens(["[CLS]", "go", "[UNK]", "[SEP]"], surface) == ["[CLS]", "go", "🎉", "[SEP]"]


def test_context_around_splits_left_and_right():
    tokens = ["[CLS]", "我", "去", "[MASK]", "场", "看", "[SEP]"]
    special = [True, False, False, False, False, False, True]
    assert fill_lab.context_around(tokens, special, 3) == ("我 去", "场 看")
    assert fill_lab.context_around(tokens, special, 1) == ("", "去 [MASK] 场 看")
    special = [True] + [False] * 31 + [True]
    left, right = fill_lab.context_around(["[CLS]"] + ["a"] * 30 + ["[MASK]", "[SEP]"], special, 31, limit=5)
    assert left == "… a a a a a" and right == ""


def test_prediction_rows_cover_both_kinds():
    result = FillMaskResult(
        "x",
        ["[CLS]", "[MASK]", "[SEP]"],
        [True, False, True],
        [MaskPredictions(1, [Prediction("a", 5, 0.6), Prediction("b", 6, 0.3)])],
        False,
    )
    rows = fill_lab.prediction_rows({"bidirectional": result, "causal": result})
    assert len(rows) == 4 and rows[0] == ["bidirectional", 1, 1, 1, "a", 5, 0.6]
    assert len(rows[0]) == len(fill_lab.PREDICTION_HEADER)


@pytest.mark.parametrize(
    "hostile",
    [
        "**bold**",
        "<b>x</b>",
        "</script><script>alert(1)</script>",
        "$x^2$",
        ":red[hi] :smile:",
        "[link](http://x)",
        "# h",
        "a_b_c",
    ],
)
def test_escape_markdown_leaves_no_markup(hostile):
    escaped = escape_markdown(hostile)
    assert "<" not in escaped and ">" not in escaped
    for special in "*_[]()$:#`":
        assert escaped.count(special) == escaped.count("\\" + special)


# Charts ----------------------------------------------------------------------------------------------------


def test_token_strip_shows_each_line_escaped_in_its_outcome_colour():
    tokens = ["[CLS]", "<b>x</b>", "door", "[SEP]"]
    read = ["[CLS]", "[MASK]", "door", "[SEP]"]
    labels = ["", "<b>x</b>", "", ""]
    codes = [lab.NOT_CANDIDATE, MASKED, NOT_CHOSEN, lab.NOT_CANDIDATE]
    hover = [f"token {i + 1} · {token}" for i, token in enumerate(tokens)]
    markup = token_strip(
        [tokens, read, labels],
        codes,
        ["original", "reads", "label"],
        {MASKED: "masked", KEPT: "<i>kept</i>"},
        graded=[False, True, False, False],
        hover=hover,
        title="Seed <1>",
    )
    key, *boxes = read_boxes(markup)
    assert key == ("box key", "", None, ["original", "reads", "label"])  # names the lines, uncoloured
    assert [lines for *_, lines in boxes] == [
        ["[CLS]", "[CLS]", ""],
        ["<b>x</b>", "[MASK]", "<b>x</b>"],
        ["door", "door", ""],  # no label where nothing is graded
        ["[SEP]", "[SEP]", ""],
    ]
    assert [fill for _, fill, _, _ in boxes] == [OUTCOME_COLORS[code] for code in codes]
    assert [tip for _, _, tip, _ in boxes] == hover
    assert read_legend(markup) == [("masked", OUTCOME_COLORS[MASKED]), ("<i>kept</i>", OUTCOME_COLORS[KEPT])]
    # Everything typed is escaped: the markup holds no tag but its own.
    assert "<b>" not in markup and "<i>" not in markup and "<1>" not in markup
    assert "&lt;b&gt;x&lt;/b&gt;" in markup and "<figcaption>Seed &lt;1&gt;</figcaption>" in markup


def test_token_strip_keeps_every_position_in_order_and_checks_lengths():
    tokens = [str(i) for i in range(50)]
    markup = token_strip([tokens, tokens, tokens], [NOT_CHOSEN] * 50, ["a", "b", "c"], {})
    key, *boxes = read_boxes(markup)
    assert key[3] == ["a", "b", "c"] and [lines for *_, lines in boxes] == [[t, t, t] for t in tokens]
    assert [tip for _, _, tip, _ in boxes] == tokens  # without hover texts a box's tooltip is its token
    assert read_legend(markup) == []
    with pytest.raises(ValueError):
        token_strip([tokens, tokens[:3]], [0] * 50, ["a", "b"], {})


def test_convergence_chart_draws_each_share_with_its_dashed_target():
    draws = np.arange(1, 11)
    masked = np.linspace(1.0, 0.8, 10)
    other = np.array([np.nan, 0.5, *np.full(8, 0.1)])  # no share before the first chosen token
    chart = convergence_chart(
        draws,
        [("[MASK] / chosen", masked, 0.8, BLUE), ("<i>x</i>", other, 0.1, ORANGE)],
        title="t",
        x_title="draws",
        target_suffix="target",
    )
    figure = figure_of(chart)
    lines = figure["data"]
    names = ["[MASK] / chosen (target 80%)", "&lt;i&gt;x&lt;/i&gt; (target 10%)"]  # escaped: plotly renders tags
    assert [s["name"] for s in lines] == [names[0], names[0], names[1], names[1]]
    assert legend_names(figure) == ["[MASK] / chosen (target 80%)", "<i>x</i> (target 10%)"]  # one entry for both
    assert lines[0]["legendgroup"] == lines[1]["legendgroup"] != lines[2]["legendgroup"] == lines[3]["legendgroup"]
    assert [s["line"]["color"] for s in lines] == [BLUE, BLUE, ORANGE, ORANGE]
    assert [s["line"].get("dash") for s in lines] == [None, "dash", None, "dash"]
    assert (lines[1]["x"], lines[1]["y"]) == ([1, 10], [80.0, 80.0]) and lines[3]["y"] == [10.0, 10.0]
    # In percent, to the hundredth of a point.
    assert lines[0]["x"].tolist() == draws.tolist() and lines[2]["x"].tolist() == draws.tolist()
    assert lines[0]["y"] == pytest.approx(100 * masked, abs=0.005)
    assert np.asarray(lines[2]["y"], dtype=float) == pytest.approx(100 * other, abs=0.005, nan_ok=True)
    layout = figure["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["xaxis"]["range"] == [0, pytest.approx(np.log10(10))]
    assert layout["yaxis"]["range"] == [0, 100]


def test_prediction_bars_escape_tokens_and_colour_by_attention():
    preds = [Prediction("<b>x</b>", 1, 0.5), Prediction("door", 2, 0.2), Prediction("##ر", 3, 0.1)]
    both = figure_of(prediction_bars(preds, title="BERT"))["data"][0]
    left = figure_of(prediction_bars(preds, title="causal", causal=True))["data"][0]
    # Plotly renders tags: a token is escaped. A right-to-left piece keeps its "##" on the left: a left-to-right
    # mark leads it; other text is untouched.
    assert both["y"] == ["&lt;b&gt;x&lt;/b&gt;", "door", "\u200e##ر"]
    assert list(both["x"]) == [50.0, 20.0, 10.0]
    assert both["marker"]["color"] != left["marker"]["color"]
    assert left_to_right("##ing") == "##ing" and left_to_right("##影") == "##影"


def test_the_last_whole_word_is_what_a_sentence_without_a_mask_has_masked():
    tokenizer = load("embedded").tokenizer

    def last(text):
        enc = tokenizer.encode(text)
        position = last_word_position(enc, tokenizer.mask_token_id)
        return None if position is None else enc.tokens[position]

    assert last("She opened the door and walked into the room.") == "room"  # punctuation is passed over
    assert last("我去电影院看电影，电影很好看。") == "看"
    assert last("He saw the [MASK] 42") == "the"  # not the typed [MASK], not a number
    assert last("He saw 😀") == "saw"  # not an [UNK]
    assert last("123 456 !!!") is None  # no word at all: the page asks for a [MASK]
