"""The fine-tuning lab in both languages (AppTest), a real tiny training on the embedded model, and the page's
chart builders."""

from __future__ import annotations

import html
import time
from pathlib import Path

import numpy as np
import pytest
from apptest_helpers import (
    chart_titles,
    figure_of,
    heatmap_matrix,
    labels,
    legend_names,
    pipelines,
    preformatted,
    static_figures,
)
from apptest_helpers import charts as page_charts
from streamlit.testing.v1 import AppTest

from app.core.i18n import strings_of
from app.core.palette import LIGHT, ORANGE, PALE
from app.core.shared_charts import share_decimals
from app.core.state import SETTINGS
from app.finetune import charts, jobs
from model.analysis.attribution import classifier_integrated_gradients
from model.data.tasks import load_task

TEXT = strings_of("finetune")

APP = str(Path(__file__).resolve().parent.parent / "streamlit_app.py")
HOSTILE_INPUTS = {
    "empty": "",
    "whitespace": "   \n\t ",
    "long": "这本书很好看，" * 1500,  # 10,500 characters
    "emoji": "I love 🍿🎬 movies 😀",
    "html": "</script><script>alert(1)</script> **bold** <b>x</b>",
    "rtl": "مرحبا بالعالم שלום עולם",
    "only_mask": "[MASK] [MASK] [MASK]",
}


@pytest.fixture
def fewer_heldout_examples(monkeypatch):
    """For a test that checks how the page shows a run's scores, not the scores: 60 held-out examples instead of
    the page's 200 make a question-answering run's scoring a third as long."""
    monkeypatch.setattr(jobs, "HELDOUT_LIMIT", 60)


def embedded_width() -> int:
    from app.core.models import get_model

    return get_model("embedded").config.hidden_size


def open_page(lang: str = "en") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page("pages/finetune.py")
    at.run()
    assert not at.exception
    return at


def titled(at: AppTest, start: str) -> dict:
    return next(option for option in page_charts(at) if (option["chart_title"] or "").startswith(start))


def baseline_lines(figure: dict) -> list[dict]:
    """The dashed lines across a figure's plot: each shape that spans its panel's width, with its label's text
    (the annotation at its height on the same axes), unescaped, as ``name``."""
    layout = figure["layout"]
    labels_at = {
        (a.get("yref"), a.get("y")): html.unescape(a["text"])
        for a in layout.get("annotations", ())
        if a.get("yref", "").startswith("y")
    }
    return [
        shape | {"name": labels_at.get((shape["yref"], shape["y0"]))}
        for shape in layout.get("shapes", ())
        if shape.get("xref", "").endswith("domain") and shape["y0"] == shape["y1"]
    ]


