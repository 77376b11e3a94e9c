"""输入表示: BERT's input is token + segment + position embeddings, added, then LayerNorm."""

from __future__ import annotations

import streamlit as st

from app.core.i18n import t
from app.core.models import embeddings
from app.core.state import PageContext
from app.core.ui import download_buttons, page_title, plot, run_or_explain, truncation_notice
from app.embeddings import charts, logic


def render(context: PageContext) -> None:
    """The page, drawn for one run."""
    page_title(t("embeddings.title"), t("embeddings.intro"))
    config = context.bundle.config
    for note in logic.family_notes(config):  # what the chosen model's family changed in the sum
        st.info(t(note, width=config.embedding_width, hidden=config.hidden_size, first=config.pad_token_id + 1))
    pair = second_sentence()
    result = run_or_explain(embeddings, context.spec, context.text, pair)
    if result is None:
        st.stop()
    truncation_notice(result, context.bundle.tokenizer.max_length)
    parts = logic.parts_of(result)
    part_labels = {name: t(f"embeddings.part_{name}") for name in logic.PARTS}
    dims = the_parts_as_heatmaps(parts, result.tokens, part_labels)
    input_table(result)
    # Show, then tell: the parts and their sum above, how the input is built below, folded.
    with st.expander(t("embeddings.explain_heading")):
        st.markdown(t("embeddings.source_block"))
        st.markdown(t("embeddings.explain"))
    one_token_summed(parts, result.tokens, part_labels, dims)
    position_similarity(context.bundle)
    downloads(parts, result)


def second_sentence() -> str | None:
    """Sentence B, when the reader adds one (its tokens get segment 1)."""
    if not st.toggle(t("embeddings.use_pair"), key="embeddings_use_pair"):
        return None
    pair = st.text_input(t("embeddings.pair_label"), value=t("embeddings.default_pair"), key="embeddings_pair")
    st.caption(t("embeddings.pair_hint"))
    return pair


def the_parts_as_heatmaps(parts: dict, tokens: list[str], part_labels: dict[str, str]) -> int:
    """Each part (token, segment, position, their sum, after LayerNorm) over the first dimensions, one tab each;
    returns how many dimensions the reader chose."""
    hidden = parts["token"].shape[1]
    # a lesson step outlines this part (app.lessons)
    with st.container(key="embeddings_sum_section"):
        st.subheader(t("embeddings.heatmaps_title"))
        dims = st.slider(
            t("embeddings.dims", hidden=hidden),
            min(4, hidden),
            min(hidden, 128),
            min(32, hidden),
            key="embeddings_dims",
        )
        # Only the open tab's heatmap is drawn (a rerun when another opens): the five drawn at once were most of the
        # page's drawing in the browser.
        for tab, name in zip(
            st.tabs(list(part_labels.values()), key="embeddings_part", on_change="rerun"), logic.PARTS
        ):
            if not tab.open:
                continue
            with tab:
                title = t("embeddings.heatmap_title", part=part_labels[name], dims=dims)
                plot(
                    charts.part_heatmap(parts[name], tokens, dims, title=title),
                    key=f"embeddings_heatmap_{name}",
                    summary=charts.part_summary(parts[name], tokens, dims, t("embeddings.summary_part")),
                )
                st.caption(t(f"embeddings.caption_{name}"))
    return dims


def input_table(result) -> None:
    """Each token with its position and segment."""
    tokens = result.tokens
    st.subheader(t("embeddings.table_title"))
    st.dataframe(
        logic.input_table(tokens, result.token_type_ids),
        hide_index=True,
        column_config={
            "position": t("embeddings.col_position"),
            "token": t("embeddings.col_token"),
            "segment": t("embeddings.col_segment"),
            "segment_id": t("embeddings.col_segment_id"),
        },
        height=min(400, 36 * (len(tokens) + 1) + 3),
    )
    if "[UNK]" in tokens:
        st.caption(t("embeddings.unk_note"))


def one_token_summed(parts: dict, tokens: list[str], part_labels: dict[str, str], dims: int) -> None:
    """One token's three vectors, their sum and its LayerNorm, and their lengths."""
    hidden = parts["token"].shape[1]
    st.subheader(t("embeddings.token_title"))
    index = st.selectbox(
        t("embeddings.token_pick"),
        range(len(tokens)),
        index=min(1, len(tokens) - 1),
        format_func=lambda i: f"{i}: {tokens[i]}",
        key="embeddings_token",
    )
    view = logic.token_view(parts, index)
    left, right = st.columns([2, 1])
    with left:
        chart = charts.token_vectors(
            view.vectors,
            view.recomposed,
            dims,
            labels=part_labels,
            recomposed_label=t("embeddings.recomposed"),
            titles=(t("embeddings.panel_parts"), t("embeddings.panel_normalized")),
        )
        plot(
            chart,
            key="embeddings_token_vectors",
            summary=charts.vectors_summary(view.vectors, dims, part_labels, t("embeddings.summary_vectors")),
        )
    with right:
        plot(
            charts.norm_bars(view.norms, part_labels, title=t("embeddings.norms_title")),
            key="embeddings_norms",
            summary=charts.norms_summary(view.norms, part_labels, t("embeddings.summary_norms")),
        )
    st.markdown(t("embeddings.sum_check", hidden=hidden, error=f"{view.max_sum_error:.1g}"))
    st.markdown(t("embeddings.norms_note", before=view.norms["sum"], after=view.norms["normalized"]))


def position_similarity(bundle) -> None:
    """How alike the learned position embeddings are, position by position."""
    st.subheader(t("embeddings.position_title"))
    positions = logic.position_table(bundle.model)
    st.markdown(t("embeddings.position_explain", last=len(positions) - 1, total=bundle.config.max_position_embeddings))
    similarity = logic.cosine_similarity(positions)
    plot(
        charts.position_similarity(
            similarity, title=t("embeddings.position_heatmap_title"), axis_label=t("embeddings.position_axis")
        ),
        key="embeddings_positions",
        summary=charts.position_summary(similarity, t("embeddings.summary_positions")),
    )
    st.caption(t("embeddings.download_similarity"))
    download_buttons("position_similarity", lambda: logic.similarity_rows(similarity), key="embeddings_similarity")


def downloads(parts: dict, result) -> None:
    tokens = result.tokens
    st.subheader(t("embeddings.downloads_title"))
    st.caption(t("embeddings.downloads_note"))
    if len(tokens) > logic.MAX_DOWNLOAD_TOKENS:
        st.caption(t("embeddings.downloads_limited", n=len(tokens), limit=logic.MAX_DOWNLOAD_TOKENS))
    download_buttons(
        "embeddings",
        lambda: logic.download_rows(parts, tokens, result.token_type_ids),
        data=lambda: logic.download_json(parts, tokens, result.token_type_ids),
        key="embeddings_parts",
    )
