"""The session's fine-tuned model as a model of its own: picked in the sidebar, refused plainly by the pages that
need a pre-training head, compared before and after on the attention page; and the per-head change measure."""

from __future__ import annotations

import time

import numpy as np
import pytest

from app.core import attention_stats as stats
from app.core.i18n import strings_of
from app.core.jobs import Owner
from app.core.models import finetuned_spec, get_model
from app.finetune import jobs
from model.inference import attention_maps
from model.training.finetune import demo_settings
from tests.apptest_helpers import charts, heatmap_matrix, open_app_page

ATTENTION = strings_of("attention")
COMMON = strings_of("common")
FINETUNE = strings_of("finetune")

# --- the per-head change ---------------------------------------------------------------------------------


def random_maps(rng, shape) -> np.ndarray:
    scores = rng.normal(size=shape)
    return np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)


def test_head_change_is_zero_for_the_same_maps_and_one_for_disjoint_rows():
    rng = np.random.default_rng(0)
    maps = random_maps(rng, (2, 3, 5, 5))
    assert np.array_equal(stats.head_change(maps, maps), np.zeros((2, 3)))
    # Every token looks at itself before and at the next token after: nothing in common.
    before = np.broadcast_to(np.eye(4), (1, 2, 4, 4))
    after = np.broadcast_to(np.roll(np.eye(4), 1, axis=1), (1, 2, 4, 4))
    assert np.allclose(stats.head_change(before, after), 1.0)


def test_head_change_is_the_mean_over_rows_of_half_the_l1_distance():
    before = np.zeros((1, 2, 2, 2))
    after = np.zeros((1, 2, 2, 2))
    before[0, 0] = [[1.0, 0.0], [0.5, 0.5]]
    after[0, 0] = [[0.75, 0.25], [0.5, 0.5]]  # row 0 moved a quarter, row 1 nothing
    before[0, 1] = after[0, 1] = [[0.5, 0.5], [0.5, 0.5]]
    change = stats.head_change(before, after)
    assert change.shape == (1, 2)
    assert change[0, 0] == pytest.approx((0.25 + 0.0) / 2) and change[0, 1] == 0.0
    assert stats.largest_change(change) == (0, 0, pytest.approx(0.125))
    with pytest.raises(ValueError, match="same tokens"):
        stats.head_change(before, after[:, :, :1])


def test_largest_change_names_layer_then_head_and_layer_change_averages_each_layer():
    change = np.zeros((3, 4))
    change[2, 1] = 0.3
    change[0, 3] = 0.2
    assert stats.largest_change(change) == (2, 1, pytest.approx(0.3))
    assert np.allclose(stats.layer_change(change), [0.05, 0.0, 0.075])


# --- a real, tiny fine-tuning run shared by the page tests -----------------------------------------------


@pytest.fixture(scope="module")
def finished():
    """(owner, job): the embedded model fine-tuned on sentiment-zh for a few steps, then stopped."""
    owner = Owner()
    settings = demo_settings(epochs=1, batch_size=32, max_length=32, max_seconds=30.0)
    job = jobs.start(owner, get_model("embedded"), "sentiment-zh", settings, "pretrained", 100)
    deadline = time.time() + 90
    while not job.snapshot().history:
        assert time.time() < deadline, "no training step within 90 s"
        time.sleep(0.5)
    job.stop()
    assert job.wait(90), "the stopped training did not end"
    assert job.trained_model("pretrained") is not None, job.snapshot().error
    return owner, job


def with_job(name: str, finished, lang: str = "en", choose: bool = True, **state):
    owner, job = finished
    spec = finetuned_spec(job.id, "pretrained")
    return open_app_page(
        name,
        lang,
        finetune_owner=owner,
        session_models=job,
        model_choice=spec if choose else None,
        **state,
    ), spec