def texts(at: AppTest) -> str:
    parts = [
        e.value
        for kind in ("markdown", "caption", "code", "info", "success", "warning", "error", "subheader", "title")
        for e in at.get(kind)
    ]
    drawn = [" → ".join([title, *steps, note]) for figure in pipelines(at) for title, steps, note in figure]
    return "\n".join(str(p) for p in parts + preformatted(at) + drawn)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_explains_the_paradigm_and_offers_every_control(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    shown = texts(at)
    hidden = embedded_width()
    assert f"Linear({hidden}, 2)" in shown and f"Linear({hidden}, N)" in shown  # the loaded model's width
    assert ("通用 BERT → 添加任务头 → 在特定任务上微调" if lang == "zh" else "general BERT → add a task head") in shown
    task = "sentiment-zh" if lang == "zh" else "topics-en"  # the first visit opens on a task in the reader's language
    assert at.selectbox(key="w_finetune_task").value == task
    assert TEXT[f"licence_{task}"][lang] in shown  # the task's licence, translated
    assert TEXT["no_job"][lang] in shown
    keys = {w.key for kind in ("slider", "selectbox", "radio", "toggle", "checkbox", "button") for w in at.get(kind)}
    settings = ("task", "size", "epochs", "lr", "batch", "freeze", "layers", "init", "compare", "budget", "max_length")
    assert {f"w_finetune_{name}" for name in settings} | {"finetune_start", "finetune_stop"} <= keys
    for kind, name in (
        ("slider", "size"),
        ("radio", "batch"),
        ("selectbox", "budget"),
        ("slider", "epochs"),
        ("slider", "layers"),
    ):
        assert getattr(at, kind)(key=f"w_finetune_{name}").value == SETTINGS[f"finetune_{name}"].default
    assert at.button(key="finetune_stop").disabled and not at.button(key="finetune_start").disabled
    at.selectbox(key="w_finetune_task").set_value("ner-zh").run()
    assert not at.exception
    assert f"Linear({hidden}, 7)" in texts(at)
    at.checkbox(key="w_finetune_compare").check().run()
    assert at.radio(key="w_finetune_init").disabled
    at.checkbox(key="w_finetune_compare").uncheck().run()
    at.checkbox(key="w_finetune_compare_frozen").check().run()
    assert at.radio(key="w_finetune_init").disabled and at.toggle(key="w_finetune_freeze").disabled


def test_a_tiny_training_draws_live_curves_stops_and_shows_results():
    at = open_page("en")
    at.selectbox(key="w_finetune_task").set_value("sentiment-zh")  # the English page opens on topics-en
    at.slider(key="w_finetune_size").set_value(100)
    at.radio(key="w_finetune_batch").set_value(32)
    at.radio(key="w_finetune_max_length").set_value(32)
    at.selectbox(key="w_finetune_budget").set_value(30)
    at.button(key="finetune_start").click().run()
    assert not at.exception
    job = at.session_state["session_models"]
    assert (
        at.get("progress") and at.button(key="finetune_start").disabled and not at.button(key="finetune_stop").disabled
    )
    assert "sentiment-zh · 100 examples" in texts(at) or "sentiment-zh · … examples" in texts(at)
    deadline = time.time() + 60
    while not job.snapshot().history:  # the first step, then the live chart draws it
        assert time.time() < deadline, "no training step within a minute"
        time.sleep(0.5)
    at.run()
    assert any(t.startswith("Training curves") for t in chart_titles(at))
    # Stopping keeps the test short (this machine's CPUs are shared); the stopped run still scores itself.
    at.button(key="finetune_stop").click().run()
    assert job.wait(90), "the stopped training did not end"
    at.run()
    assert not at.exception
    snapshot = job.snapshot()
    assert snapshot.status == "stopped" and snapshot.stop_reason == "user", snapshot.error
    assert TEXT["stopped"]["en"] in [w.value for w in at.warning]
    assert TEXT["results_header"]["en"] in [s.value for s in at.subheader]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Held-out accuracy"].endswith("%") and int(metrics["Steps"]) == snapshot.results["pretrained"].steps
    assert metrics[TEXT["seconds"]["en"]] == f"{snapshot.results['pretrained'].seconds:.0f}"
    baselines = snapshot.baselines
    note = TEXT["results_note"]["en"].format(
        chance=baselines["majority"], bag=baselines["bag_of_characters"], bag_name=TEXT["baseline_bag_zh"]["en"]
    )
    assert note in [c.value for c in at.caption]
    curves = titled(at, "Training curves")
    drawn = sorted(line["y0"] for line in baseline_lines(curves))
    assert drawn == pytest.approx(sorted(100 * value for value in baselines.values()), abs=0.005)  # in percent
    diamond = next(trace for trace in curves["data"] if trace["name"] == "Pre-trained weights: held-out")
    last_step = max(h["step"] for h in snapshot.history if h["init"] == "pretrained")
    [(step, accuracy)] = zip(diamond["x"], diamond["y"])
    assert step == last_step
    assert accuracy == pytest.approx(100 * snapshot.results["pretrained"].evaluation.accuracy, abs=0.005)
    titles = chart_titles(at)
    assert "Confusion matrix: Pre-trained weights" in titles
    assert "Class probabilities" in titles and any(t.startswith("Attention from [CLS]") for t in titles)
    downloads = {button.key for button in at.get("download_button")}
    # Each chart can be saved as interactive HTML, by a button of its own under it.
    assert {"html_finetune_curves", "html_finetune_confusion_pretrained", "html_finetune_layers"} <= downloads
    assert {
        "csv_finetune_history",
        "csv_finetune_confusion_pretrained",
        "csv_finetune_layer_changes",
        "finetune_model_zip_pretrained",
    } <= downloads
    assert "Relative weight change per part of the encoder" in titles
    layers = titled(at, "Relative weight change")
    parts = labels(layers["layout"]["xaxis"]["categoryarray"])
    assert parts[0] == "embeddings" and parts[-1] == "pooler"
    assert parts[1:-1] == [f"layer {n}" for n in range(1, len(parts) - 1)]
    # The default run trains the top layers only: the page says why the ones below did not move.
    trained, total = snapshot.settings.trained_layers, len(parts) - 2
    assert trained < total and snapshot.layer_changes["pretrained"]["embeddings"] == 0
    assert TEXT["layers_frozen_note"]["en"].format(n=trained, total=total) in [c.value for c in at.caption]
    assert not at.button(key="finetune_start").disabled

    # The shared sentence box is per task: hostile text gives a message or a notice, never a traceback.
    box = "finetune_try_sentiment-zh"
    for name, text in HOSTILE_INPUTS.items():
        at.text_input(key=box).set_value(text).run()
        assert not at.exception, name
        if name in ("empty", "whitespace"):
            assert at.warning, name
        if name == "long":
            assert any("only the first" in i.value for i in at.info)
        if name == "html":
            shown = titled(at, "Attention")["layout"]["xaxis"]["categoryarray"]
            # Plotly renders tags: the tokens arrive escaped, never as markup, and read as typed once drawn.
            assert "&lt;" in shown and not any("<" in label for label in shown) and "<" in labels(shown)

    # Which words decided the label: integrated gradients on request, gradient × input beside them.
    review = "这本书太精彩了，我一口气读完了。"
    at.text_input(key=box).set_value(review).run()
    assert not any(title.startswith(TEXT["ig_title"]["en"]) for title in chart_titles(at))
    at.toggle(key="w_finetune_word_shares").set_value(True).run()
    assert not at.exception
    model = job.trained_model("pretrained")
    result = classifier_integrated_gradients(model, job.tokenizer, review, snapshot.labels)
    integrated, gradient = titled(at, TEXT["ig_title"]["en"])["data"]
    words = [i for i, special in enumerate(result.special) if not special]
    assert [y.replace("\u200b", "") for y in labels(integrated["y"])] == [result.tokens[i] for i in words]
    d = share_decimals(result)
    assert list(integrated["x"]) == pytest.approx([round(result.scores[i], d + 2) for i in words])
    assert list(gradient["x"]) == pytest.approx([round(result.gradient_x_input[i], d + 2) for i in words])
    label = TEXT[f"label_{result.answer.token}"]["en"]  # the sentiment labels are named in each language
    lead = TEXT["ig_lead"]["en"].format(label=label, start=f"{result.start:.{d}f}", end=f"{result.end:.{d}f}")
    assert lead in texts(at)

    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception
    assert TEXT["results_header"]["zh"] in [s.value for s in at.subheader]
    assert "混淆矩阵：预训练权重" in chart_titles(at)


def train_briefly(at: AppTest, task: str) -> jobs.Job:
    """Start ``task`` on 100 examples with a 30-second budget, stop it after its first step, and wait for its end;
    32 tokens an example where the task lets the page choose (a question and its passage take 128)."""
    at.selectbox(key="w_finetune_task").set_value(task).run()
    at.slider(key="w_finetune_size").set_value(100)
    if "w_finetune_max_length" in {r.key for r in at.radio}:
        at.radio(key="w_finetune_max_length").set_value(32)
    at.selectbox(key="w_finetune_budget").set_value(30)
    at.button(key="finetune_start").click().run()
    job = at.session_state["session_models"]
    deadline = time.time() + 90
    while not job.snapshot().history:
        assert time.time() < deadline, "no training step within 90 s"
        time.sleep(0.5)
    at.button(key="finetune_stop").click().run()
    assert job.wait(120), "the stopped training did not end"
    at.run()
    assert not at.exception
    return job


@pytest.mark.usefixtures("fewer_heldout_examples")
def test_question_answering_trains_scores_and_reads_a_passage():
    """The seed's third fine-tuning example, live: train a reader for a few steps, score it against readers without
    a model, then ask it about a held-out passage and about the student's own, hostile ones included."""
    at = open_page("en")
    at.selectbox(key="w_finetune_task").set_value("qa-en").run()
    shown = texts(at)
    assert f"Linear({embedded_width()}, 2) → the answer's start and end" in shown
    assert TEXT["qa_how_made"]["en"] in shown and TEXT["licence_qa-en"]["en"] in shown
    assert "w_finetune_max_length" not in {r.key for r in at.radio}  # a question and its passage take 128 tokens
    job = train_briefly(at, "qa-en")
    assert job.snapshot().settings.max_length == 128
    snapshot = job.snapshot()
    readers = ("pretrained", "alignment", "longest_entity", "random_start")
    assert snapshot.kind == "span" and set(snapshot.span_scores) == set(readers)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Exact match"] == f"{snapshot.span_scores['pretrained'].exact_match:.1%}"
    scores = titled(at, "Held-out questions")
    exact = next(trace for trace in scores["data"] if trace["name"] == "Exact match")
    assert labels(exact["y"]) == [
        "Pre-trained weights",
        "word matcher",
        "longest name of the asked type",
        "random start",
    ]
    assert exact["x"] == [round(100 * snapshot.span_scores[n].exact_match, 1) for n in readers]
    curves = titled(at, "Training curves")
    diamond = next(trace for trace in curves["data"] if trace["name"] == "Pre-trained weights: held-out")
    assert diamond["y"] == [pytest.approx(100 * snapshot.span_scores["pretrained"].exact_match, abs=0.005)]
    titles = chart_titles(at)
    assert {"The 3 best answers", "Question → passage attention (last layer)"} <= set(titles)
    assert any(t.startswith("Where the answer starts and ends") for t in titles)
    first = load_task("qa-en").heldout[0]
    assert at.text_input(key="finetune_qa_question_qa-en").value == first.question
    [passage] = [f for f in static_figures(at) if "<mark>" in f]
    best = jobs.explain_question(job.trained_model("pretrained"), job.tokenizer, first.question, first.passage)
    a, b = best["spans"][0]["chars"]
    assert f"<mark>{html.escape(first.passage[a:b])}</mark>" in passage
    rows = titled(at, "Where the answer starts")
    assert len(rows["data"][0]["x"]) == len(best["passage_tokens"])  # a bar per passage token, in both rows
    assert sum(rows["data"][0]["y"]) == pytest.approx(100, abs=1) and sum(rows["data"][1]["y"]) == pytest.approx(
        100, abs=1
    )

    # Picking another held-out question fills both boxes; then the student's own, hostile ones included.
    at.selectbox(key="finetune_qa_pick_qa-en").set_value(3).run()
    assert at.text_area(key="finetune_qa_passage_qa-en").value == load_task("qa-en").heldout[3].passage
    for name, text in HOSTILE_INPUTS.items():
        at.text_input(key="finetune_qa_question_qa-en").set_value(text).run()
        assert not at.exception, name
        if name in ("empty", "whitespace"):
            assert at.warning or at.info, name
        at.text_area(key="finetune_qa_passage_qa-en").set_value(text).run()
        assert not at.exception, name
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception and "最好的 3 个答案" in chart_titles(at)


def test_a_sentence_pair_trains_beside_word_overlap_and_reads_the_students_pair():
    """The paper's fourth task shape: two sentences in one input, with segment ids, against word overlap."""
    at = open_page("en")
    at.selectbox(key="w_finetune_task").set_value("paraphrase-en").run()
    shown = texts(at)
    assert f"[CLS] A [SEP] B [SEP] → output at [CLS] → Linear({embedded_width()}, 2)" in shown
    assert TEXT["pair_how_made"]["en"] in shown and TEXT["licence_paraphrase-en"]["en"] in shown
    job = train_briefly(at, "paraphrase-en")
    snapshot = job.snapshot()
    assert snapshot.kind == "pair" and set(snapshot.baselines) == {"majority", "word_overlap"}
    assert 0.4 <= snapshot.baselines["word_overlap"] <= 0.65  # the negatives share as many words
    curves = titled(at, "Training curves")
    names = {line["name"] for line in baseline_lines(curves)}
    assert {
        f"majority class {snapshot.baselines['majority']:.0%}",
        f"word overlap {snapshot.baselines['word_overlap']:.0%}",
    } <= names
    shown = texts(at)
    overlap = f"{snapshot.baselines['word_overlap']:.0%}"
    assert f"word overlap scores {overlap}" in shown
    first = at.text_input(key="finetune_try_first_paraphrase-en")
    second = at.text_input(key="finetune_try_second_paraphrase-en")
    assert (
        first.value == TEXT["try_first_paraphrase-en"]["en"] and second.value == TEXT["try_second_paraphrase-en"]["en"]
    )
    [strip] = [f for f in static_figures(at) if "segment A" in f]
    answer = jobs.explain_pair(
        job.trained_model("pretrained"), job.tokenizer, first.value, second.value, snapshot.labels
    )
    assert answer["segments"].count(1) > 0 and answer["segments"][0] == 0
    assert all(html.escape(token) in strip for token in answer["tokens"])
    bars = titled(at, "Class probabilities")
    assert sorted(labels(bars["data"][0]["y"])) == ["different", "paraphrase"]
    for name, text in HOSTILE_INPUTS.items():
        at.text_input(key="finetune_try_second_paraphrase-en").set_value(text).run()
        assert not at.exception, name
        if name in ("empty", "whitespace"):
            assert at.warning or at.info, name
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception and "词重合度" in texts(at)


def test_multiple_choice_trains_beside_chance_and_scores_the_students_four_endings():
    """SWAG's shape: a context and four endings, each read as its own pair, one softmax over the four."""
    at = open_page("zh")
    at.selectbox(key="w_finetune_task").set_value("choice-zh").run()
    shown = texts(at)
    assert f"Linear({embedded_width()}, 1)" in shown and TEXT["choice_how_made"]["zh"] in shown
    job = train_briefly(at, "choice-zh")
    snapshot = job.snapshot()
    assert snapshot.kind == "choice" and snapshot.baselines["chance"] == 0.25
    assert snapshot.baselines["most_shared_words"] < 0.45
    assert f"{snapshot.baselines['most_shared_words']:.0%}" in texts(at)
    context = at.text_input(key="finetune_try_context_choice-zh").value
    endings = tuple(at.text_input(key=f"finetune_try_ending{n}_choice-zh").value for n in (1, 2, 3, 4))
    assert context == TEXT["try_context_choice-zh"]["zh"] and len(set(endings)) == 4
    answer = jobs.explain_choice(job.trained_model("pretrained"), job.tokenizer, context, endings)
    bars = titled(at, "哪个结尾")
    assert list(bars["data"][0]["x"]) == [round(100 * p, 1) for p in sorted(answer["probs"], reverse=True)]
    assert sum(answer["probs"]) == pytest.approx(1.0)
    best = max(range(4), key=answer["probs"].__getitem__)
    [strip] = [f for f in static_figures(at) if "片段 A" in f]
    assert html.escape(endings[best][0]) in strip
    for name, text in HOSTILE_INPUTS.items():
        at.text_input(key="finetune_try_ending3_choice-zh").set_value(text).run()
        assert not at.exception, name
    at.session_state["lang"] = "en"
    at.run()
    assert not at.exception and "Which ending follows?" in "".join(chart_titles(at))


# --- chart builders --------------------------------------------------------------------------------------------


def history(init: str, n: int, total: int = 10) -> list[dict]:
    return [
        {"init": init, "step": i, "loss": 1.0 / i, "accuracy": 0.5, "seconds": i, "total_steps": total}
        for i in range(1, n + 1)
    ]


def test_curves_put_both_runs_on_one_chart_over_the_whole_run():
    figure = figure_of(
        charts.training_curves(
            history("pretrained", 4) + history("random", 2),
            run_names={"pretrained": "P", "random": "R"},
            loss_title="loss",
            accuracy_title="acc",
            step_title="step",
        )
    )
    lines = [trace for trace in figure["data"] if trace["type"] == "scatter" and "lines" in trace["mode"]]
    assert len(lines) == 8  # 2 runs x 2 metrics x (raw, smoothed)
    assert legend_names(figure) == ["P", "R"]
    assert {trace["name"] for trace in lines} == {"P", "R"}
    # A run's four curves are one legend group: a click on its name hides them all.
    assert {trace["legendgroup"] for trace in lines if trace["name"] == "P"} == {"pretrained"}
    # The whole run, so a live chart grows into it; the same steps under both panels.
    layout = figure["layout"]
    assert layout["xaxis"]["range"] == layout["xaxis2"]["range"] == [0, 10]
    loss = [t for t in lines if t["name"] == "P" and t["yaxis"] == "y"]
    smoothed, raw = loss  # the running mean first: the legend takes its colour
    assert smoothed["y"] == pytest.approx(charts.smooth([1.0, 0.5, 1 / 3, 0.25]), abs=1e-4)
    assert raw["y"] == pytest.approx([1.0, 0.5, 1 / 3, 0.25], abs=1e-4)
    assert raw["x"] == [1, 2, 3, 4] and raw["showlegend"] is False and smoothed["showlegend"] is True
    accuracy = next(t for t in lines if t["name"] == "R" and t["yaxis"] == "y2")
    assert accuracy["y"] == [50.0, 50.0]  # in percent, on a 0-100% axis
    assert layout["yaxis2"]["range"] == [0, 100] and layout["yaxis2"]["ticksuffix"] == "%"


def test_curves_show_baselines_as_lines_and_held_out_scores_as_diamonds():
    figure = figure_of(
        charts.training_curves(
            history("pretrained", 4) + history("random", 3),
            run_names={"pretrained": "P", "random": "R"},
            loss_title="loss",
            accuracy_title="acc",
            step_title="step",
            baselines={"majority <b>": 0.54, "bag": 0.725},
            heldout={"pretrained": 0.8},
            heldout_name="{run}: held-out",
        )
    )
    lines = baseline_lines(figure)
    assert all(line["yref"] == "y2" for line in lines)  # on the accuracy side
    assert all(line["line"]["dash"] == "dash" for line in lines)
    assert sorted(line["y0"] for line in lines) == [54.0, 72.5]
    assert {line["name"] for line in lines} == {"majority <b> 54%", "bag 72%"}  # read as typed once drawn
    assert "majority &lt;b&gt; 54%" in [a["text"] for a in figure["layout"]["annotations"]]  # escaped for plotly
    diamond = next(trace for trace in figure["data"] if trace["name"] == "P: held-out")
    assert (diamond["x"], diamond["y"], diamond["marker"]["symbol"]) == ([4], [80.0], "diamond")
    assert diamond["yaxis"] == "y2"
    assert not any(trace["name"] == "R: held-out" for trace in figure["data"])
    assert legend_names(figure) == ["P", "R", "P: held-out"]


def test_close_baselines_put_their_labels_side_by_side():
    assert charts.label_slots([25.0, 26.0, 60.0]) == [0, 1, 0]  # chance and most shared words: one left of the other
    assert charts.label_slots([50.0, 54.0, 52.0]) == [0, 2, 1]
    figure = figure_of(
        charts.training_curves(
            history("pretrained", 3),
            run_names={"pretrained": "P"},
            loss_title="loss",
            accuracy_title="accuracy",
            step_title="step",
            baselines={"chance": 0.25, "shared": 0.26},
        )
    )
    xs = sorted(a["x"] for a in figure["layout"]["annotations"] if a.get("yref") == "y2")
    assert xs == [1 - charts.LABEL_SLOT_WIDTH, 1]


def test_smooth_is_a_trailing_mean():
    assert charts.smooth([1, 3, 5, 7], window=2) == [1, 2, 4, 6]
    assert charts.smooth([], window=3) == []


def test_steps_axis_ends_on_a_round_tick_at_or_past_the_last_step():
    for last, interval, end in ((1, 1, 1), (10, 2, 10), (150, 20, 160), (1250, 200, 1400)):
        axis = charts.steps_axis(last, "step", 0)
        assert (axis["dtick"], axis["range"]) == (interval, [0, end])


def test_confusion_heatmap_colours_shares_and_prints_counts():
    figure = figure_of(
        charts.confusion_heatmap(
            np.array([[0.75, 0.25], [0.0, 1.0]]),
            [[3, 1], [0, 4]],
            ["neg", "<pos>"],
            true_title="true",
            predicted_title="predicted",
        )
    )
    [cells] = figure["data"]
    assert cells["x"] == cells["y"] == ["neg", "&lt;pos&gt;"]
    assert heatmap_matrix(figure).tolist() == [[75.0, 25.0], [0.0, 100.0]]  # the colour: each row's share, in %
    assert np.asarray(cells["text"]).tolist() == [[3, 1], [0, 4]] and cells["texttemplate"] == "%{text}"  # counts
    assert (cells["zmin"], cells["zmax"]) == (0, 100)
    layout = figure["layout"]
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("predicted", "true")


def test_tag_strip_colours_entities_and_escapes_tokens():
    tokens = ["[CLS]", "李", "明", "<b>", "[SEP]"]
    tags = ["O", "B-PER", "I-PER", "B-XYZ", "O"]
    special = [True, False, False, False, True]
    assert [charts.tag_code(tag, flag) for tag, flag in zip(tags, special)] == [0, 2, 3, 1, 0]
    markup = charts.tag_strip(tokens, tags, [0.9] * 5, special, title="tags")
    assert isinstance(markup, str)
    assert "&lt;b&gt;" in markup and "<b>" not in markup  # what the reader typed is text
    fills = [f"--fill:{colour}" for colour in (charts.SPECIAL_COLOUR, LIGHT[ORANGE], PALE[ORANGE])]
    fills += [f"--fill:{charts.OUTSIDE_COLOUR}", f"--fill:{charts.SPECIAL_COLOUR}"]
    boxes = markup.split('<li class="box" ')[1:]
    assert [box.split('"')[1] for box in boxes] == fills
    assert 'title="1 · 李 · B-PER 90%"' in markup and "<small>I-PER</small>" in markup
    assert "<small>O</small>" not in boxes[0]  # no tag under [CLS]
    with pytest.raises(ValueError):
        charts.tag_strip(tokens, tags[:2], [0.5] * 5, special)


def test_cls_attention_bars_group_before_and_after():
    figure = figure_of(
        charts.cls_attention_bars(
            ["[CLS]", "好", "好", "</script>"],
            [0.4, 0.3, 0.2, 0.1],
            [0.1, 0.2, 0.3, 0.4],
            before_name="before",
            after_name="after",
        )
    )
    bars = figure["data"]
    assert [trace["name"] for trace in bars] == ["before", "after"]
    assert all(trace["type"] == "bar" for trace in bars) and figure["layout"]["barmode"] == "group"  # side by side
    shown = figure["layout"]["xaxis"]["categoryarray"]
    assert len(set(shown)) == 4 and labels(shown)[3] == "</script>" and bars[0]["x"] == shown
    assert bars[0]["y"] == [40.0, 30.0, 20.0, 10.0]  # in percent
    with pytest.raises(ValueError):
        charts.cls_attention_bars(["a"], [1.0], [0.5, 0.5], before_name="b", after_name="a")


def test_layer_change_bars_keep_the_parts_in_order_and_name_runs_only_when_several():
    changes = {"embeddings": 0.0, "layer 1": 0.0125, "pooler": 0.02}
    one = figure_of(
        charts.layer_change_bars(
            {"pretrained": changes}, part_names=list(changes), run_names={"pretrained": "P"}, axis_title="change"
        )
    )
    assert one["layout"]["xaxis"]["categoryarray"] == list(changes) and one["data"][0]["y"] == [0.0, 1.25, 2.0]
    assert one["layout"]["showlegend"] is False and one["layout"]["yaxis"]["title"]["text"] == "change"
    both = figure_of(
        charts.layer_change_bars(
            {"pretrained": changes, "random": changes},
            part_names=list(changes),
            run_names={"pretrained": "P", "random": "R"},
            axis_title="change",
        )
    )
    assert both["layout"]["showlegend"] is True and [trace["name"] for trace in both["data"]] == ["P", "R"]
