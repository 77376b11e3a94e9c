"""MLM masking lab: why BERT masks, how (15%; 80/10/10), and live seeded draws on the session sentence.

Devlin et al. 2019, section 3.1 ("Task #1: Masked LM") and appendix C.2 (why the 80/10/10 mix)."""

from __future__ import annotations

import contextlib
import random

import pandas as pd
import streamlit as st

from app.core import models, ui
from app.core.i18n import t
from app.core.numbers import percent
from app.core.palette import BLUE, GREEN, ORANGE, VERMILLION
from app.core.state import SETTINGS, PageContext, keep
from app.core.tokens import escape_markdown
from app.masking import logic as lab
from app.masking.charts import convergence_chart, convergence_summary, strip_summary, token_strip
from model.training.pretraining_data import KEPT, MASKED, RANDOM

MAX_STRIP_TOKENS = 128  # beyond this the picture is taller than a screen; the table and CSV keep all
DRAW_COUNTS = (100, 1000, 5000)
MAX_FOREIGN_NAMED = 6  # the caption names a few such replacements; the strip shows them all
SERIES_COLORS = (BLUE, VERMILLION, ORANGE, GREEN)


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    ui.page_title(t("masking.title"), t("masking.lead"), t("masking.lab_intro"))
    bundle, text = context.bundle, context.text
    enc = ui.run_or_explain(models.tokenize, context.spec, text)  # an empty text: the shared prompt
    if enc is None:
        st.stop()
    ui.truncation_notice(enc, bundle.tokenizer.max_length)
    settings, seed = masking_controls()
    # Whole words need the Chinese word segmenter, which loads its dictionary on first use (about a second).
    with (
        st.spinner(t("masking.loading_segmenter"), show_time=False) if settings.whole_word else contextlib.nullcontext()
    ):
        draw = lab.draw_masking(enc, bundle.tokenizer, seed=seed, settings=settings, text=text)
    if draw.candidates == 0:
        st.warning(t("masking.no_candidates"))
        st.stop()
    one_draw(draw)
    why_and_how()
    the_labels(draw)
    predictions(bundle, draw)
    st.divider()
    statistics_over_draws(enc, bundle.tokenizer, seed, settings)


def _new_seed() -> None:
    st.session_state["masking_seed"] = random.randrange(1, 100_000)


def _request_statistics() -> None:
    # Once asked for, the statistics stay on the page and follow every later change of the settings.
    st.session_state["masking_stats_draws"] = st.session_state.get("masking_draw_count") or 1000


def masking_controls() -> tuple[lab.MaskingSettings, int]:
    """The rate, the 80/10/10 split, the seed and whole-word masking; returns the settings and the seed."""
    left, right = st.columns(2)
    rate, split, seed_range = SETTINGS["masking_rate"], SETTINGS["masking_split"], SETTINGS["masking_seed"]
    rate_percent = left.slider(
        t("masking.rate"), rate.low, rate.high, format="%d%%", help=t("masking.rate_help"), **keep("masking_rate")
    )
    split = right.slider(
        t("masking.split"), split.low, split.high, format="%d%%", help=t("masking.split_help"), **keep("masking_split")
    )
    seed_column, button_column, word_column = st.columns([2, 1, 2], vertical_alignment="bottom")
    seed = seed_column.number_input(
        t("masking.seed"), seed_range.low, seed_range.high, step=1, help=t("masking.seed_help"), **keep("masking_seed")
    )
    button_column.button(t("masking.draw_again"), on_click=_new_seed, key="masking_draw_again")
    whole_word = word_column.toggle(
        t("masking.whole_word"), help=t("masking.whole_word_help"), **keep("masking_whole_word")
    )

    settings = lab.MaskingSettings.from_sliders(rate_percent, split, whole_word)
    right.markdown(
        t(
            "masking.split_summary",
            masked=round(settings.mask_prob * 100),
            random=round(settings.random_prob * 100),
            kept=round(settings.kept_prob * 100),
        )
    )
    return settings, int(seed)


def one_draw(draw) -> None:
    """The sentence as BERT reads it after one seeded draw: what was chosen and what each became."""
    # a lesson step outlines this part (app.lessons)
    with st.container(key="masking_sequences"):
        st.subheader(t("masking.sequences_heading"))
        shown = min(len(draw.tokens), MAX_STRIP_TOKENS)
        legend = {code: t(f"masking.legend_{key}") for code, key in lab.OUTCOME_KEYS.items()}
        strip = token_strip(
            [draw.tokens[:shown], draw.read_tokens[:shown], draw.label_tokens()[:shown]],
            draw.outcome[:shown],
            [t("masking.row_original"), t("masking.row_read"), t("masking.row_label")],
            legend,
            graded=[label != -100 for label in draw.labels[:shown]],
            hover=draw.hover_texts(t("masking.hover"))[:shown],
            title=t("masking.strip_title", seed=draw.seed),
        )
        ui.static_figure(strip, strip_summary(draw.outcome[:shown], legend, t("masking.summary_strip")))
    counts = draw.counts()
    st.markdown(
        t(
            "masking.draw_summary",
            seed=draw.seed,
            chosen=len(draw.chosen),
            candidates=draw.candidates,
            masked=counts[MASKED],
            random=counts[RANDOM],
            kept=counts[KEPT],
        )
    )
    foreign = draw.foreign_replacements()
    if foreign:
        named = "  ".join(map(escape_markdown, foreign[:MAX_FOREIGN_NAMED])) + (
            " …" if len(foreign) > MAX_FOREIGN_NAMED else ""
        )
        st.caption(t("masking.random_from_vocabulary", tokens=named))
    if shown < len(draw.tokens):
        st.caption(t("masking.strip_truncated", shown=shown, total=len(draw.tokens)))


