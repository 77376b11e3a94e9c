"""Charts in words: each summary function finds the chart's main finding from the same numbers, in both
languages, without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

from app.charts import attention as attention_charts
from app.charts import embeddings as embedding_charts
from app.charts import fill_mask as fill_mask_charts
from app.charts import heads as heads_charts
from app.charts import masking as masking_charts
from app.charts import nsp as nsp_charts
from app.charts.base import ranked_summary, strongest_link
from app.text import LANGUAGES, load_all
from model.inference import FillStep, PllResult, Prediction, TokenScore

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
    return fill_mask_charts.predictions_summary(predictions, text("common.summary_most_likely", "en"))


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
    summary = attention_charts.statistics_summary(
        {"cls": cls, "entropy": entropy}, titles, text("attention.summary_statistics", lang)
    )
    cls_part, entropy_part = summary.split(" · ")
    assert "1" in cls_part and "2" in cls_part and "80%" in cls_part  # a share in percent, as its panel shows it
    assert "0" in entropy_part and "3.5" in entropy_part and "%" not in entropy_part


@pytest.mark.parametrize("lang", LANGUAGES)
def test_segment_summary_counts_each_segment(lang):
    summary = nsp_charts.segment_summary([0, 0, 0, 0, 1, 1, 1], text("nsp.summary_strip", lang))
    assert "4" in summary and "3" in summary


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
    from app.charts import finetune as finetune_charts

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
    from app.charts import pretrain_live

    records = {"a": [{"mlm_loss": 9.5, "steps": 0}, {"mlm_loss": 4.25, "steps": 300}], "b": []}
    summary = pretrain_live.loss_summary(
        records, {"a": "Run A", "b": "Run B"}, text("pretrain_live.summary_loss", lang)
    )
    assert "Run A" in summary and "9.50" in summary and "4.25" in summary and "300" in summary
    assert "Run B" not in summary
