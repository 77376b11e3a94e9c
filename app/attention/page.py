"""BERT's bidirectional self-attention next to GPT's causal mask, on the same weights; what each head does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from app.attention import charts, neuron_section
from app.attention.bertviz_view import BERTVIZ_WORDS, MAX_BERTVIZ_TOKENS
from app.attention.results import bertviz_document
from app.core import attention_stats as stats
from app.core import shared_charts
from app.core.charts import strongest_link
from app.core.counting import counted, counted_label
from app.core.i18n import t
from app.core.models import (
    attention,
    before_after_pairs,
    finetuned_choices,
    head_change,
    head_statistics,
    spec_display_name,
)
from app.core.palette import BLUE, ORANGE
from app.core.state import SETTINGS, PageContext, keep
from app.core.ui import (
    download_buttons,
    for_engineers,
    page_title,
    plot,
    run_or_explain,
    stages_figure,
    truncation_notice,
)
from model.results import AttentionResult

MASKS = SETTINGS["attention_bertviz_mask"].options
SECTIONS = SETTINGS["attention_section"].options
ShownMaps = dict[str, tuple[np.ndarray, list[str]]]  # by mask: the map as the page shows it, and its tokens


@dataclass(frozen=True)
class Sentence:
    """The sentence (and its optional pair) every section reads, the model's size, and its attention under each
    mask."""

    spec: str
    text: str
    pair: str | None
    n_layers: int
    n_heads: int
    results: dict[str, AttentionResult]  # by mask

    @property
    def tokens(self) -> list[str]:
        return self.results["bidirectional"].tokens

    @property
    def special(self) -> list[bool]:
        return self.results["bidirectional"].special


@dataclass(frozen=True)
class MapChoice:
    """What the maps show: a layer's head (``head`` None: the layer's average), special tokens hidden or not."""

    layer: int
    head: int | None
    hide: bool
    renormalize: bool
    which: str  # the layer and head as the maps' titles name them


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    page_title(t("attention.title"), t("attention.intro"))

    sentence = attended_sentence(context)
    section = chosen_section()
    # a lesson step outlines this part (app.lessons)
    with st.container(key="attention_section_view"):
        {"maps": maps_section, "heads": heads_section, "neuron": one_weight_section, "bertviz": bertviz_section}[
            section
        ](sentence)

    how_to_read()
    pair_args = ["--pair", sentence.pair] if sentence.pair else []
    for_engineers(
        context.spec,
        ["attention", sentence.text, *pair_args, "--json"],
        ["attention", sentence.text, *pair_args, "--causal", "--json"],
    )


def attended_sentence(context: PageContext) -> Sentence:
    """The sidebar's sentence, and a second one if the reader adds it, through both masks; the page stops where the
    input cannot be read."""
    bundle, spec, text = context.bundle, context.spec, context.text
    pair = None
    if st.toggle(t("attention.use_pair"), key="attention_use_pair"):
        pair = st.text_input(t("attention.pair_label"), value=t("attention.default_pair"), key="attention_pair")

    results = {"bidirectional": run_or_explain(attention, spec, text, pair, False)}
    if results["bidirectional"] is None:
        st.stop()
    results["causal"] = attention(spec, text, pair, True)
    truncation_notice(results["bidirectional"], bundle.tokenizer.max_length)
    n_layers, n_heads = bundle.config.num_hidden_layers, bundle.config.num_attention_heads
    return Sentence(spec, text, pair, n_layers, n_heads, results)


def chosen_section() -> str:
    # One section at a time, and only its work is done: the head statistics and bertviz's document were half of this
    # page's server time (bench/page_cpu.py: 65 ms a run with every section, 33 ms with the maps alone).
    return st.segmented_control(
        t("attention.section"),
        SECTIONS,
        format_func={name: t(f"attention.section_{name}") for name in SECTIONS}.get,
        required=True,
        **keep("attention_section"),
    )


def mask_labels() -> dict[str, str]:
    # Labels resolved now, not inside format_func: AppTest calls format_func outside the script run.
    return {mask: t(f"attention.mask_{mask}") for mask in MASKS}


def show_head(layer: int, head: int) -> None:
    st.session_state["layer"] = layer
    st.session_state["head"] = head
    st.session_state["attention_average"] = False
    st.session_state["attention_section"] = "maps"


def one_weight_section(sentence: Sentence) -> None:
    """The neuron view: how one weight of the chosen head is computed."""
    s = sentence
    neuron_section.render(s.spec, s.text, s.pair, s.n_layers, s.n_heads, s.tokens)


def how_to_read() -> None:
    # Show, then tell: the live view above, how to read it and the two architectures below, folded.
    with st.expander(t("attention.how_to_read_heading")):
        st.markdown(t("attention.how_to_read"))
        stages_figure([t("common.sketch_gpt"), t("common.sketch_bert")], [ORANGE, BLUE])


def maps_section(sentence: Sentence) -> None:
    """The two maps of the chosen layer and head, their downloads, and before/after fine-tuning."""
    choice = map_choice(sentence.n_layers, sentence.n_heads)
    shown = {mask: displayed_map(sentence.results[mask], sentence, choice) for mask in MASKS}
    shown_tokens = shown["bidirectional"][1]
    paired_maps(shown, shown_tokens, choice)
    maps_downloads(sentence, shown, shown_tokens)
    before_after_finetuning(sentence, choice, shown_tokens)


def map_choice(n_layers: int, n_heads: int) -> MapChoice:
    """The layer, the head or the layer's average, and the special tokens' fate, chosen side by side."""
    columns = st.columns(4)
    with columns[2]:
        average = st.toggle(t("attention.average"), **keep("attention_average"))
    with columns[0]:
        st.selectbox(t("common.layer"), range(n_layers), format_func=counted_label, **keep("layer"))
    with columns[1]:
        st.selectbox(t("common.head"), range(n_heads), format_func=counted_label, disabled=average, **keep("head"))
    with columns[3]:
        hide = st.toggle(t("attention.hide_special"), **keep("attention_hide"))
        renormalize = st.checkbox(t("attention.renormalize"), disabled=not hide, **keep("attention_renormalize"))
    st.caption(t("attention.count_note"))

    layer = st.session_state["layer"]
    head = None if average else st.session_state["head"]
    which = (
        t("attention.average_label", layer=counted(layer), heads=n_heads)
        if head is None
        else t("attention.head_label", layer=counted(layer), head=counted(head))
    )
    return MapChoice(layer, head, hide, renormalize, which)


def displayed_map(result: AttentionResult, sentence: Sentence, choice: MapChoice) -> tuple[np.ndarray, list[str]]:
    return stats.displayed_map(
        result.attentions,
        sentence.tokens,
        sentence.special,
        choice.layer,
        choice.head,
        hide=choice.hide,
        renormalize=choice.renormalize,
    )


def paired_maps(shown: ShownMaps, shown_tokens: list[str], choice: MapChoice) -> None:
    """The bidirectional map beside the causal one, and what became of the special tokens."""
    left, right = shared_charts.paired_maps(
        shown["bidirectional"][0],
        shown["causal"][0],
        shown_tokens,
        titles=(
            t("attention.bidirectional_title", which=choice.which),
            t("attention.causal_title", which=choice.which),
        ),
    )
    map_columns = st.columns(2)
    for column, figure, mask in zip(map_columns, (left, right), MASKS, strict=True):
        with column:
            summary = strongest_link(shown[mask][0], shown_tokens, t("common.summary_strongest_link"))
            plot(figure, key=f"attention_map_{mask}", summary=summary)
    st.caption(
        t("attention.note_all")
        if not choice.hide
        else t("attention.note_renormalized")
        if choice.renormalize
        else t("attention.note_as_is")
    )


def maps_downloads(sentence: Sentence, shown: ShownMaps, shown_tokens: list[str]) -> None:
    st.caption(t("attention.download_maps"))
    tokens = sentence.tokens

    def all_maps() -> dict:
        token_type_ids = sentence.results["bidirectional"].token_type_ids
        return stats.attentions_json(tokens, token_type_ids, {m: sentence.results[m].attentions for m in MASKS})

    with_json = len(tokens) <= stats.MAX_JSON_TOKENS
    download_buttons(
        "attention_map",
        lambda: stats.map_rows({m: shown[m][0] for m in MASKS}, shown_tokens),
        data=all_maps if with_json else None,
        key="attention_maps",
    )
    if not with_json:
        st.caption(t("attention.json_too_long", limit=stats.MAX_JSON_TOKENS, n=len(tokens)))


def before_after_finetuning(sentence: Sentence, choice: MapChoice, shown_tokens: list[str]) -> None:
    """This session's own fine-tuned model against the model it started from."""
    tuned_pairs = before_after_pairs(sentence.spec)
    if not tuned_pairs:
        return
    st.subheader(t("attention.finetune_title"))
    st.markdown(t("attention.finetune_intro"))
    if st.toggle(t("attention.finetune_toggle"), key="attention_finetune"):
        tuned_labels = {name: finetuned_choices()[name] for name in tuned_pairs}
        tuned = next(iter(tuned_pairs))
        if len(tuned_pairs) > 1:
            tuned = st.radio(
                t("attention.finetune_which"),
                tuple(tuned_pairs),
                format_func=tuned_labels.get,
                horizontal=True,
                key="attention_finetune_which",
            )
        before_spec = tuned_pairs[tuned]
        before_after_maps(sentence, choice, shown_tokens, before_spec, tuned)
        st.caption(t("attention.after_model", model=tuned_labels[tuned]))
        head_change_grid(sentence, choice, before_spec, tuned)


