"""The head lab: what each attention head does across many sentences, and what breaks when it is switched off."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app.core import segments, shared_charts, ui
from app.core.counting import counted, counted_label
from app.core.i18n import t
from app.core.numbers import percent
from app.core.state import SETTINGS, PageContext, keep, start_in_language, url_is_stale
from app.core.ui import download_buttons, for_engineers, plot, run_or_explain
from app.heads import charts
from app.heads import logic as lab
from model.analysis import heads
from model.results import FillMaskResult

STEPS = SETTINGS["heads_step"].options


@dataclass(frozen=True)
class LabContext:
    """What every step of the lab reads: the model, its size, and the sample's language and statistics."""

    spec: str
    text: str  # the sidebar's sentence
    n_layers: int
    n_heads: int
    axis: tuple[str, str]  # the grids' layer and head axis titles
    sample_lang: str
    stats: heads.HeadStats


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    start_in_language("heads", {"heads_lang": context.reads})

    ui.page_title(t("heads.title"), t("heads.intro"))

    stop_without_masked_lm(context)
    n_layers, n_heads = context.bundle.config.num_hidden_layers, context.bundle.config.num_attention_heads
    axis = (t("heads.axis_layer"), t("heads.axis_head"))
    keep_only_heads_the_model_has(n_layers, n_heads)
    sample_lang, stats = sample_statistics(context.spec, context.bundle.tokenizer)
    lab_context = LabContext(context.spec, context.text, n_layers, n_heads, axis, sample_lang, stats)

    step = chosen_step()
    # a lesson step outlines this part (app.lessons)
    with st.container(key="heads_step_view"):
        if step in MLM_STEPS and context.bundle.is_discriminator:
            st.info(t("heads.discriminator_step", title=t(f"heads.step{step}_title")))
        else:
            {1: across_sentences, 2: pattern_types, 3: switched_off, 4: beyond_the_weights}[step](lab_context)
    next_step_button(step)
    st.caption(t("heads.link_note"))
    for_engineers(context.spec, ["heads", "--lang", sample_lang])


# Steps that read the MLM head: switching heads off shows what the model then puts at a [MASK], and gradient x input
# explains a [MASK]'s answer. ELECTRA's discriminator has no such head; it has the first two steps, its heads' importance
# read from its own loss (replaced-token detection).
MLM_STEPS = (3, 4)


def stop_without_masked_lm(context: PageContext) -> None:
    """The lab scores a head by what removing it costs the model's loss: a fine-tuned classifier has none to score."""
    if not context.bundle.is_discriminator:
        ui.require_pretraining_head(context.bundle, "mlm")


def keep_only_heads_the_model_has(n_layers: int, n_heads: int) -> None:
    """Removed heads (from the session, or a shared link): only those this model has."""
    kept_names = lab.parse_off(",".join(st.session_state["heads_off"]), n_layers, n_heads)
    st.session_state["heads_off"] = [lab.head_name(h) for h in kept_names]


def sample_statistics(spec: str, tokenizer) -> tuple[str, heads.HeadStats]:
    """The sample's language, chosen here, and the statistics of every head over it."""
    sample_column, note_column = st.columns([2, 3], vertical_alignment="center")
    sample_lang = sample_column.radio(
        t("heads.sample_lang"),
        heads.LANGUAGES,
        format_func={code: t(f"heads.lang_{code}") for code in heads.LANGUAGES}.get,
        horizontal=True,
        **keep("heads_lang"),
    )
    with st.spinner(t("heads.computing")):
        stats = lab.statistics(spec, sample_lang)
    frame = tokenizer.encode("A", "B")  # the model's own [CLS] A [SEP] B [SEP]
    layout = segments.layout_of(frame.tokens, frame.special)
    note = "heads.sample_note_replaced" if stats.objective == "replaced" else "heads.sample_note"
    source = t(f"heads.source_{sample_lang}")
    stride = t("heads.sample_stride", stride=stats.stride, pairs=len(heads.sample_pairs(sample_lang)))
    note_column.caption(
        t(note, inputs=stats.inputs, tokens=stats.tokens, source=source, loss=stats.mlm_loss, layout=layout)
        + (" " + stride if stats.stride > 1 else "")
    )
    return sample_lang, stats


def chosen_step() -> int:
    # One step at a time, and only its work is done: the four steps at once drew seven charts (the thumbnails of every
    # head among them) and ran the switched-off model and gradient x input on every visit.
    return st.segmented_control(
        t("heads.step"),
        STEPS,
        format_func={number: t(f"heads.step{number}_title") for number in STEPS}.get,
        required=True,
        **keep("heads_step"),
    )


def go_to_step(step: int) -> None:
    st.session_state["heads_step"] = step


