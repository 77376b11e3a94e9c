"""What each attention head does, in numbers: the statistics behind the attention page.

GPT's causal mask lets a token look only to its left; BERT's encoder lets every position see every other
(Devlin et al. 2019, section 3 and appendix A.4). The functions here turn a model's attention weights into
what a student can compare across masks and heads. The per-head statistics follow Clark et al., "What Does
BERT Look At?" (2019): mean entropy, and how much weight goes to [CLS], to [SEP], to the token itself and
to its neighbours.

Everything is pure NumPy: arrays in, arrays or plain values out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The statistics, in the order the page shows them. "entropy" is in bits; the others are shares in [0, 1].
STATISTICS = ("entropy", "cls", "sep", "self", "previous", "next")
# The JSON of every layer and head of both masks is ~5 MB at 64 tokens and grows with the square of it.
MAX_JSON_TOKENS = 64


def sentence_b_start(token_type_ids: Sequence[int]) -> int | None:
    """Index of sentence B's first token, or None for a single sentence."""
    for index, segment in enumerate(token_type_ids):
        if segment == 1:
            return index
    return None


def select_map(attentions: np.ndarray, layer: int, head: int | None) -> np.ndarray:
    """One (T, T) map from (L, nh, T, T): a head's, or with ``head=None`` the mean over the layer's heads."""
    maps = np.asarray(attentions)[layer]  # (nh, T, T)
    return maps.mean(axis=0) if head is None else maps[head]


def hide_special(
    matrix: np.ndarray, tokens: Sequence[str], special: Sequence[bool], *, renormalize: bool
) -> tuple[np.ndarray, list[str]]:
    """Drop the rows and columns the tokenizer flags as special ([CLS], [SEP], [PAD]); optionally rescale
    each row to sum to 1 again.

    Without renormalising, a row sums to what the token gave to ordinary tokens (often much less than 1,
    since BERT parks a lot of attention on [SEP]). A row that gave everything to special tokens stays all
    zero rather than turning into NaN. If nothing but special tokens exists, the matrix is returned whole.
    """
    keep = ~np.asarray(special, dtype=bool)
    if not keep.any():
        return np.asarray(matrix, dtype=float), list(tokens)
    sub = np.asarray(matrix, dtype=float)[np.ix_(keep, keep)]  # (T', T')
    if renormalize:
        totals = sub.sum(axis=-1, keepdims=True)  # (T', 1)
        sub = np.divide(sub, totals, out=np.zeros_like(sub), where=totals > 0)
    return sub, [t for t, k in zip(tokens, keep) if k]


def displayed_map(
    attentions: np.ndarray,
    tokens: Sequence[str],
    special: Sequence[bool],
    layer: int,
    head: int | None,
    *,
    hide: bool = False,
    renormalize: bool = True,
) -> tuple[np.ndarray, list[str]]:
    """The (T', T') map a page shows and its tokens: ``select_map``, then optionally ``hide_special``."""
    matrix = select_map(attentions, layer, head)
    if hide:
        return hide_special(matrix, tokens, special, renormalize=renormalize)
    return np.asarray(matrix, dtype=float), list(tokens)


def head_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """How far each head's attention moved between two models on the same tokens: (L, nh, T, T) twice → (L, nh).

    Per query row, the total variation distance between the two attention distributions (half the sum of
    absolute differences): the share of that token's attention that went somewhere else, 0 when nothing
    changed, 1 when the two rows share no weight at all. The value is its mean over the rows.
    """
    before = np.asarray(before, dtype=np.float64)
    after = np.asarray(after, dtype=np.float64)
    if before.shape != after.shape:
        raise ValueError(f"the maps must cover the same tokens: {before.shape} against {after.shape}")
    return 0.5 * np.abs(after - before).sum(axis=-1).mean(axis=-1)


def largest_change(change: np.ndarray) -> tuple[int, int, float]:
    """(layer, head, value) of the head whose attention moved most in a ``head_change`` grid."""
    change = np.asarray(change)
    layer, head = np.unravel_index(int(np.argmax(change)), change.shape)
    return int(layer), int(head), float(change[layer, head])


def layer_change(change: np.ndarray) -> np.ndarray:
    """A ``head_change`` grid's mean over each layer's heads, bottom layer first: (L, nh) → (L,)."""
    return np.asarray(change, dtype=np.float64).mean(axis=1)


