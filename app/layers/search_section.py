"""The layers lab's third part, corpus search (exBERT's): the held-out tokens nearest to one token of the shared
sentence at a layer, each in its sentence, and what the matches share at every layer."""

from __future__ import annotations

import streamlit as st

from app.core.errors import explain
from app.core.i18n import t
from app.core.state import SETTINGS, PageContext, keep
from app.core.tokens import escape_markdown, isolated
from app.core.ui import download_buttons, plot
from app.layers import search_charts
from app.layers import search_logic as logic
from model.analysis.search import METRICS, SearchError
from model.data.fetch import FetchError
from model.inference import InputError

SERIES = ("same_token", "top_tag", "same_position", "agreement")


def _mark(piece: str, is_match: bool) -> str:
    shown = escape_markdown(piece)
    # Bold inside the highlight: "**" next to a Chinese character would not count as emphasis outside it.
    return f":blue-background[**{shown}**]" if is_match else shown


def _tag_names(language: str, tags) -> dict[str, str]:
    return {tag: t(f"layers.tag_{language}_{tag}") for tag in tags}


def _settle(name: str, last: int, default: int) -> int:
    """The remembered value when it fits this sentence or model, else ``default`` (stored, so links carry it)."""
    value = st.session_state[name]
    if not 0 <= value <= last:
        st.session_state[name] = value = default
    return value


def render(context: PageContext) -> None:
    st.subheader(t("layers.search_header"))
    st.markdown(t("layers.search_intro"))
    spec, text = context.spec, context.text
    language = logic.corpus_language(text)
    try:
        tokens = logic.sentence_tokens(spec, text)
    except InputError as error:
        st.warning(explain(error))
        return
    n_layers = context.bundle.config.num_hidden_layers
    _settle("layers_search_token", len(tokens) - 1, logic.default_position(tokens))
    _settle("layers_search_layer", n_layers, min(SETTINGS["layers_search_layer"].default, n_layers))

    columns = st.columns([3, 3, 2, 1], vertical_alignment="bottom")
    with columns[0]:
        st.selectbox(
            t("layers.search_token"),
            range(len(tokens)),
            format_func=dict(enumerate(f"{i}: {token}" for i, token in enumerate(tokens))).get,
            help=t("layers.search_token_help"),
            **keep("layers_search_token"),
        )
    with columns[1]:
        st.slider(
            t("layers.search_layer"), 0, n_layers, help=t("layers.search_layer_help"), **keep("layers_search_layer")
        )
    with columns[2]:
        st.radio(
            t("layers.search_metric"),
            METRICS,
            format_func={m: t(f"layers.metric_{m}") for m in METRICS}.get,
            horizontal=True,
            **keep("layers_search_metric"),
        )
    with columns[3]:
        st.button(
            t("layers.run_search"),
            type="primary",
            on_click=lambda: st.session_state.__setitem__("layers_search_ran", True),
            key="layers_run_search",
        )
    position, layer = st.session_state["layers_search_token"], st.session_state["layers_search_layer"]
    metric = st.session_state["layers_search_metric"]
    corpus = t(f"layers.search_corpus_{language}")
    if not st.session_state["layers_search_ran"]:
        ready = logic.index_is_ready(spec, language)
        st.info(t("layers.search_waiting" if ready else "layers.search_waiting_build", corpus=corpus))
        return
    try:
        if not logic.index_is_ready(spec, language):
            bar = st.progress(0.0, text=t("layers.search_building", corpus=corpus))
            logic.corpus_index(
                spec,
                language,
                on_progress=lambda done, total: bar.progress(
                    done / total, text=t("layers.search_building_progress", corpus=corpus, done=done, total=total)
                ),
            )
            bar.empty()
        found = logic.neighbours(spec, language, text, position, metric)
    except SearchError as error:
        st.warning(t(f"layers.search_error_{error.code}", **error.values))
        return
    except (FetchError, OSError, ValueError) as error:
        st.warning(t("layers.data_error", error=error))
        return
    _show(found, tokens, position, layer, metric, language, corpus, context)


def _show(found: dict, tokens, position: int, layer: int, metric: str, language: str, corpus: str, context) -> None:
    rows, summary = found["rows"][layer], found["summary"]
    token = tokens[position]
    st.caption(
        t("layers.search_found", n=len(rows), token=escape_markdown(isolated(token)), layer=layer, corpus=corpus)
        + " "
        + t("layers.search_index", tokens=found["index"]["tokens"], sentences=found["index"]["sentences"])
    )
    names = {key: t(f"layers.search_series_{key}") for key in SERIES}
    series = {
        "same_token": [s["same_token"] for s in summary],
        "top_tag": [max(s["tags"].values()) if s["tags"] else None for s in summary],
        "same_position": [s["same_position"] for s in summary],
    }
    if found["agreement"] is not None:
        series["agreement"] = found["agreement"]
    left, right = st.columns([3, 2])
    with left:
        lines = []
        for rank, row in enumerate(rows, 1):
            sentence = logic.joined_pieces(row["tokens"], row["position"], _mark)
            tag = f" · {escape_markdown(row['tag'])}" if row["tag"] else ""
            lines.append(f"{rank}. `{row['score']:.3f}`{tag} · {sentence}")
        st.markdown("\n".join(lines))
    with right:
        tags = summary[layer]["tags"]
        if tags:
            tag_names = _tag_names(language, tags)
            plot(
                search_charts.tag_bars(tags, tag_names, title=t("layers.search_tags_title", layer=layer)),
                key="layers_search_tags",
                summary=search_charts.tag_summary(tags, tag_names, t("layers.search_tags_summary")),
            )
            st.caption(t("layers.search_tags_note", tagged=summary[layer]["tagged"], n=len(rows)))
        else:
            st.caption(t("layers.search_no_tags"))
    plot(
        search_charts.shares_by_layer(
            series,
            names,
            layer=layer,
            layer_label=t("layers.search_chosen_layer"),
            layer_title=t("layers.axis_layer"),
            share_title=t("layers.search_axis_share"),
            title=t("layers.search_shares_title", token=token),
        ),
        key="layers_search_shares",
        summary=search_charts.shares_summary(series, names, t("layers.search_shares_summary")),
    )
    st.caption(t("layers.search_shares_note"))
    header = [
        t("layers.col_layer"),
        "#",
        t("layers.col_score", metric=t(f"layers.metric_{metric}")),
        t("layers.col_tag"),
        t("layers.col_sentence"),
    ]
    table = [
        [
            lay,
            rank,
            row["score"],
            row["tag"],
            logic.joined_pieces(row["tokens"], row["position"], lambda p, m: f"[{p}]" if m else p),
        ]
        for lay, layer_rows in enumerate(found["rows"])
        for rank, row in enumerate(layer_rows, 1)
    ]
    download_buttons(
        f"search_{token}",
        lambda: (header, table),
        data=lambda: {"model": context.bundle.name, "token": token, "position": position, "metric": metric} | found,
        key="layers_search",
    )
