"""Charts in words: each summary function finds the chart's main finding from the same numbers, in both
languages, without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

from app.attention import charts as attention_charts
from app.core import segments, shared_charts
from app.core.charts import ranked_summary, strongest_link
from app.core.i18n import LANGUAGES, load_all
from app.embeddings import charts as embedding_charts
from app.fill_mask import charts as fill_mask_charts
from app.heads import charts as heads_charts
from app.masking import charts as masking_charts
from app.nsp import charts as nsp_charts
from model.results import FillStep, PllResult, Prediction, TokenAttributions, TokenScore

STRINGS = load_all()


def text(key: str, lang: str) -> str:
    return STRINGS[key][lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_strongest_link_names_the_largest_weight_between_two_tokens(lang):
    tokens = ["[CLS]", "bank", "river", "[SEP]"]
    matrix = np.full((4, 4), 0.05)
    np.fill_diagonal(matrix, 0.9)  # a token's weight on itself is larger, but says less about the sentence
    matrix[1, 2] = 0.42
    summary = strongest_link(matrix, tokens, text("common.summary_strongest_link", lang))
    assert "“bank” → “river”" in summary and "0.42" in summary
    assert "[CLS]" not in summary


def test_strongest_link_of_a_single_token_is_its_own_weight():
    summary = strongest_link(np.array([[1.0]]), ["[CLS]"], "{source} {target} {weight:.2f}")
    assert summary == "[CLS] [CLS] 1.00"
    with pytest.raises(ValueError):
        strongest_link(np.ones((2, 3)), ["a", "b"], "{source}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_ranked_summary_lists_the_top_three_largest_first(lang):
    summary = ranked_summary(["a", "b", "c", "d"], [0.1, 0.5, 0.05, 0.3], text("common.summary_most_likely", lang))
    assert summary.index("“b” 50.0%") < summary.index("“d” 30.0%") < summary.index("“a” 10.0%")
    assert "“c”" not in summary


def test_prediction_and_fill_order_summaries_follow_the_model_output():
    predictions = [Prediction(token="paris", id=1, prob=0.6), Prediction(token="lyon", id=2, prob=0.2)]
    assert predictions_summary_en(predictions) == "Most likely: “paris” 60.0% · “lyon” 20.0%."
    steps = [
        FillStep(index=3, chosen=predictions[1], predictions=predictions),
        FillStep(index=1, chosen=predictions[0], predictions=predictions),
    ]
    summary = fill_order_summary_zh(steps)
    assert summary.startswith("写入顺序：") and summary.index("lyon") < summary.index("paris")


def predictions_summary_en(predictions) -> str:
    return shared_charts.predictions_summary(predictions, text("common.summary_most_likely", "en"))


def fill_order_summary_zh(steps) -> str:
    return fill_mask_charts.fill_order_summary(steps, text("fill_mask.summary_order", "zh"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_pll_summary_names_the_most_and_least_natural_sentence(lang):
    def result(sentence: str, pll: float) -> PllResult:
        return PllResult(text=sentence, pll=pll, tokens=[TokenScore(token="x", log_prob=pll)], truncated=False)

    results = [result("odd one", -20.5), result("good one", -3.25), result("middle", -9.0)]
    summary = fill_mask_charts.pll_summary(results, text("fill_mask.summary_scores", lang))
    assert summary.index("good one") < summary.index("odd one")
    assert "-3.25" in summary and "-20.50" in summary and "middle" not in summary


@pytest.mark.parametrize("lang", LANGUAGES)
def test_statistics_summary_finds_each_statistics_strongest_head(lang):
    cls = np.zeros((2, 3))
    cls[1, 2] = 0.8
    entropy = np.ones((2, 3))
    entropy[0, 1] = 3.5
    titles = {"cls": "CLS", "entropy": "H"}
    summary = shared_charts.statistics_summary(
        {"cls": cls, "entropy": entropy}, titles, text("attention.summary_statistics", lang)
    )
    cls_part, entropy_part = summary.split(" · ")
    template = text("attention.summary_statistics", lang)
    # Layers and heads counted from 1 (index (1, 2) is L2 H3); a share in percent, as its panel shows it.
    assert cls_part == template.format(statistic="CLS", layer=2, head=3, value="80%")
    assert entropy_part.startswith(template.format(statistic="H", layer=1, head=2, value="3.5"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_segment_summary_counts_each_segment(lang):
    summary = segments.segment_summary([0, 0, 0, 0, 1, 1, 1], text("nsp.summary_strip", lang), cls="<s>", sep="</s>")
    assert "4" in summary and "3" in summary and "<s>" in summary and "</s>" in summary


def test_a_layout_is_written_in_the_models_own_special_tokens():
    special = [True, False, False, True, True, False, True]
    assert segments.layout_of(["<s>", "a", "b", "</s>", "</s>", "c", "</s>"], special) == "<s> A </s> </s> B </s>"
    bert = ["[CLS]", "a", "[SEP]", "b", "c", "[SEP]"]
    assert segments.layout_of(bert, [True, False, True, False, False, True]) == "[CLS] A [SEP] B [SEP]"
    assert segments.layout_of(bert[:3], [True, False, True]) == "[CLS] A [SEP]"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_head_lab_summaries(lang):
    means = {"cls": [0.1, 0.6, 0.3], "sep": [0.5, 0.2, 0.1]}
    profile = heads_charts.profile_summary(means, {"cls": "C", "sep": "S"}, text("heads.summary_profile", lang))
    assert "60%" in profile.split(" · ")[0] and "50%" in profile.split(" · ")[1]
    counts = {"vertical": [3, 4], "block": [1, 0], "diagonal": [0, 4]}
    names = {"vertical": "V", "block": "B", "diagonal": "D"}
    patterns = heads_charts.pattern_summary(counts, names, text("heads.summary_patterns", lang))
    assert "V" in patterns and "7" in patterns and "12" in patterns
    importance = np.array([[0.2, 0.9], [0.05, 0.3]])
    summary = heads_charts.importance_summary(importance, text("heads.summary_importance", lang))
    assert summary.index("0.900") < summary.index("0.050")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_embedding_summaries(lang):
    values = np.zeros((3, 8))
    values[2, 5] = -4.0
    values[1, 7] = 9.0  # beyond the dimensions shown
    summary = embedding_charts.part_summary(values, ["a", "b", "c"], 6, text("embeddings.summary_part", lang))
    assert "“c”" in summary and "5" in summary and "-4.000" in summary
    n = 12
    positions = np.arange(n)
    similarity = np.cos((positions[:, None] - positions[None, :]) / 4)
    summary = embedding_charts.position_summary(similarity, text("embeddings.summary_positions", lang))
    assert f"{np.cos(1 / 4):.2f}" in summary and f"{np.cos(10 / 4):.2f}" in summary
    with pytest.raises(ValueError):
        embedding_charts.position_summary(np.ones((1, 1)), "{near}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_convergence_summary_reports_the_last_share_and_its_target(lang):
    series = [("masked", [0.5, 0.79, 0.801], 0.8, "#000000"), ("random", [0.0, 0.12, 0.099], 0.1, "#000000")]
    summary = masking_charts.convergence_summary(
        [1, 10, 1000], series, text("masking.summary_convergence", lang), text("masking.summary_convergence_item", lang)
    )
    assert "1,000" in summary and "80.1%" in summary and "80.0%" in summary and "9.9%" in summary


@pytest.mark.parametrize("lang", LANGUAGES)
def test_fine_tuning_summaries(lang):
    from app.finetune import charts as finetune_charts

    counts = [[8, 2, 0], [5, 10, 0], [0, 1, 4]]
    summary = finetune_charts.confusion_summary(
        counts,
        ["neg", "pos", "mixed"],
        text("finetune.summary_confusion", lang),
        text("finetune.summary_confusion_none", lang),
    )
    assert "73%" in summary and summary.index("pos") < summary.index("neg") and "5" in summary
    perfect = finetune_charts.confusion_summary(
        [[3, 0], [0, 2]], ["a", "b"], "{true}", text("finetune.summary_confusion_none", lang)
    )
    assert "100%" in perfect
    cls = finetune_charts.cls_attention_summary(
        ["[CLS]", "good", "[SEP]"], [0.1, 0.2, 0.7], [0.1, 0.8, 0.1], text("finetune.summary_cls", lang)
    )
    assert cls.index("[SEP]") < cls.index("good") and "70%" in cls and "80%" in cls
    layers = finetune_charts.layer_change_summary(
        {"attention": 0.01, "ffn": 0.03}, ["Attn", "FFN"], text("finetune.summary_layers", lang)
    )
    assert "FFN" in layers and "3.00%" in layers


@pytest.mark.parametrize("lang", LANGUAGES)
def test_live_pre_training_loss_summary_names_each_run_that_ran(lang):
    from app.core import live_charts as pretrain_live

    records = {"a": [{"mlm_loss": 9.5, "steps": 0}, {"mlm_loss": 4.25, "steps": 300}], "b": []}
    summary = pretrain_live.loss_summary(records, {"a": "Run A", "b": "Run B"}, text("live_run.summary_loss", lang))
    assert "Run A" in summary and "9.50" in summary and "4.25" in summary and "300" in summary
    assert "Run B" not in summary


# Every chart a page draws -----------------------------------------------------------------------------------


def chart_calls(tree):
    """(call, statement after it) for each ``plot(...)``, ``ui.plot(...)`` and ``st.plotly_chart(...)`` statement."""
    import ast

    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if not isinstance(statements, list):
                continue
            for index, statement in enumerate(statements):
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                    name = ast.unparse(statement.value.func)
                    if name in ("plot", "ui.plot", "st.plotly_chart"):
                        following = statements[index + 1] if index + 1 < len(statements) else None
                        yield statement.value, following


def test_every_chart_on_every_page_has_its_summary():
    """A chart passes ``summary=`` to ``ui.plot``; a chart drawn by ``st.plotly_chart`` itself writes its summary
    in the caption right below it."""
    import ast
    from pathlib import Path

    pages = sorted(Path("app").glob("*/page.py"))  # each page draws in its concept folder
    missing, charts = [], 0
    for page in pages:
        for call, following in chart_calls(ast.parse(page.read_text(encoding="utf-8"))):
            charts += 1
            if ast.unparse(call.func) == "st.plotly_chart":
                caption = following is not None and ast.unparse(following).startswith("st.caption(")
                if caption and "_summary(" in ast.unparse(following):
                    continue
            elif any(keyword.arg == "summary" for keyword in call.keywords):
                continue
            missing.append(f"{page}:{call.lineno}")
    assert charts > 40  # the scan finds the pages' charts
    assert not missing, missing


# The summaries of the charts that had none --------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_thumbnails_summary_names_the_layer_with_most_heads_of_each_pattern(lang):
    patterns = np.array(
        [
            ["vertical", "diagonal", "heterogeneous"],
            ["vertical", "vertical", "heterogeneous"],
            ["block", "vertical", "vertical"],
        ]
    )
    names = {"vertical": "V", "diagonal": "D", "block": "B", "heterogeneous": "H"}
    summary = heads_charts.thumbnails_summary(patterns, names, text("heads.summary_thumbnails", lang))
    vertical, diagonal, block = summary.split(" · ")  # commonest type first, "no pattern" left out
    template = text("heads.summary_thumbnails", lang)
    # Layers counted from 1: the first layer with the most vertical heads is index 1, layer 2.
    assert vertical == template.format(pattern="V", layer=2, n=2, heads=3)
    assert diagonal == template.format(pattern="D", layer=1, n=1, heads=3)
    assert block == template.format(pattern="B", layer=3, n=1, heads=3) and "H" not in summary


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compared_and_views_summaries_of_the_head_lab(lang):
    rows = [("paris", 0.6, 0.55), ("lyon", 0.1, 0.4), ("nice", 0.05, 0.01)]
    summary = heads_charts.compared_summary(rows, text("heads.summary_compared", lang))
    assert "lyon" in summary and "10.0%" in summary and "40.0%" in summary
    rows = {"raw": np.array([0.1, 0.7, 0.2]), "rollout": np.array([0.5, 0.2, 0.3])}
    views = heads_charts.views_summary(
        ["a", "b", "c"], rows, {"raw": "R", "rollout": "O"}, text("heads.summary_views", lang)
    )
    raw, rollout = views.split(" · ")
    assert "“b”" in raw and "70%" in raw and "“a”" in rollout and "50%" in rollout


def test_neighbour_agreement_is_one_for_separate_clusters_and_low_for_mixed_ones():
    from app.layers import charts as layer_charts

    points = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    assert layer_charts.neighbour_agreement(points, ["a", "a", "b", "b"]) == 1.0
    assert layer_charts.neighbour_agreement(points, ["a", "b", "a", "b"]) == 0.0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_pca_summary_finds_the_layer_where_labels_separate(lang):
    from app.layers import charts as layer_charts

    rng = np.random.default_rng(0)
    labels = ["noun"] * 6 + ["verb"] * 6
    mixed = rng.normal(size=(12, 2))
    apart = np.concatenate([rng.normal(size=(6, 2)) * 0.1, rng.normal(size=(6, 2)) * 0.1 + 5])
    coords = np.stack([mixed, mixed, apart])
    explained = np.array([[0.3, 0.2], [0.4, 0.2], [0.9, 0.05]])
    summary = layer_charts.pca_summary(
        coords,
        explained,
        labels,
        text("layers.summary_projection", lang),
        text("layers.summary_projection_single", lang),
    )
    first_share = layer_charts.neighbour_agreement(mixed, labels)
    assert "2" in summary and "100%" in summary and f"{first_share:.0%}" in summary
    single = layer_charts.pca_summary(
        coords, explained, ["noun"] * 12, "{layer}/{share:.0%}", text("layers.summary_projection_single", lang)
    )
    assert "2" in single and "90%" in single


@pytest.mark.parametrize("lang", LANGUAGES)
def test_pca_3d_summary_gives_the_variance_and_how_labels_gather(lang):
    from app.layers import charts as layer_charts

    rng = np.random.default_rng(0)
    labels = ["noun"] * 5 + ["verb"] * 5
    apart = np.concatenate([rng.normal(size=(5, 3)) * 0.1, rng.normal(size=(5, 3)) * 0.1 + 5])
    template, single = text("layers.summary_projection_3d", lang), text("layers.summary_projection_3d_single", lang)
    summary = layer_charts.pca_3d_summary(apart, [0.5, 0.2, 0.1], labels, 4, template, single)
    assert summary == template.format(layer=4, share=0.8, agreement=1.0) and "80%" in summary and "100%" in summary
    mixed = layer_charts.pca_3d_summary(rng.normal(size=(10, 3)), [0.3, 0.2, 0.1], labels, 1, template, single)
    assert "60%" in mixed and "100%" not in mixed
    assert layer_charts.pca_3d_summary(apart, [0.5, 0.2, 0.1], ["noun"] * 10, 4, template, single) == single.format(
        layer=4, share=0.8
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_layer_line_summaries(lang):
    from app.layers import charts as layer_charts

    lines = {"pretrained": [0.5, 0.9, 0.7], "random": [0.4, 0.45, 0.42]}
    names = {"pretrained": "P", "random": "R"}
    best = layer_charts.best_layer_summary(lines, names, text("layers.summary_accuracy", lang))
    assert "90.0%" in best.split(" · ")[0] and "45.0%" in best.split(" · ")[1]
    series = layer_charts.series_summary({"a": [0.9, 0.5, 0.25]}, {"a": "A"}, text("layers.summary_geometry", lang))
    assert "0.90" in series and "0.25" in series and "2" in series


@pytest.mark.parametrize("lang", LANGUAGES)
def test_fine_tuning_curves_and_tags_summaries(lang):
    from app.finetune import charts as finetune_charts

    history = [{"init": "pretrained", "step": s, "accuracy": a, "loss": 1.0} for s, a in ((1, 0.5), (2, 0.5), (3, 1.0))]
    history += [{"init": "random", "step": 1, "accuracy": 0.25, "loss": 2.0}]
    summary = finetune_charts.curves_summary(
        history,
        {"pretrained": "P", "random": "R"},
        text("finetune.summary_curves", lang),
        {"pretrained": 0.82},
        text("finetune.summary_heldout", lang),
        window=2,
    )
    pretrained, random = summary.split(" · ")
    assert "3" in pretrained and "50%" in pretrained and "75%" in pretrained and "82%" in pretrained
    assert "25%" in random and "82%" not in random
    tags = finetune_charts.tags_summary(
        ["[CLS]", "new", "york", "is", "big", "[SEP]"],
        ["O", "B-LOC", "I-LOC", "O", "B-PER", "O"],
        [True, False, False, False, False, True],
        text("finetune.summary_tags", lang),
        text("finetune.summary_tags_none", lang),
    )
    assert "“new york” LOC" in tags and "“big” PER" in tags
    none = text("finetune.summary_tags_none", lang)
    assert finetune_charts.tags_summary(["a"], ["O"], [False], "{items}", none) == none
    assert finetune_charts.join_pieces(["play", "##ing", "北", "京"]) == "playing北京"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_live_pre_training_accuracy_and_kinds_summaries(lang):
    from app.core import live_charts as pretrain_live

    records = {
        "a": [
            {"heldout_top1": 0.51, "steps": 0, "frequency_baseline_top1": 0.3},
            {"heldout_top1": 0.82, "steps": 180, "frequency_baseline_top1": 0.3},
        ],
        "b": [],
    }
    summary = pretrain_live.accuracy_summary(
        records,
        {"a": "Run A", "b": "Run B"},
        text("live_run.summary_accuracy", lang),
        text("live_run.summary_baseline", lang),
    )
    assert "180" in summary and "82%" in summary and "51%" in summary and "30%" in summary and "Run B" not in summary
    last = {"a": {"heldout_top1": 0.4, "kept_top1": 0.9, "random_top1": 0.05}, "b": None}
    kinds = pretrain_live.kinds_summary(
        last,
        {"a": "Run A", "b": "Run B"},
        {"masked": "M", "kept": "K", "random": "X"},
        text("pretrain_live.summary_kinds", lang),
    )
    assert kinds.index("K") < kinds.index("X") and "90%" in kinds and "5%" in kinds and "Run B" not in kinds


@pytest.mark.parametrize("lang", LANGUAGES)
def test_overview_summaries(lang):
    from app.overview import charts as overview

    stages = [("Pre", ["text", "BERT"], "once"), ("Fine", ["head"], "fast")]
    summary = overview.paradigm_summary(stages, text("overview.summary_paradigm", lang))
    assert "text → BERT" in summary and summary.index("Pre") < summary.index("Fine") and "fast" in summary
    counts = [
        {"total": 110_000_000, "encoder": 85_000_000},
        {"total": 4_400_000, "encoder": 2_000_000},
    ]
    params = overview.parameters_summary(["Base", "Ours"], counts, text("overview.summary_params", lang))
    assert "110.0M" in params and "77%" in params and "4.4M" in params and "25" in params
    results = overview.results_summary(
        ["GLUE", "SQuAD"], [72.8, 91.7], [80.5, 93.2], text("overview.summary_results", lang)
    )
    assert results.index("GLUE") < results.index("7.7") < results.index("SQuAD") < results.index("1.5")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_remaining_page_chart_summaries(lang):
    from app.classroom import charts as classroom_charts

    x = np.linspace(0, 6, 32)
    vectors = {"token": np.sin(x) * 3, "segment": np.full(32, 0.1), "position": np.cos(x) * 0.2}
    vectors["sum"] = vectors["token"] + vectors["segment"] + vectors["position"]
    labels = {"token": "T", "segment": "S", "position": "P"}
    summary = embedding_charts.vectors_summary(vectors, 32, labels, text("embeddings.summary_vectors", lang))
    assert "T" in summary and "S" not in summary.replace("Sum", "")
    norms = embedding_charts.norms_summary(
        {"a": 1.5, "b": 9.25}, {"a": "A", "b": "B"}, text("embeddings.summary_norms", lang)
    )
    assert norms.index("B 9.25") < norms.index("A 1.50")
    strip = masking_charts.strip_summary(
        [0, 1, 1, 3], {0: "none", 1: "mask", 2: "random", 3: "kept"}, text("masking.summary_strip", lang)
    )
    assert "4" in strip and "mask: 2" in strip and "random" not in strip
    above, below = text("nsp.summary_gauge_above", lang), text("nsp.summary_gauge_below", lang)
    assert nsp_charts.gauge_summary(0.5, above, below) == above.format(p=0.5)
    assert nsp_charts.gauge_summary(0.2, above, below) == below.format(p=0.2)
    change = np.array([[0.1, 0.5], [0.3, 0.35]])
    moved = attention_charts.change_summary(change, text("attention.summary_change", lang))
    assert "0.325" in moved and "0.500" in moved
    guesses = classroom_charts.guesses_summary(
        [("paris", 12), ("<b>", 3), ("lyon", 2), ("rome", 1)],
        {"paris"},
        text("classroom.summary_guesses", lang),
        text("classroom.summary_match", lang),
    )
    assert guesses.index("paris") < guesses.index("lyon") and "rome" not in guesses
    assert guesses.count(text("classroom.summary_match", lang)) == 1


def _shares(scores: list[float], one_point: list[float], start: float, end: float) -> TokenAttributions:
    tokens = ["[CLS]", *[f"w{i}" for i in range(len(scores) - 2)], "[SEP]"]
    special = [True] + [False] * (len(scores) - 2) + [True]
    answer = Prediction("sport", 0, 0.99)
    return TokenAttributions("text", tokens, special, None, answer, scores, one_point, start, end, 0.0, 48)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_word_shares_keep_two_significant_digits_when_the_move_is_small(lang):
    """A classifier whose blank sentence already reads as its label moves log p by hundredths: the bars' numbers
    and the finding keep two significant digits instead of showing +0.00."""
    small = _shares([0.0, -0.0123, 0.0312, 0.0005, 0.0], [0.0, 0.004, -0.002, 0.001, 0.0], -0.040, -0.021)
    assert shared_charts.share_decimals(small) == 3
    chart = shared_charts.attribution_bars(small, title="t", axis_title="a", names=("ig", "gxi"))
    integrated, gradient = chart.figure.data
    assert list(integrated.text) == ["-0.012", "+0.031", "+0.001"]
    assert list(gradient.text) == ["+0.004", "-0.002", "+0.001"]
    assert list(integrated.x) == [-0.0123, 0.0312, 0.0005]  # no bar rounded away
    summary = shared_charts.attribution_summary(small, text("finetune.ig_summary", lang), answer="sport")
    assert "+0.031" in summary and "-0.040" in summary and "+0.003" in summary
    large = _shares([0.0, 4.02, -1.1, 0.0], [0.0, 0.6, -0.2, 0.0], -9.29, -1.05)
    assert shared_charts.share_decimals(large) == 2
    # The blank sentence gave the label 96% (log p -0.040): said beside the small bars; not where it gave 0.01%.
    assert shared_charts.blank_already_answers(small) and not shared_charts.blank_already_answers(large)