def next_step_button(step: int) -> None:
    if step < STEPS[-1]:
        st.button(
            t("heads.next_step", title=t(f"heads.step{step + 1}_title")),
            on_click=go_to_step,
            args=(step + 1,),
            key="heads_next_step",
            type="primary",
        )


def across_sentences(lab_context: LabContext) -> None:
    stats = lab_context.stats
    st.header(t("heads.step1_title"))
    feature_names = {f: t(f"heads.feature_{f}") for f in heads.FEATURES}
    grid = shared_charts.statistics_grid(
        stats.features,
        feature_names,
        selected=(st.session_state["layer"], st.session_state["head"]),
        selected_label=t("attention.selected_marker"),
        axis_labels=lab_context.axis,
    )
    plot(
        grid,
        key="heads_features",
        summary=shared_charts.statistics_summary(stats.features, feature_names, t("attention.summary_statistics")),
    )
    st.markdown(t("heads.step1_intro"))  # what the grid shows, once it is in view
    profile_features = ("cls", "sep", "punct", "prev", "next")
    plot(
        charts.layer_profile(
            {f: stats.layer_means(f) for f in profile_features},
            feature_names,
            title=t("heads.profile_title"),
            axis=(t("heads.axis_layer"), t("heads.axis_share")),
        ),
        key="heads_profile",
        summary=charts.profile_summary(
            {f: stats.layer_means(f) for f in profile_features}, feature_names, t("heads.summary_profile")
        ),
    )
    ours, reference = st.columns(2)
    with ours:
        st.markdown(f"**{t('heads.ours_title')}**")
        st.markdown(t("heads.ours_findings", **lab.findings(stats)))
    with reference:
        st.markdown(f"**{t('heads.reference_title')}**")
        st.markdown(t("heads.reference_findings"))
    st.caption(t("heads.download_stats"))
    download_buttons("head_statistics", lambda: lab.feature_rows(stats), data=stats.to_json, key="heads_statistics")


def pattern_types(lab_context: LabContext) -> None:
    stats = lab_context.stats
    st.header(t("heads.step2_title"))
    st.markdown(t("heads.step2_intro", tokens=len(stats.thumbnail_tokens)))
    pattern_names = {p: t(f"heads.pattern_{p}") for p in heads.PATTERNS}
    plot(
        charts.thumbnails(
            stats.thumbnails, stats.patterns, pattern_names, title=t("heads.thumbnails_title"), axis=lab_context.axis
        ),
        key="heads_thumbnails",
        summary=charts.thumbnails_summary(stats.patterns, pattern_names, t("heads.summary_thumbnails")),
    )
    plot(
        charts.pattern_counts(
            stats.pattern_counts(),
            pattern_names,
            title=t("heads.counts_title"),
            axis=(t("heads.axis_layer"), t("heads.axis_heads")),
        ),
        key="heads_pattern_counts",
        summary=charts.pattern_summary(stats.pattern_counts(), pattern_names, t("heads.summary_patterns")),
    )
    st.markdown(
        t("heads.rule", columns=heads.VERTICAL_COLUMNS, strong=heads.STRONG, mixed=heads.MIXED, block=heads.BLOCK)
    )
    st.caption(t("heads.pattern_reference"))


def switched_off(lab_context: LabContext) -> None:
    st.header(t("heads.step3_title"))
    st.markdown(t("heads.step3_intro"))
    fill_text = fill_sentence(lab_context.text)
    switch_heads_off(lab_context, fill_text)
    pruning_curve_section(lab_context)


def fill_sentence(text: str) -> str:
    """The sentence steps 3 and 4 fill in: the sidebar's when it has a [MASK], else an example."""
    sentence = text if "[MASK]" in text else t("heads.fill_default")
    return st.text_input(t("heads.fill_label"), value=sentence, key="heads_fill_text")


# A fragment: removing or restoring a head reruns this section alone, not the sample's figures around it.
@st.fragment
def switch_heads_off(lab_context: LabContext, fill_text: str) -> None:
    if url_is_stale():  # a head was switched: a full run puts it in the shareable link
        st.rerun()
    removed = lab.parse_off(",".join(st.session_state["heads_off"]), lab_context.n_layers, lab_context.n_heads)
    importance_grid(lab_context, removed)
    removal_controls(lab_context, removed)
    fill_column, nsp_column = st.columns(2)
    with fill_column:
        fill_mask_without(lab_context.spec, fill_text, removed)
    with nsp_column:
        next_sentence_without(lab_context.spec, tuple(removed))


def importance_grid(lab_context: LabContext, removed: list[lab.Head]) -> None:
    """Each head's importance; a click on a cell removes that head, or restores it."""
    chart_key = f"heads_grid_{st.session_state.get('heads_grid_version', 0)}"
    plot(
        charts.head_grid(
            lab_context.stats.importance,
            removed,
            title=t("heads.grid_title"),
            value_name=t("heads.importance"),
            removed_name=t("heads.removed"),
            axis=lab_context.axis,
        ),
        key=chart_key,
        summary=charts.importance_summary(lab_context.stats.importance, t("heads.summary_importance")),
        on_select=lambda: toggle_clicked(chart_key, lab_context.n_heads),
        selection_mode="points",
    )