def before_after_maps(
    sentence: Sentence, choice: MapChoice, shown_tokens: list[str], before_spec: str, tuned: str
) -> None:
    """The chosen head's map in the model before fine-tuning, beside the same head's map after."""
    before_name = spec_display_name(before_spec)
    compared = {name: attention(name, sentence.text, sentence.pair, False) for name in (before_spec, tuned)}
    compared_maps = {name: displayed_map(result, sentence, choice)[0] for name, result in compared.items()}
    before_figure, after_figure = charts.before_after_maps(
        compared_maps[before_spec],
        compared_maps[tuned],
        shown_tokens,
        titles=(
            t("attention.before_title", model=before_name, which=choice.which),
            t("attention.after_title", which=choice.which),
        ),
    )
    before_column, after_column = st.columns(2)
    link = t("common.summary_strongest_link")
    with before_column:
        summary = strongest_link(compared_maps[before_spec], shown_tokens, link)
        plot(before_figure, key="attention_map_before", summary=summary)
    with after_column:
        plot(
            after_figure,
            key="attention_map_after",
            summary=strongest_link(compared_maps[tuned], shown_tokens, link),
        )


def head_change_grid(sentence: Sentence, choice: MapChoice, before_spec: str, tuned: str) -> None:
    """How much fine-tuning changed each head, and a button to the head it changed most."""
    change = head_change(before_spec, tuned, sentence.text, sentence.pair)
    plot(
        charts.change_grid(
            change,
            title=t("attention.change_title"),
            selected=None if choice.head is None else (choice.layer, choice.head),
            selected_label=t("attention.selected_marker"),
            axis_labels=(t("attention.axis_layer"), t("attention.axis_head")),
        ),
        key="attention_change_grid",
        summary=charts.change_summary(change, t("attention.summary_change")),
    )
    most_layer, most_head, most = stats.largest_change(change)
    if most == 0:
        st.caption(t("attention.change_none"))
    else:
        by_layer = " · ".join(f"{value:.3f}" for value in stats.layer_change(change))
        st.caption(
            t(
                "attention.change_note",
                layer=counted(most_layer),
                head=counted(most_head),
                value=most,
                by_layer=by_layer,
            )
        )
        st.button(
            t("attention.show_head", layer=counted(most_layer), head=counted(most_head)),
            key="attention_show_most_changed",
            on_click=show_head,
            args=(most_layer, most_head),
        )


