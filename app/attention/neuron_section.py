"""The attention page's neuron view (Vig 2019; bertviz's ``neuron_view``): how one weight of the chosen layer and
head is computed, from the query of one token and the keys of all. Drawn with plotly: bertviz's own neuron view
runs on its copy of the BERT code and loads only checkpoints in its format, not the models this app reads, so the
numbers are computed from the loaded model's own weights (``model.analysis.neuron_view``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app.attention import charts
from app.core.counting import counted, counted_label
from app.core.i18n import t
from app.core.models import neuron_view
from app.core.state import keep
from app.core.ui import download_buttons, plot, run_or_explain


def render(spec: str, text: str, pair: str | None, n_layers: int, n_heads: int, tokens: list[str]) -> None:
    st.markdown(t("attention.neuron_intro"))
    columns = st.columns(3)
    with columns[0]:
        st.selectbox(t("common.layer"), range(n_layers), format_func=counted_label, **keep("layer"))
    with columns[1]:
        st.selectbox(t("common.head"), range(n_heads), format_func=counted_label, **keep("head"))
    with columns[2]:
        labels = {i: f"{i}: {token}" for i, token in enumerate(tokens)}
        row = st.selectbox(
            t("attention.neuron_token"),
            range(len(tokens)),
            index=min(1, len(tokens) - 1),
            format_func=labels.get,
            key="attention_neuron_token",
        )
    layer, head = st.session_state["layer"], st.session_state["head"]
    view = run_or_explain(neuron_view, spec, text, pair, layer, head, row)
    if view is None:
        return
    where = {"layer": counted(layer), "head": counted(head), "token": tokens[row]}
    vectors(view, where)
    weights(view, where)
    download_buttons(
        f"neuron_view_{counted(layer)}_{counted(head)}_{row}",
        lambda: (
            ["key_position", "key_token", "scaled_dot_product", "weight"],
            [
                [j, tok, round(float(s), 6), round(float(w), 6)]
                for j, (tok, s, w) in enumerate(zip(view.tokens, view.scores, view.weights))
            ],
        ),
        data=view.to_json,
        key="attention_neuron",
    )
    st.caption(t("attention.neuron_drawn_with"))


def vectors(view, where: dict) -> None:
    """The query, every key, and their elementwise products, dimension by dimension."""
    names = {"query": t("attention.neuron_query_row", **where)}
    plot(
        charts.neuron_vectors(
            view.query,
            view.keys,
            view.tokens,
            query_label=names["query"],
            dimension_title=t("attention.neuron_dimension"),
            title=t("attention.neuron_vectors_title", **where),
        ),
        key="attention_neuron_vectors",
        summary=t("attention.summary_neuron_vectors", d=len(view.query), **where),
    )
    plot(
        charts.neuron_products(
            view.products,
            view.tokens,
            dimension_title=t("attention.neuron_dimension"),
            title=t("attention.neuron_products_title", **where),
        ),
        key="attention_neuron_products",
        summary=t("attention.summary_neuron_products", **where),
    )


def weights(view, where: dict) -> None:
    """The scaled dot products, and their softmax: the attention row the model uses."""
    strongest = int(np.argmax(view.weights))
    plot(
        charts.neuron_scores(
            view.scores,
            view.weights,
            view.tokens,
            score_title=t("attention.neuron_score_axis", d=len(view.query)),
            weight_title=t("attention.neuron_weight_axis"),
            title=t("attention.neuron_scores_title", **where),
        ),
        key="attention_neuron_scores",
        summary=t(
            "attention.summary_neuron_scores",
            target=view.tokens[strongest],
            score=float(view.scores[strongest]),
            share=float(view.weights[strongest]),
            **where,
        ),
    )