def toggle_clicked(chart_key: str, n_heads: int) -> None:
    """A click on a cell of the grid removes that head, or restores it."""
    off = set(st.session_state["heads_off"])
    for head in charts.clicked_heads(st.session_state[chart_key].selection, n_heads):
        off ^= {lab.head_name(head)}
    st.session_state["heads_off"] = sorted(off)
    st.session_state["heads_grid_version"] = (
        st.session_state.get("heads_grid_version", 0) + 1
    )  # a fresh, unselected grid


def set_removed(names: list[str]) -> None:
    st.session_state["heads_off"] = names


def removal_controls(lab_context: LabContext, removed: list[lab.Head]) -> None:
    """The removed heads by name, and buttons that remove a whole layer, keep the most important or restore all."""
    n_layers, n_heads = lab_context.n_layers, lab_context.n_heads
    all_names = [lab.head_name((layer, head)) for layer in range(n_layers) for head in range(n_heads)]
    st.multiselect(t("heads.removed_select"), all_names, format_func=lab.head_title, **keep("heads_off"))
    layer_column, keep_column, restore_column = st.columns(3)
    with layer_column:
        whole = st.selectbox(
            t("heads.remove_layer"), range(n_layers), format_func=counted_label, key="heads_whole_layer"
        )
        st.button(
            t("heads.remove_layer_button", layer=counted(whole)),
            on_click=set_removed,
            args=(sorted(set(st.session_state["heads_off"]) | {lab.head_name((whole, h)) for h in range(n_heads)}),),
            key="heads_remove_layer",
        )
    with keep_column:
        keep_k = st.number_input(
            t("heads.keep_k"), 0, n_layers * n_heads, value=n_layers * n_heads // 2, key="heads_keep"
        )
        st.button(
            t("heads.keep_k_button", k=keep_k),
            on_click=set_removed,
            args=([lab.head_name(h) for h in lab.most_important(lab_context.stats.importance, int(keep_k))],),
            key="heads_keep_button",
        )
    with restore_column:
        st.button(t("heads.restore_all"), on_click=set_removed, args=([],), key="heads_restore")
    st.caption(t("heads.removed_count", n=len(removed), total=n_layers * n_heads))


def fill_mask_without(spec: str, fill_text: str, removed: list[lab.Head]) -> None:
    """The fill-in with every head against the fill-in without the removed ones."""
    removed_key = tuple(removed)
    full = run_or_explain(lab.fill_mask, spec, fill_text, ())
    if full is None:
        return
    ablated = lab.fill_mask(spec, fill_text, removed_key)
    tokens = lab.compared_tokens(full, ablated)
    ids = tuple(i for _, i in tokens)
    rows = lab.compared_predictions(
        tokens,
        lab.token_probabilities(spec, fill_text, (), ids),
        lab.token_probabilities(spec, fill_text, removed_key, ids),
    )
    plot(
        charts.compared_bars(rows, (t("heads.with_all"), t("heads.without")), title=t("heads.fill_title")),
        key="heads_fill",
        summary=charts.compared_summary(rows, t("heads.summary_compared")),
    )
    before, after = full.masks[0].predictions[0].token, ablated.masks[0].predictions[0].token
    st.markdown(
        t("heads.top_same", token=before) if before == after else t("heads.top_changed", before=before, after=after)
    )
    download_fill_mask_comparison(removed, full, ablated, rows)


def download_fill_mask_comparison(
    removed: list[lab.Head], full: FillMaskResult, ablated: FillMaskResult, rows: list[tuple]
) -> None:
    st.caption(t("heads.download_ablation"))
    download_buttons(
        "heads_fill_mask",
        lambda: (["token", "prob_all_heads", "prob_without_removed"], [list(r) for r in rows]),
        data=lambda: {
            "removed": lab.removed_list(removed),
            "all_heads": full.to_json(),
            "without": ablated.to_json(),
        },
        key="heads_fill",
    )


def next_sentence_without(spec: str, removed_key: tuple[lab.Head, ...]) -> None:
    """Whether B follows A, without the removed heads, and the change from the full model."""
    first = st.text_input(t("heads.nsp_a"), value=t("heads.nsp_default_a"), key="heads_nsp_a")
    second = st.text_input(t("heads.nsp_b"), value=t("heads.nsp_default_b"), key="heads_nsp_b")
    nsp_full = run_or_explain(lab.next_sentence, spec, first, second, ())
    if nsp_full is not None:
        nsp_ablated = lab.next_sentence(spec, first, second, removed_key)
        st.metric(
            t("heads.nsp_metric"),
            f"{percent(nsp_ablated.is_next, 1)}",
            delta=f"{(nsp_ablated.is_next - nsp_full.is_next) * 100:+.1f} pp",
        )
        st.caption(t("heads.nsp_full", p=nsp_full.is_next))