def heads_section(sentence: Sentence) -> None:
    """Statistics of every head for this sentence, and the heads worth a look."""
    st.subheader(t("attention.stats_title"))
    st.markdown(t("attention.stats_intro"))
    stats_mask = st.radio(
        t("attention.stats_mask"),
        MASKS,
        format_func=mask_labels().get,
        horizontal=True,
        key="attention_stats_mask",
    )
    head_stats = head_statistics(sentence.spec, sentence.text, sentence.pair, stats_mask == "causal")
    stat_titles = {name: t(f"attention.stat_{name}") for name in stats.STATISTICS}
    # No ring on the head chosen above: moving it made the browser draw all of the grid's panels again, two thirds of
    # the browser's work for a change of layer or head. Without it the grid changes only with the sentence.
    grid = shared_charts.statistics_grid(
        head_stats, stat_titles, axis_labels=(t("attention.axis_layer"), t("attention.axis_head"))
    )
    plot(
        grid,
        key="attention_statistics",
        summary=shared_charts.statistics_summary(head_stats, stat_titles, t("attention.summary_statistics")),
    )
    if stats_mask == "causal":
        st.caption(t("attention.causal_next_note"))

    notable_heads(head_stats)
    st.caption(t("attention.download_stats"))
    download_buttons("attention_head_statistics", lambda: stats.statistics_rows(head_stats), key="attention_statistics")


