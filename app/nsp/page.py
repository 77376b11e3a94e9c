"""NSP lab: does sentence B follow sentence A? (Devlin et al. 2019, section 3.1, "Task #2")

Real pairs drawn as pre-training draws them, or two typed sentences; the input layout and the model's answer."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app.core import models, segments, ui
from app.core.i18n import t
from app.core.palette import BLUE, ORANGE
from app.core.state import SETTINGS, PageContext, keep
from app.nsp import charts
from app.nsp.samples import draw_pair, load_samples, pair_record, pair_text, provenance


@dataclass(frozen=True)
class ChosenPair:
    """The two sentences on the page, and, for a pair drawn from real text, whether B followed A and where from."""

    mode: str  # "sample" or "type"
    first: str
    second: str
    truth: bool | None = None
    origin: dict | None = None


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    ui.page_title(t("nsp.title"), t("nsp.intro"))
    ui.require_pretraining_head(context.bundle, "nsp")
    family_note(context.bundle)
    pair = choose_pair(context)
    show_pair(pair)
    result = ui.run_or_explain(models.next_sentence, context.spec, pair.first, pair.second)
    if result is None:
        st.stop()
    ui.truncation_notice(result, context.bundle.tokenizer.max_length)
    input_layout(result, context.bundle)
    prediction(context.bundle, pair, result)
    # Show, then tell: the pair and the model's answer above, how pre-training makes its pairs below, folded.
    how_pretraining_pairs(context.spec, pair.mode)
    ui.for_engineers(context.spec, ["nsp", pair.first, pair.second])


def _next_draw() -> None:
    st.session_state["nsp_draw"] += 1


def choose_pair(context: PageContext) -> ChosenPair:
    """A pair drawn from real text as pre-training draws them, or the sidebar's sentence and a typed B."""
    # A plain dict for the labels: a format_func must not read the session (AppTest calls it outside a run).
    mode_labels = {mode: t(f"nsp.mode_{mode}") for mode in SETTINGS["nsp_mode"].options}
    mode_column, draw_column = st.columns([3, 2], vertical_alignment="bottom")
    mode = mode_column.radio(
        t("nsp.mode"), tuple(mode_labels), format_func=mode_labels.get, horizontal=True, **keep("nsp_mode")
    )
    if mode == "sample":
        draw = st.session_state["nsp_draw"]
        draw_column.button(
            t("nsp.sample_again"),
            on_click=_next_draw,
            key="nsp_sample_again",
            icon=":material/casino:",
            help=t("nsp.draw_number", n=draw + 1),
        )
        samples = load_samples()
        drawn = draw_pair(samples, context.reads, draw)
        first, second = pair_text(drawn)
        return ChosenPair(mode, first, second, drawn.is_next, provenance(samples, drawn))
    st.markdown(t("nsp.type_intro"))
    # One box per language, so switching language shows that language's default instead of the other's.
    second = st.text_input(t("nsp.sentence_b"), value=t("nsp.second_default"), key=f"nsp_second_{context.lang}")
    return ChosenPair(mode, context.text, second)


def show_pair(pair: ChosenPair) -> None:
    left, right = st.columns(2)
    left.markdown(f"**{t('nsp.sentence_a')}**")
    ui.preformatted(pair.first, left)
    right.markdown(f"**{t('nsp.sentence_b')}**")
    ui.preformatted(pair.second, right)
    if pair.truth is None:
        return
    st.markdown(t("nsp.truth_next") if pair.truth else t("nsp.truth_not"))
    a, b = pair.origin["source_id_a"], pair.origin["source_id_b"]
    named = {
        f"{what}_{side}": t(f"nsp.{what}_{source}")
        for side, source in (("a", a), ("b", b))
        for what in ("source", "licence")
    }
    st.caption(t("nsp.source_line" if a == b else "nsp.source_line_two", **named))


