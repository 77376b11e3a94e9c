"""GPT versus BERT: the two compared (Devlin et al. 2019, appendix A.4), then one model read both ways, live."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.core import model_facts, models, ui
from app.core.charts import probability_bars, strongest_link
from app.core.i18n import t
from app.core.shared_charts import BIDIRECTIONAL_COLOR, CAUSAL_COLOR, paired_maps, predictions_summary
from app.core.state import PageContext
from app.gpt_vs_bert import charts


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    ui.page_title(t("gpt_vs_bert.title"), t("gpt_vs_bert.intro"))
    st.header(t("gpt_vs_bert.live_header"))
    st.markdown(t("gpt_vs_bert.live_intro"))
    attention_both_ways(context.spec, context.bundle, context.text)
    masked_text = predictions_both_ways(context.spec, context.bundle, context.text)
    model_facts.show(context.bundle, context.lang, key="gpt_vs_bert_model")  # what to expect of this model's answers
    # Show, then tell: the one model read both ways above, the two families compared below, folded.
    the_two_families()
    ui.for_engineers(
        context.spec, ["fill-mask", masked_text, "--causal"], ["attention", context.text, "--causal", "--json"]
    )


def attention_both_ways(spec: str, bundle, text: str) -> None:
    """The sentence's attention read causally (GPT) and bidirectionally (BERT), averaged over heads, side by side."""
    # Both readings take the same input, so a bad input is explained once, by the first call.
    bidirectional = ui.run_or_explain(models.attention, spec, text, None, False)
    causal = models.attention(spec, text, None, True) if bidirectional is not None else None
    if causal is None:
        return
    ui.truncation_notice(bidirectional, bundle.tokenizer.max_length)
    causal_mean = charts.mean_over_heads(causal.attentions)
    bidirectional_mean = charts.mean_over_heads(bidirectional.attentions)
    st.markdown(
        t(
            "gpt_vs_bert.upper_share",
            causal=charts.upper_triangle_share(causal_mean),
            bidirectional=charts.upper_triangle_share(bidirectional_mean),
        )
    )
    causal_shown, tokens = charts.crop(causal_mean, causal.tokens)
    bidirectional_shown, _ = charts.crop(bidirectional_mean, bidirectional.tokens)
    if len(tokens) < len(causal.tokens):
        st.caption(t("gpt_vs_bert.cropped", shown=len(tokens), total=len(causal.tokens)))
    bidirectional_map, causal_map = paired_maps(
        bidirectional_shown,
        causal_shown,
        tokens,
        titles=(t("gpt_vs_bert.bidirectional_title"), t("gpt_vs_bert.causal_title")),
    )
    causal_column, bidirectional_column = st.columns(2)  # GPT first, as in the table and the sketch below
    with causal_column:
        link = t("common.summary_strongest_link")
        ui.plot(causal_map, key="gpt_vs_bert_attention_causal", summary=strongest_link(causal_shown, tokens, link))
    with bidirectional_column:
        summary = strongest_link(bidirectional_shown, tokens, link)
        ui.plot(bidirectional_map, key="gpt_vs_bert_attention_bidirectional", summary=summary)
    ui.download_buttons(
        "attention_causal_vs_bidirectional",
        lambda: (
            ["reading", "row", "column", "row_token", "column_token", "weight"],
            charts.attention_rows(tokens, {"causal": causal_shown, "bidirectional": bidirectional_shown}),
        ),
        key="gpt_vs_bert_attention",
    )


def predictions_both_ways(spec: str, bundle, text: str) -> str:
    """The first [MASK] filled by each reading, with what each sees; returns the masked sentence it used."""
    # a lesson step outlines this part (app.lessons)
    with st.container(key="gpt_vs_bert_mask"):
        st.header(t("gpt_vs_bert.mask_header"))
        st.markdown(t("gpt_vs_bert.mask_intro"))
        ui.require_pretraining_head(bundle, "mlm")
        uses_session = "[MASK]" in text
        masked_text = text if uses_session else t("gpt_vs_bert.mask_default")
        st.caption(t("gpt_vs_bert.mask_source_session") if uses_session else t("gpt_vs_bert.mask_source_default"))
        ui.preformatted(masked_text)
        bidirectional_fill = ui.run_or_explain(models.fill_mask, spec, masked_text, 5, False)
        if bidirectional_fill is None:
            st.stop()
        causal_fill = models.fill_mask(spec, masked_text, 5, True)
        ui.truncation_notice(bidirectional_fill, bundle.tokenizer.max_length)
        if len(bidirectional_fill.masks) > 1:
            st.caption(t("gpt_vs_bert.several_masks", n=len(bidirectional_fill.masks)))
        _prediction_columns(causal_fill, bidirectional_fill)
        st.caption(t("gpt_vs_bert.weights_note"))
    _prediction_downloads(masked_text, causal_fill, bidirectional_fill)
    return masked_text


def _prediction_columns(causal_fill, bidirectional_fill) -> None:
    first_mask = bidirectional_fill.masks[0].index
    causal_column, bidirectional_column = st.columns(2)
    for column, mode, result in (
        (causal_column, "causal", causal_fill),
        (bidirectional_column, "bidirectional", bidirectional_fill),
    ):
        predictions = result.masks[0].predictions
        with column:
            st.markdown(t(f"gpt_vs_bert.{mode}_sees"))
            visible = charts.visible_tokens(result.tokens, first_mask, mode == "causal")
            ui.preformatted(" ".join(visible))
            ui.plot(
                probability_bars(
                    [p.token for p in predictions],
                    [p.prob for p in predictions],
                    title=t(f"gpt_vs_bert.{mode}_predictions"),
                    color=CAUSAL_COLOR if mode == "causal" else BIDIRECTIONAL_COLOR,
                ),
                key=f"gpt_vs_bert_{mode}_predictions",
                summary=predictions_summary(predictions, t("common.summary_most_likely")),
            )


def _prediction_downloads(masked_text: str, causal_fill, bidirectional_fill) -> None:
    # The labels now: the files are made when the reader clicks, outside the run (and its session's language).
    fill_header = [t(f"gpt_vs_bert.col_{c}") for c in ("mode", "rank", "token", "prob")]
    causal_label, bidirectional_label = t("gpt_vs_bert.mode_causal"), t("gpt_vs_bert.mode_bidirectional")
    ui.download_buttons(
        "fill_mask_causal_vs_bidirectional",
        lambda: (
            fill_header,
            charts.prediction_rows(causal_label, causal_fill.masks[0].predictions)
            + charts.prediction_rows(bidirectional_label, bidirectional_fill.masks[0].predictions),
        ),
        data=lambda: {
            "text": masked_text,
            "causal": causal_fill.to_json(),
            "bidirectional": bidirectional_fill.to_json(),
        },
        key="gpt_vs_bert_fill",
    )


def the_two_families() -> None:
    """Folded: GPT and BERT compared in a table, and the two sketched."""
    with st.expander(t("gpt_vs_bert.table_header")):
        comparison = [row.split("|") for row in t("gpt_vs_bert.rows").splitlines()]
        aspect = t("gpt_vs_bert.col_dimension")
        st.table(pd.DataFrame(comparison, columns=[aspect, "GPT", "BERT"]).set_index(aspect))
        st.caption(t("gpt_vs_bert.foundation"))
    with st.expander(t("gpt_vs_bert.sketch_header")):
        ui.stages_figure([t("common.sketch_gpt"), t("common.sketch_bert")], [CAUSAL_COLOR, BIDIRECTIONAL_COLOR])