def why_and_how() -> None:
    """Folded: why BERT masks, the 15% and 80/10/10 recipe, and the reasons for the mix."""
    with st.expander(t("masking.why_heading")):
        st.markdown(t("masking.why_body"))
        st.markdown(t("masking.why_example"))
    with st.expander(t("masking.recipe_heading")):
        st.markdown(t("masking.recipe_body"))
        st.markdown(t("masking.recipe_example"))
    with st.expander(t("masking.reasons_heading")):
        st.markdown(t("masking.reasons_body"))


def the_labels(draw) -> None:
    """Each chosen position: what the model read there and the label it is scored on."""
    st.subheader(t("masking.labels_heading"))
    st.caption(t("masking.labels_caption"))
    outcome_names = {code: t(f"masking.outcome_{lab.OUTCOME_KEYS[code]}") for code in (MASKED, RANDOM, KEPT)}
    columns = [t(f"masking.col_{name}") for name in ("position", "original", "outcome", "read", "label")]
    st.dataframe(pd.DataFrame(draw.chosen_rows(outcome_names), columns=columns), hide_index=True)
    ui.download_buttons("mlm_draw", lambda: (draw.ROW_HEADER, draw.rows()), data=draw.to_json, key="masking_draw")


def predictions(bundle, draw) -> None:
    """On request, the model's guesses at the chosen positions."""
    if st.toggle(t("masking.predict_toggle"), key="masking_predict"):
        if not models.has_mlm_head(bundle):
            st.info(ui.missing_head(bundle, "mlm"))
        else:
            st.caption(t("masking.predict_caption"))
            predictions = lab.predict_chosen(bundle, draw, top_k=3)
            columns = [t("masking.col_position"), t("masking.col_original"), t("masking.col_read")]
            columns += [t("masking.col_guess", rank=rank) for rank in (1, 2, 3)]
            columns += [t("masking.col_original_prob"), t("masking.col_correct")]
            rows = lab.chosen_prediction_rows(predictions, top_k=3)
            st.dataframe(pd.DataFrame(rows, columns=columns), hide_index=True)
            st.markdown(t("masking.predict_score", right=sum(p.correct for p in predictions), total=len(predictions)))


def statistics_over_draws(enc, tokenizer, seed: int, settings) -> None:
    """Many draws at once: the shares converge to 15% and 80/10/10."""
    st.subheader(t("masking.stats_heading"))
    st.caption(t("masking.stats_intro"))
    count_column, run_column = st.columns([3, 1], vertical_alignment="bottom")
    count_column.segmented_control(
        t("masking.stats_draws"), DRAW_COUNTS, format_func="{:,}".format, default=1000, key="masking_draw_count"
    )
    run_column.button(t("masking.stats_run"), on_click=_request_statistics, key="masking_run_draws")
    requested = st.session_state.get("masking_stats_draws")
    if not requested:
        return
    with st.spinner(t("masking.stats_running")):
        stats = lab.draw_statistics(enc, tokenizer, draws=requested, seed=seed, settings=settings)
    names = {name: t(f"masking.series_{name}") for name in stats.SERIES}
    series = [
        (names[name], values, target, color) for (name, values, target), color in zip(stats.series(), SERIES_COLORS)
    ]
    chart = convergence_chart(
        stats.draws,
        series,
        title=t("masking.stats_title", n=requested),
        x_title=t("masking.stats_x"),
        y_title=t("masking.stats_y"),
        target_suffix=t("masking.target"),
    )
    summary = convergence_summary(
        stats.draws, series, t("masking.summary_convergence"), t("masking.summary_convergence_item")
    )
    ui.plot(chart, key="masking_convergence", summary=summary)
    if stats.chosen_varies:
        st.caption(t("masking.stats_whole_word"))
    elif abs(stats.rounded_rate - settings.rate) > 0.0005:
        st.caption(
            t(
                "masking.stats_rounding",
                actual=f"{percent(stats.rounded_rate, 1)}",
                rate=f"{percent(settings.rate)}",
                n=stats.candidates,
                k=stats.chosen_per_draw,
            )
        )
    rows = stats.table()
    columns = [t("masking.col_what"), t("masking.col_count"), t("masking.col_observed"), t("masking.col_target")]
    st.dataframe(
        pd.DataFrame([[names[row[0]], *row[1:]] for row in rows], columns=columns),
        hide_index=True,
        column_config={
            columns[2]: st.column_config.NumberColumn(format="percent"),
            columns[3]: st.column_config.NumberColumn(format="percent"),
        },
    )
    ui.download_buttons("mlm_statistics", lambda: (stats.TABLE_HEADER, rows), key="masking_statistics")
