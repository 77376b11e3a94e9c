"""The numbers behind the embeddings page: BERT's input is token + segment + position, then LayerNorm.

Devlin et al. 2019, section 3 ("Input/Output Representations") and figure 2: token embeddings map each
wordpiece to a vector, segment embeddings tell sentence A (0) from B (1), position embeddings encode the place,
and the three are added. Pure functions: a model's arrays in, plain arrays and tables out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The five (T, H) arrays of an EmbeddingResult, in the order they are computed.
PARTS = ("token", "segment", "position", "sum", "normalized")
MAX_POSITIONS_SHOWN = 128
# Beyond this many tokens the full (5, T, H) download would take seconds to build on every rerun.
MAX_DOWNLOAD_TOKENS = 128


def family_notes(config) -> list[str]:
    """The string keys of what a model of ``config`` does differently from BERT's sum (BERT's family): RoBERTa's
    positions after the padding index and its one segment, DistilBERT's missing segment table, ALBERT's and
    ELECTRA's narrower embeddings projected up to the layers' width."""
    notes = []
    if not config.type_vocab_size:
        notes.append("embeddings.family_no_segments")
    elif config.type_vocab_size == 1:
        notes.append("embeddings.family_one_segment")
    if config.positions_after_padding:
        notes.append("embeddings.family_positions_after_padding")
    if config.embedding_width != config.hidden_size:
        notes.append("embeddings.family_factorized")
    return notes


def parts_of(result) -> dict[str, np.ndarray]:
    """The five (T, H) arrays of an ``EmbeddingResult`` by name."""
    return {name: np.asarray(getattr(result, name)) for name in PARTS}


@dataclass
class TokenView:
    """One token's five vectors and what they show: the sum is exact, LayerNorm rescales it."""

    vectors: dict[str, np.ndarray]  # name -> (H,)
    recomposed: np.ndarray  # token + segment + position, (H,)
    max_sum_error: float  # max |sum - (token + segment + position)| over all H dimensions
    norms: dict[str, float]  # L2 norm of each vector


def token_view(parts: dict[str, np.ndarray], index: int) -> TokenView:
    vectors = {name: np.asarray(parts[name][index], dtype=np.float64) for name in PARTS}
    recomposed = vectors["token"] + vectors["segment"] + vectors["position"]
    return TokenView(
        vectors=vectors,
        recomposed=recomposed,
        max_sum_error=float(np.abs(vectors["sum"] - recomposed).max()),
        norms={name: float(np.linalg.norm(v)) for name, v in vectors.items()},
    )


def position_table(model, limit: int = MAX_POSITIONS_SHOWN) -> np.ndarray:
    """The learned position embeddings of positions 0..min(limit, max)-1 as a (P, H) array.

    ``model`` is a BertForPreTraining or a fine-tuned classifier: both keep the encoder under ``.bert``.
    """
    weight = model.bert.embeddings.position_embeddings.weight  # (max_positions, H)
    return weight[: min(limit, weight.shape[0])].detach().to("cpu").double().numpy()


def cosine_similarity(vectors: np.ndarray) -> np.ndarray:
    """(N, N) cosine similarity of the rows of an (N, H) array; an all-zero row is similar to nothing."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)  # (N, 1)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return unit @ unit.T


def input_table(tokens: Sequence[str], token_type_ids: Sequence[int]) -> list[dict]:
    """One row per token: position, token, segment letter (A for 0, B for 1) and id."""
    return [
        {
            "position": i,
            "token": token,
            "segment": "AB"[segment] if segment in (0, 1) else str(segment),
            "segment_id": segment,
        }
        for i, (token, segment) in enumerate(zip(tokens, token_type_ids))
    ]


def download_rows(
    parts: dict[str, np.ndarray], tokens: Sequence[str], token_type_ids: Sequence[int], limit: int = MAX_DOWNLOAD_TOKENS
) -> tuple[list[str], list[list]]:
    """Every vector of the first ``limit`` tokens as a CSV row: part, position, token, segment, H dimensions."""
    hidden = parts[PARTS[0]].shape[1]
    header = ["part", "position", "token", "segment", *(f"d{i}" for i in range(hidden))]
    rows = []
    for name in PARTS:
        rounded = np.round(parts[name][:limit].astype(np.float64), 6).tolist()
        for i, (token, segment) in enumerate(zip(tokens[:limit], token_type_ids[:limit])):
            rows.append([name, i, token, int(segment), *rounded[i]])
    return header, rows


def download_json(
    parts: dict[str, np.ndarray], tokens: Sequence[str], token_type_ids: Sequence[int], limit: int = MAX_DOWNLOAD_TOKENS
) -> dict:
    """The five arrays of the first ``limit`` tokens, rounded to 6 decimals."""
    return {
        "tokens": list(tokens)[:limit],
        "token_type_ids": [int(s) for s in token_type_ids][:limit],
        "shape": "tokens x hidden",
        **{name: np.round(parts[name][:limit].astype(np.float64), 6).tolist() for name in PARTS},
    }


def similarity_rows(similarity: np.ndarray) -> tuple[list[str], list[list]]:
    """A square position-by-position matrix as CSV header and rows."""
    n = similarity.shape[0]
    header = ["position", *(str(i) for i in range(n))]
    return header, [[i, *np.round(row.astype(np.float64), 6).tolist()] for i, row in enumerate(similarity)]