def pruning_curve_section(lab_context: LabContext) -> None:
    """Accuracy as heads go, most important first against a random order; computed on request."""
    spec, sample_lang = lab_context.spec, lab_context.sample_lang
    st.subheader(t("heads.curve_title"))
    st.markdown(t("heads.curve_intro", every=heads.PRUNING_EVERY, runs=heads.RANDOM_ORDERS))
    curve = lab.cached_curve(spec, sample_lang)
    if curve is None:
        # A callback, not the button's return value: the request must survive the entry script's rerun.
        st.button(
            t("heads.curve_button"),
            key="heads_curve_button",
            on_click=st.session_state.__setitem__,
            args=("heads_curve_requested", True),
        )
    if curve is None and st.session_state.pop("heads_curve_requested", False):
        bar = st.progress(0.0, text=t("heads.curve_progress", share=0.0))
        curve = lab.pruning_curve(
            spec, sample_lang, lambda share: bar.progress(share, text=t("heads.curve_progress", share=share))
        )
        bar.empty()
    if curve is not None:
        plot(
            charts.pruning_curve(
                curve.fractions,
                curve.by_importance,
                curve.random_mean,
                (t("heads.curve_by_importance"), t("heads.curve_random")),
                title=t("heads.curve_title"),
                axis=(t("heads.axis_removed"), t("heads.axis_top1")),
            ),
            key="heads_curve",
            summary=t(
                "heads.curve_summary",
                share=curve.fractions[5],
                imp=curve.by_importance[5],
                rand=curve.random_mean[5],
                full=curve.by_importance[0],
            ),
        )
        download_buttons("pruning_curve", lambda: lab.curve_rows(curve), data=curve.to_json, key="heads_curve")


def beyond_the_weights(lab_context: LabContext) -> None:
    st.header(t("heads.step4_title"))
    st.markdown(t("heads.step4_intro"))
    fill_text = fill_sentence(lab_context.text)
    encoding = run_or_explain(lab.fill_mask, lab_context.spec, fill_text, ())
    if encoding is not None:
        position = token_layer_and_head(encoding, lab_context.n_layers, lab_context.n_heads)
        layer, head = st.session_state["layer"], st.session_state["head"]
        st.markdown(t("heads.views_explained", layer=counted(layer), head=counted(head)))
        views = lab.token_views(lab_context.spec, fill_text, position, layer, head)
        token_views_section(views, encoding.tokens[position])


def token_layer_and_head(encoding: FillMaskResult, n_layers: int, n_heads: int) -> int:
    """The token whose views are shown (its position), and the page's layer and head, chosen side by side."""
    tokens = encoding.tokens
    token_column, layer_column, head_column = st.columns(3)
    with token_column:
        default_position = encoding.masks[0].index
        position = st.selectbox(
            t("heads.view_token"),
            range(len(tokens)),
            index=default_position,
            format_func={i: f"{i} · {tok}" for i, tok in enumerate(tokens)}.get,
            key="heads_view_token",
        )
    with layer_column:
        st.selectbox(t("common.layer"), range(n_layers), format_func=counted_label, **keep("layer"))
    with head_column:
        st.selectbox(t("common.head"), range(n_heads), format_func=counted_label, **keep("head"))
    return position


def token_views_section(views: heads.TokenViews, token: str) -> None:
    """The four views of one token side by side, where they agree, and their download."""
    view_names = {v: t(f"heads.view_{v}") for v in ("raw", "norm", "rollout", "gradient_x_input")}
    rows = {v: getattr(views, v) for v in view_names if getattr(views, v) is not None}
    plot(
        charts.token_views(views.tokens, rows, view_names, title=t("heads.views_title", token=token)),
        key="heads_views",
        summary=charts.views_summary(views.tokens, rows, view_names, t("heads.summary_views")),
    )
    if views.prediction is not None:
        st.markdown(t("heads.views_gxi_for", token=views.prediction))
    else:
        st.caption(t("heads.views_no_mask"))
    st.markdown(t("heads.views_agree"))
    st.markdown(
        "\n".join(
            t("heads.views_top", view=view_names[v], token=tok, share=share)
            for v, (tok, share) in lab.top_targets(views).items()
        )
    )
    st.markdown(t("heads.views_special", raw=lab.special_share(views, "raw"), norm=lab.special_share(views, "norm")))
    st.caption(t("heads.download_views"))
    download_buttons("head_views", lambda: lab.views_rows(views), data=views.to_json, key="heads_views")
