"""What the head lab page asks for, cached: the sample statistics, the pruning curve, results with heads removed.

The numbers come from ``model.analysis.heads`` and ``model.inference``; this module caches them per model and
language, turns them into export tables, and parses the removed-heads list a link carries (``off=3.7,5.0``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from app.core import counting
from app.core.counting import counted
from app.core.models import get_model
from app.core.result_cache import CACHE_TTL
from model import inference, results
from model.analysis import heads, heads_store

Head = tuple[int, int]


def head_name(head: Head) -> str:
    """A head as a link and the command line name it, indexed from 0 ("0.3")."""
    return f"{head[0]}.{head[1]}"


def head_title(name: str) -> str:
    """The head ``name`` ("0.3") as the page shows it, counted from 1 ("1.4")."""
    layer, head = name.split(".")
    return counting.head_title(int(layer), int(head))


def parse_off(value: str | None, layers: int, heads_per_layer: int) -> list[Head]:
    """The removed heads a link names, keeping only those the model has (a hand-edited link never crashes)."""
    if not value:
        return []
    try:
        named = inference.parse_heads(value)
    except inference.InputError:
        return []
    return sorted({(layer, head) for layer, head in named if layer < layers and head < heads_per_layer})


@st.cache_data(max_entries=8, ttl=CACHE_TTL, show_spinner=False)
def statistics(spec: str, lang: str) -> heads.HeadStats:
    """Per-head statistics, patterns and importance over the sample: seconds the first time these weights are
    measured, then read from disk by every server (``heads_store``) and held here for everyone."""
    return heads_store.head_statistics(get_model(spec), lang)


@st.cache_resource(show_spinner=False)
def _curves() -> dict:
    """Pruning curves computed so far, per (model, language), shared by every session of this server."""
    return {}


def cached_curve(spec: str, lang: str) -> heads.PruningCurve | None:
    return _curves().get((spec, lang))


def pruning_curve(spec: str, lang: str, on_progress: Callable[[float], None]) -> heads.PruningCurve:
    """Compute (or return) the pruning curve; ``on_progress`` hears the share done while it runs."""
    curve = cached_curve(spec, lang)
    if curve is None:
        curve = heads.pruning_curve(get_model(spec), lang, statistics(spec, lang).importance, on_progress=on_progress)
        _curves()[(spec, lang)] = curve
    return curve


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def fill_mask(spec: str, text: str, removed: tuple[Head, ...]) -> results.FillMaskResult:
    return inference.fill_mask(get_model(spec), text, top_k=5, removed_heads=removed)


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def next_sentence(spec: str, first: str, second: str, removed: tuple[Head, ...]) -> results.NspResult:
    return inference.next_sentence(get_model(spec), first, second, removed_heads=removed)


@st.cache_data(max_entries=128, ttl=CACHE_TTL, show_spinner=False)
def token_views(spec: str, text: str, position: int, layer: int, head: int) -> heads.TokenViews:
    return heads.token_views(get_model(spec), text, None, position, layer, head)


def most_important(importance: np.ndarray, keep: int) -> list[Head]:
    """The heads to remove so that only the ``keep`` most important stay."""
    order = heads.importance_order(importance)  # least important first
    return sorted(order[: max(0, len(order) - keep)])


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def token_probabilities(spec: str, text: str, removed: tuple[Head, ...], token_ids: tuple[int, ...]) -> list[float]:
    return inference.mask_token_probabilities(get_model(spec), text, token_ids, removed_heads=removed)


def compared_tokens(full: results.FillMaskResult, ablated: results.FillMaskResult) -> list[tuple[str, int]]:
    """For the first [MASK]: each token in either top 5 (token, id), the full model's order first."""
    seen = {p.token: p.id for p in full.masks[0].predictions}
    for p in ablated.masks[0].predictions:
        seen.setdefault(p.token, p.id)
    return list(seen.items())


def compared_predictions(
    tokens: list[tuple[str, int]], with_all: list[float], without: list[float]
) -> list[tuple[str, float, float]]:
    """Each token with its real probability with all heads and without the removed ones, also where it left
    one of the two top 5s (a word that dropped to 3% shows 3%, not 0)."""
    return [(token, a, b) for (token, _), a, b in zip(tokens, with_all, without, strict=True)]


def feature_rows(stats: heads.HeadStats) -> tuple[list[str], list[list]]:
    header = ["layer", "head", *heads.FEATURES, "pattern", "pattern_share", "importance"]
    rows = []
    for layer in range(stats.layers):
        for head in range(stats.heads):
            values = [round(float(stats.features[f][layer, head]), 5) for f in heads.FEATURES]
            rows.append(
                [
                    layer,
                    head,
                    *values,
                    stats.patterns[layer, head],
                    round(float(stats.pattern_share[layer, head]), 3),
                    round(float(stats.importance[layer, head]), 5),
                ]
            )
    return header, rows


def curve_rows(curve: heads.PruningCurve) -> tuple[list[str], list[list]]:
    header = ["share_removed", "heads_removed", "top1_by_importance", "top1_random_mean"]
    rows = [
        [f, n, round(a, 5), round(b, 5)]
        for f, n, a, b in zip(curve.fractions, curve.removed, curve.by_importance, curve.random_mean, strict=True)
    ]
    return header, rows


def views_rows(views: heads.TokenViews) -> tuple[list[str], list[list]]:
    header = ["position", "token", "raw", "norm_based", "rollout", "gradient_x_input"]
    gxi = views.gradient_x_input if views.gradient_x_input is not None else [None] * len(views.tokens)
    rows = [
        [i, tok, *(None if v is None else round(float(v), 5) for v in (r, n, ro, g))]
        for i, (tok, r, n, ro, g) in enumerate(
            zip(views.tokens, views.raw, views.norm, views.rollout, gxi, strict=True)
        )
    ]
    return header, rows


def top_targets(views: heads.TokenViews) -> dict[str, tuple[str, float]]:
    """Per view, the token it gives the largest share and that share: where the four views agree or not."""
    out = {}
    for name in ("raw", "norm", "rollout", "gradient_x_input"):
        values = getattr(views, name)
        if values is not None:
            i = int(np.argmax(values))
            out[name] = (views.tokens[i], float(values[i]))
    return out


def special_share(views: heads.TokenViews, name: str) -> float | None:
    """The share a view gives [CLS] and [SEP] together."""
    values = getattr(views, name)
    if values is None:
        return None
    return float(sum(v for tok, v in zip(views.tokens, values, strict=True) if tok in ("[CLS]", "[SEP]")))


def removed_list(removed: Sequence[Head]) -> str:
    return ",".join(head_name(h) for h in sorted(removed))


def findings(stats: heads.HeadStats) -> dict:
    """The loaded model's numbers for the sentences beside the BERT-Base reference findings."""
    sep, cls, entropy = (np.array(stats.layer_means(f)) for f in ("sep", "cls", "entropy"))
    return {
        "sep_layer": counted(sep.argmax()),
        "sep_share": float(sep.max()),
        "cls_layer": counted(cls.argmax()),
        "cls_share": float(cls.max()),
        "prev_count": int((stats.features["prev"] > 0.5).sum()),
        "next_count": int((stats.features["next"] > 0.5).sum()),
        "broad_layer": counted(entropy.argmax()),
        "broad_entropy": float(entropy.max()),
    }