def head_statistics(attentions: np.ndarray, special: Sequence[bool]) -> dict[str, np.ndarray]:
    """One (L, nh) array per name in ``STATISTICS``, each averaged over the query positions (rows).

    * ``entropy``: mean of -Σ p·log2 p over a row: 0 bits when a token looks at one token only,
      log2(T) when it spreads evenly over all T tokens.
    * ``cls`` / ``sep``: mean share of a row that lands on [CLS] / on any [SEP]. ``special`` is the
      tokenizer's flags; the first special position is the [CLS] it puts in front, the others are [SEP].
    * ``self``: mean weight a token gives itself (the diagonal).
    * ``previous`` / ``next``: mean weight on the token just before / after (rows that have one).
    """
    attn = np.asarray(attentions, dtype=np.float64)  # (L, nh, T, T)
    if attn.ndim != 4 or attn.shape[-1] != attn.shape[-2] or attn.shape[-1] != len(special):
        raise ValueError(f"attentions of shape {attn.shape} do not fit {len(special)} tokens")
    n_layers, n_heads, _seq_len, _ = attn.shape
    logs = np.log2(attn, out=np.zeros_like(attn), where=attn > 0)
    is_sep = np.array(special, dtype=bool)
    is_cls = np.zeros_like(is_sep)
    is_cls[0] = is_sep[0]
    is_sep[0] = False
    zeros = np.zeros((n_layers, n_heads))

    def neighbour(offset: int) -> np.ndarray:
        # offset -1: A[i, i-1] for i >= 1; offset +1: A[i, i+1] for i < T-1.
        band = np.diagonal(attn, offset=offset, axis1=-2, axis2=-1)  # (L, nh, T-1)
        return band.mean(axis=-1) if band.shape[-1] else zeros

    return {
        "entropy": -(attn * logs).sum(axis=-1).mean(axis=-1),
        "cls": attn[..., is_cls].sum(axis=-1).mean(axis=-1),
        "sep": attn[..., is_sep].sum(axis=-1).mean(axis=-1),
        "self": np.diagonal(attn, axis1=-2, axis2=-1).mean(axis=-1),
        "previous": neighbour(-1),
        "next": neighbour(+1),
    }


@dataclass(frozen=True)
class NotableHead:
    """The head with the most (or, for "focused", the least) of one statistic."""

    kind: str  # a name from STATISTICS, or "focused" / "broad" for lowest / highest entropy
    statistic: str
    layer: int
    head: int
    value: float


def notable_heads(stats: dict[str, np.ndarray]) -> list[NotableHead]:
    """The extremes worth a look: the most focused and the broadest head, then the top head of each share."""
    found = []

    def pick(kind: str, name: str, index: int) -> None:
        layer, head = np.unravel_index(index, stats[name].shape)
        found.append(NotableHead(kind, name, int(layer), int(head), float(stats[name][layer, head])))

    pick("focused", "entropy", int(np.argmin(stats["entropy"])))
    pick("broad", "entropy", int(np.argmax(stats["entropy"])))
    for name in STATISTICS[1:]:
        if stats[name].max() > 0:  # under the causal mask no head can look at the next token: nothing to show
            pick(name, name, int(np.argmax(stats[name])))
    return found


def statistics_rows(stats: dict[str, np.ndarray]) -> tuple[list[str], list[list]]:
    """A table with one row per head: header and rows for a CSV download."""
    n_layers, n_heads = stats[STATISTICS[0]].shape
    header = ["layer", "head", *STATISTICS]
    rows = [
        [layer, head, *(round(float(stats[name][layer, head]), 6) for name in STATISTICS)]
        for layer in range(n_layers)
        for head in range(n_heads)
    ]
    return header, rows


def map_rows(maps: dict[str, np.ndarray], tokens: Sequence[str]) -> tuple[list[str], list[list]]:
    """Several (T, T) maps of the same tokens as one table: a column naming the map, then query, then keys."""
    tokens = list(tokens)
    header = ["map", "query \\ key", *tokens]
    rows = [
        [name, query, *(round(float(v), 6) for v in row)]
        for name, matrix in maps.items()
        for query, row in zip(tokens, np.asarray(matrix))
    ]
    return header, rows


def attentions_json(
    tokens: Sequence[str], token_type_ids: Sequence[int], maps: dict[str, np.ndarray], *, decimals: int = 4
) -> dict:
    """Every layer and head of each named (L, nh, T, T) array, rounded, for a JSON download."""
    return {
        "tokens": list(tokens),
        "token_type_ids": [int(s) for s in token_type_ids],
        "shape": "layers x heads x query x key",
        **{name: np.round(np.asarray(a, dtype=np.float64), decimals).tolist() for name, a in maps.items()},
    }