def input_layout(result, bundle) -> None:
    """[CLS] A [SEP] B [SEP] with each token's segment, in the model's own special tokens and as its segment table
    has them: two segments (BERT, ALBERT), one (RoBERTa) or none (DistilBERT)."""
    st.subheader(t("nsp.layout_header"))
    segment_labels = [t("nsp.segment_a"), t("nsp.segment_b")]
    layout = segments.layout_of(result.tokens, result.special)
    cls, sep = bundle.tokenizer.special_tokens["cls"], bundle.tokenizer.special_tokens["sep"]
    if bundle.config.type_vocab_size >= 2:
        summary = segments.segment_summary(result.token_type_ids, t("nsp.summary_strip"), cls=cls, sep=sep)
        note = t("nsp.layout_note", layout=layout, sep=sep)
    else:
        summary = t("nsp.summary_strip_one", n=len(result.tokens))
        note = t("nsp.layout_note_one" if bundle.config.type_vocab_size else "nsp.layout_note_none", sep=sep)
    ui.static_figure(
        segments.segment_strip(
            result.tokens,
            result.token_type_ids if bundle.config.type_vocab_size >= 2 else [0] * len(result.tokens),
            result.special,
            segment_labels=segment_labels,
            position_label=t("nsp.position"),
            title=t("nsp.strip_title", layout=layout),
        ),
        summary=summary,
    )
    st.caption(note)


# BERT's descendants that changed the sentence-pair task: what their head (or its absence) means on this page.
FAMILY_NOTES = {
    "roberta": "nsp.family_roberta",
    "distilbert": "nsp.family_distilbert",
    "electra": "nsp.family_electra",
    "albert": "nsp.family_albert",
}


def family_note(bundle) -> None:
    """Where the model is one of BERT's family, what became of next-sentence prediction in it."""
    family = bundle.config.extra.get("family", "bert")
    if family in FAMILY_NOTES:
        st.info(t(FAMILY_NOTES[family]))


def prediction(bundle, pair: ChosenPair, result) -> None:
    """P(IsNext) as a gauge, the verdict (and whether it is right, for a real pair), and the pair's downloads."""
    # a lesson step outlines this part (app.lessons)
    with st.container(key="nsp_prediction"):
        st.subheader(t("nsp.prediction_header"))
        gauge_column, verdict_column = st.columns([1, 1])
    with gauge_column:
        ui.plot(
            charts.is_next_gauge(result.is_next, title=t("nsp.gauge_title")),
            key="nsp_gauge",
            summary=charts.gauge_summary(result.is_next, t("nsp.summary_gauge_above"), t("nsp.summary_gauge_below")),
        )
    with verdict_column:
        says_next = result.is_next >= 0.5
        st.markdown(t("nsp.verdict_next", p=result.is_next) if says_next else t("nsp.verdict_not", p=result.is_next))
        if pair.truth is not None:
            st.markdown(t("nsp.verdict_right") if says_next == pair.truth else t("nsp.verdict_wrong"))
        if bundle.fresh_keys:
            st.info(t("common.untrained"))
        record = pair_record(pair.first, pair.second, pair.truth, result.is_next, pair.origin)
        header = [t("nsp.col_a"), t("nsp.col_b"), t("nsp.col_truth"), t("nsp.col_prob")]
        truth = "" if pair.truth is None else pair.truth
        ui.download_buttons(
            "nsp_pair",
            lambda: (header, [[pair.first, pair.second, truth, round(result.is_next, 6)]]),
            data=lambda: {**record, "tokens": result.tokens, "token_type_ids": result.token_type_ids},
            key="nsp_pair",
        )


def how_pretraining_pairs(spec: str, mode: str) -> None:
    """Folded: how pre-training makes its pairs, with the model's answers on the two textbook examples."""
    with st.expander(t("nsp.examples_heading")):
        if mode == "sample":
            st.markdown(t("nsp.sample_intro", source=t("nsp.sample_source")))
        ui.stages_figure([t("nsp.examples")], [BLUE, ORANGE])
        example_next = ui.run_or_explain(models.next_sentence, spec, t("nsp.example_a"), t("nsp.example_b_next"))
        example_not = ui.run_or_explain(models.next_sentence, spec, t("nsp.example_a"), t("nsp.example_b_not"))
        if example_next is not None and example_not is not None:
            st.markdown(t("nsp.examples_live", p_next=example_next.is_next, p_not=example_not.is_next))
        st.caption(t("nsp.cls_note"))
