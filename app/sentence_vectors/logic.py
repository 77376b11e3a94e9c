"""What the sentence-vectors page computes, cached: the held-out pool's vectors per model (once per server), the
reader's sentence's vectors and neighbours (per sentence), MiniLM where the cache holds it.

MiniLM's pool vectors are computed here, not shipped: the reader's sentence has to go through MiniLM anyway, so
shipped vectors would not make the MiniLM column work without its weights, and the 400 English sentences take
about 1.5 s on 2 cores, once per server (``st.cache_resource``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from app.core.models import CACHE_TTL, get_model
from model.analysis.budget import sample_stride
from model.analysis.sentence_vectors import (
    PoolVectors,
    batch_ids,
    embed,
    load_minilm_bundle,
    neighbours,
    pool_side,
    pool_vectors,
    side_vectors,
    stored_pool_vectors,
)
from model.checkpoint import CheckpointError, LoadedBert
from model.data.fetch import FetchError, default_cache_dir
from model.data.translation_pairs import load_pool

TOP_K = 5
MINILM = "minilm"
TRAINED = "trained"
MINILM_COMMAND = "python -m model sentence-vectors --fetch-minilm 'A sentence.'"


@dataclass(frozen=True)
class Hit:
    lang: str
    text: str
    cosine: float


def pool_stride(spec: str) -> int:
    """Every how many pairs of the held-out pool the page reads with the model ``spec``: 1 for the embedded model,
    more for a larger one (``model.analysis.budget``), and every way on the page reads the same pairs."""
    return sample_stride(get_model(spec).config)


@st.cache_resource(max_entries=4, show_spinner=False)
def _pool_vectors(key: str, _model, _tokenizer, poolings: tuple[str, ...], stride: int) -> dict[str, PoolVectors]:
    return pool_vectors(_model, _tokenizer, load_pool(stride), poolings)


@st.cache_resource(max_entries=4, show_spinner=False)
def raw_pool_vectors(spec: str) -> dict[str, PoolVectors]:
    """The pool's [CLS] and mean vectors from the model ``spec`` (shared by every session, and on disk by every
    server: ``stored_pool_vectors``)."""
    return stored_pool_vectors(get_model(spec), pool_stride(spec))


def trained_pool_vectors(job_id: str, model, tokenizer, stride: int) -> PoolVectors:
    """The pool's mean vectors from a session's trained model (cached under the job's unique id)."""
    return _pool_vectors(f"trained:{job_id}", model, tokenizer, ("mean",), stride)["mean"]


@st.cache_resource(max_entries=2, show_spinner=False)
def minilm(cache_dir: str) -> LoadedBert | None:
    """all-MiniLM-L6-v2 from the download cache ``cache_dir``, or None when it is not there (never fetched here: a
    page must not wait on an 83 MB download, and an offline classroom cannot make one)."""
    try:
        return load_minilm_bundle(download=False)
    except (FetchError, CheckpointError, OSError):
        return None


def minilm_bundle() -> LoadedBert | None:
    return minilm(str(default_cache_dir()))


def minilm_pool_vectors(bundle: LoadedBert, stride: int) -> PoolVectors:
    return _pool_vectors(f"minilm:{bundle.path}", bundle.model, bundle.tokenizer, ("mean",), stride)["mean"]


def is_truncated(bundle: LoadedBert, text: str) -> bool:
    return batch_ids(bundle.tokenizer, [text])[2][0]


@st.cache_data(max_entries=256, ttl=CACHE_TTL, show_spinner=False)
def _query(key: str, text: str, _model, _tokenizer, poolings: tuple[str, ...]) -> dict[str, np.ndarray]:
    vectors = embed(_model, _tokenizer, [text], poolings)
    return {p: v.numpy()[0] for p, v in vectors.items()}


def search(key: str, bundle_or_model, tokenizer, text: str, vectors: dict[str, PoolVectors], side: str, stride: int):
    """Each pooling's ``TOP_K`` pool sentences nearest ``text`` on ``side``: {pooling: [Hit]}; ``vectors`` are the
    pool's (every ``stride``-th pair), by pooling ("cls", "mean"), from the same model; ``key`` names that model in
    the cache."""
    model = getattr(bundle_or_model, "model", bundle_or_model)
    query = _query(key, text, model, tokenizer, tuple(vectors))
    sentences = pool_side(load_pool(stride), side)
    return {
        p: [Hit(*sentences[i], c) for i, c in neighbours(query[p], side_vectors(v, side), TOP_K)]
        for p, v in vectors.items()
    }


def figures(vectors: dict[str, PoolVectors]) -> dict[str, dict[str, float]]:
    """Per model-and-pooling: recall@1 and @5 en → zh, and the mean random-pair cosine per language."""
    return {
        name: {
            "recall_at_1": v.recall(1),
            "recall_at_5": v.recall(5),
            "cosine_en": v.random_pair_cosine("en"),
            "cosine_zh": v.random_pair_cosine("zh"),
        }
        for name, v in vectors.items()
    }


@st.cache_data(max_entries=16, show_spinner=False)
def cached_figures(key: str, _vectors: dict[str, PoolVectors]) -> dict[str, dict[str, float]]:
    return figures(_vectors)