def shown(at) -> str:
    kinds = ("markdown", "caption", "info", "warning", "error", "subheader", "title")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def label(lang: str) -> str:
    return COMMON["model_finetuned"][lang].format(
        task=FINETUNE["task_sentiment-zh"][lang], run=FINETUNE["init_pretrained"][lang]
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sidebar_offers_the_fine_tuned_model_and_links_do_not_carry_it(finished, lang):
    at, spec = with_job("attention", finished, lang, choose=False)
    picker = at.sidebar.selectbox(key="w_model_choice")
    assert label(lang) in picker.options
    picker.set_value(spec).run()
    assert not at.exception
    assert at.session_state["model_choice"] == spec
    assert COMMON["finetuned_note"][lang] in shown(at)
    assert all(spec not in value and "finetuned" not in value for value in at.query_params.values())


def test_without_its_job_a_session_cannot_load_a_fine_tuned_spec(finished):
    """Another session that learnt the spec gets the embedded model, through the picker or the folder field."""
    _, job = finished
    spec = finetuned_spec(job.id, "pretrained")
    at = open_app_page("attention", "en", model_choice=spec)
    assert at.session_state["model_choice"] == "embedded"
    at = open_app_page("attention", "en", model_choice="folder", model_folder=spec)
    gone = COMMON["model_failed"]["en"].format(error=COMMON["checkpoint_finetuned_gone"]["en"])
    assert gone in [e.value for e in at.sidebar.error]
    assert COMMON["using_fallback"]["en"] in [e.value for e in at.sidebar.info]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("page", "head"), [("fill_mask", "mlm"), ("nsp", "nsp"), ("gpt_vs_bert", "mlm")])
def test_pages_that_need_a_pre_training_head_say_so(finished, lang, page, head):
    at, _ = with_job(page, finished, lang)
    message = COMMON["needs_head"][lang].format(head=COMMON[f"head_{head}"][lang], name=label(lang))
    assert message in [w.value for w in at.warning]


def test_the_masking_page_draws_and_says_it_cannot_predict(finished):
    at, _ = with_job("masking", finished, "en")
    at.toggle(key="masking_predict").set_value(True).run()
    assert not at.exception
    message = COMMON["needs_head"]["en"].format(head=COMMON["head_mlm"]["en"], name=label("en"))
    assert message in [i.value for i in at.info]


@pytest.mark.parametrize("page", ["embeddings", "layers", "overview"])
def test_encoder_pages_work_with_the_fine_tuned_model(finished, page):
    at, _ = with_job(page, finished, "zh")
    assert not at.exception and not at.warning


def test_the_fine_tuning_page_starts_only_from_a_pre_trained_model(finished):
    at, _ = with_job("finetune", finished, "en")
    assert at.button(key="finetune_start").disabled
    assert FINETUNE["start_from_pretrained"]["en"] in [i.value for i in at.info]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_attention_shows_before_and_after_with_the_per_head_change(finished, lang):
    _, job = finished
    at, _ = with_job("attention", finished, lang, choose=False)
    assert ATTENTION["finetune_title"][lang] in [s.value for s in at.subheader]
    at.toggle(key="attention_finetune").set_value(True).run()
    assert not at.exception
    drawn_charts = charts(at)
    titles = [option["chart_title"] or "" for option in drawn_charts]
    which = ATTENTION["head_label"][lang].format(layer=1, head=1)  # index 0, counted from 1
    before_title = ATTENTION["before_title"][lang].format(model=COMMON["model_embedded_name"][lang], which=which)
    assert before_title in titles and ATTENTION["after_title"][lang].format(which=which) in titles
    grid = next(option for option in drawn_charts if option["chart_title"] == ATTENTION["change_title"][lang])
    # The grid is the change between the two models' own maps of the page's sentence, computed here directly.
    text = at.session_state["text"]
    expected = stats.head_change(
        attention_maps(get_model("embedded"), text).attentions,
        jobs.finetuned_attention(job.trained_model("pretrained"), job.tokenizer, text).attentions,
    )
    # The page's maps come from a batch of two (bidirectional and causal, attention_maps_both), these from a batch
    # of one: float32 sums in another order, so equal to 1e-5, the bar test_inference_traced.py holds maps to
    # (numpy's default, 1e-8 beside a 1e-5 share, failed once in CI at a head that moved little); the chart sends
    # each cell as it is (float64).
    drawn = heatmap_matrix(grid)
    np.testing.assert_allclose(drawn, expected, rtol=0, atol=1e-5)
    assert expected.max() > 0  # fine-tuning moved the maps
    layer, head, value = stats.largest_change(expected)
    by_layer = " · ".join(f"{v:.3f}" for v in expected.mean(axis=1))
    note = ATTENTION["change_note"][lang].format(layer=layer + 1, head=head + 1, value=value, by_layer=by_layer)
    assert note in shown(at)
    at.button(key="attention_show_most_changed").click().run()
    assert (at.session_state["layer"], at.session_state["head"]) == (layer, head)