def notable_heads(head_stats: dict) -> None:
    """The heads worth a look, listed, and a button to each."""
    st.markdown(f"**{t('attention.notable_title')}**")
    notable = stats.notable_heads(head_stats)
    # One list and one row of buttons (a head notable twice gets one): a row of columns per finding was a fifth of
    # this page's server time with a class of thirty (py-spy, bench/classroom_load.py).
    st.markdown(
        "\n".join(
            f"- {t(f'attention.notable_{n.kind}', layer=counted(n.layer), head=counted(n.head), value=n.value)}"
            for n in notable
        )
    )
    with st.container(horizontal=True):
        for layer_shown, head_shown in dict.fromkeys((n.layer, n.head) for n in notable):
            st.button(
                t("attention.show_head", layer=counted(layer_shown), head=counted(head_shown)),
                key=f"attention_show_{layer_shown}_{head_shown}",
                on_click=show_head,
                args=(layer_shown, head_shown),
            )


def bertviz_section(sentence: Sentence) -> None:
    """bertviz's head or model view of this sentence."""
    n_layers, tokens = sentence.n_layers, sentence.tokens
    st.subheader(t("attention.bertviz_title"))
    st.markdown(t("attention.bertviz_intro"))
    view_column, mask_column, layers_column = st.columns([1, 1, 2])
    with view_column:
        view = st.radio(
            t("attention.bertviz_view"),
            SETTINGS["attention_bertviz_view"].options,
            format_func={v: t(f"attention.view_{v}") for v in SETTINGS["attention_bertviz_view"].options}.get,
            horizontal=True,
            **keep("attention_bertviz_view"),
        )
    with mask_column:
        bertviz_mask = st.radio(
            t("attention.bertviz_mask"),
            MASKS,
            format_func=mask_labels().get,
            horizontal=True,
            **keep("attention_bertviz_mask"),
        )
    with layers_column:
        chosen = bertviz_layers(view, n_layers)
    if not chosen:
        st.info(t("attention.bertviz_no_layers"))
    elif len(tokens) > MAX_BERTVIZ_TOKENS:
        st.info(t("attention.bertviz_too_long", limit=MAX_BERTVIZ_TOKENS, n=len(tokens)))
    else:
        # Everything a reader can get wrong (an empty or over-long input, no layer, a layer the model lacks) is
        # answered above; an error from bertviz here is a bug and surfaces as one.
        labels = tuple((word, t(f"attention.bertviz_word_{name}")) for name, word in BERTVIZ_WORDS.items())
        html = bertviz_document(
            sentence.spec, sentence.text, sentence.pair, bertviz_mask == "causal", view, tuple(sorted(chosen)), labels
        )
        st.iframe(html, height=charts.bertviz_height(view, len(tokens), len(chosen), sentence.n_heads))


def bertviz_layers(view: str, n_layers: int) -> list[int]:
    """The layers bertviz draws."""
    if view == "head":
        # The view holds every layer and shows the page's Layer (its own selector can show another meanwhile).
        st.selectbox(t("common.layer"), range(n_layers), format_func=counted_label, **keep("layer"))
        return list(range(n_layers))
    # The model view draws a row per layer: the reader picks the rows (at first, the page's Layer).
    chosen_layers = st.session_state["attention_bertviz_layers"]
    if chosen_layers is None or any(not 0 <= x < n_layers for x in chosen_layers):
        st.session_state["attention_bertviz_layers"] = [st.session_state["layer"]]
    return st.multiselect(
        t("attention.bertviz_layers"),
        range(n_layers),
        # Formatted now, in this run's language: Streamlit matches the widget's value by its label.
        format_func={x: t("attention.layer_chip", layer=counted(x)) for x in range(n_layers)}.get,
        help=t("attention.bertviz_layers_help"),
        **keep("attention_bertviz_layers"),
    )
