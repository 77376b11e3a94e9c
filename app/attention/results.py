"""The attention page's own cached result: bertviz's document for one sentence and view (the shared per-sentence
results, maps and statistics, are ``app.core.models``')."""

from __future__ import annotations

import streamlit as st

from app.attention import bertviz_view
from app.core import attention_stats
from app.core.models import attention
from app.core.result_cache import CACHE_TTL


# A resource, not data: the document is an immutable string of some 0.4 MB, shared rather than pickled per call.
@st.cache_resource(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def bertviz_document(
    spec: str,
    text: str,
    pair: str | None,
    causal: bool,
    view: str,
    layers: tuple[int, ...],
    labels: tuple[tuple[str, str], ...],
) -> str:
    result = attention(spec, text, pair, causal)
    common = {
        "tokens_b_start": attention_stats.sentence_b_start(result.token_type_ids),
        "layers": list(layers),
        "labels": dict(labels),
    }
    if view == "head":
        # It holds every layer and shows one at a time: the one the Layer selector chose, read in the browser
        # from the page's URL ("layer" is always in it). A change of layer or head therefore sends the very
        # same document, and the browser keeps the frame instead of parsing a new one.
        return bertviz_view.head_view_html(result.attentions, result.tokens, follow_parent_url="layer", **common)
    return bertviz_view.model_view_html(result.attentions, result.tokens, **common)
