"""What the layers page shares with the app: cached features and results, tables, and its part of the URL.

Features (every layer's vectors for a task's sentences) are the slow part and the large one: float32, 7 layers x
384 for the embedded model, 30-40 MB a set at the default sizes (BERT-Base: 13 x 768, about 4 times that). They
are kept per model, task, init and size, at most ``MAX_FEATURE_SETS`` sets per process, and the probes that read
them are cached as small results.
The page's settings live in ``app.core.state.SETTINGS`` like every page's, so a shared link restores a finished
experiment.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
import streamlit as st

from app.core.models import get_model
from app.core.result_cache import CACHE_TTL
from model.analysis import data, features, geometry, lab, probing
from model.analysis.result_store import result_path, stored_json

DEFAULT_TASK = {"en": "pos-en", "zh": "pos-zh"}
DEFAULT_WORD = {language: words[0] for language, words in lab.DEFAULT_WORDS.items()}


# Features are kept in a small process-wide LRU rather than ``st.cache_resource``: the page draws a progress bar
# while they are computed, and Streamlit's caches refuse a function that updates an element made outside it.
MAX_FEATURE_SETS = 6
_features: OrderedDict[tuple, lab.ProbeFeatures] = OrderedDict()
_features_lock = threading.Lock()


def probe_features(spec: str, task: str, init: str, train: int, test: int, on_progress=None) -> lab.ProbeFeatures:
    """The task's vectors for one model, computed once per process (``on_progress`` only hears a miss)."""
    key = (spec, task, init, train, test)
    with _features_lock:
        if key in _features:
            _features.move_to_end(key)
            return _features[key]
    feats = lab.probe_features(
        get_model(spec), task, init, train_sentences=train, test_sentences=test, on_progress=on_progress
    )
    with _features_lock:
        _features[key] = feats
        while len(_features) > MAX_FEATURE_SETS:
            _features.popitem(last=False)
    return feats


# Small results, cached per model by spec (looked up inside, so only strings and numbers are hashed).


_PROBE_SOURCES = tuple(Path(module.__file__) for module in (lab, probing, features, data))


def _probe_report_path(spec: str, task: str, init: str, train: int, test: int, control: bool) -> Path:
    question = f"{task}-{init}-{train}-{test}-{'control' if control else 'task'}"
    return result_path("probes", get_model(spec), question, _PROBE_SOURCES, ".json")


def probe_report_stored(spec: str, task: str, init: str, train: int, test: int, control: bool) -> bool:
    """Whether these weights' report was measured before (on disk): the page then needs no vectors at all."""
    return _probe_report_path(spec, task, init, train, test, control).exists()


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def probe_report(spec: str, task: str, init: str, train: int, test: int, control: bool) -> dict:
    """The probes' report, measured once per set of weights and read from disk by every later server
    (``model.analysis.result_store``): 18-21 s the first time on two loaded cores, then milliseconds."""
    return stored_json(
        _probe_report_path(spec, task, init, train, test, control),
        lambda: lab.run_probes(probe_features(spec, task, init, train, test), control=control).to_json(),
    )


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def word_contexts(word: str, contexts: int) -> data.WordContexts:
    return data.find_contexts(word, contexts)


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def word_vectors(spec: str, word: str, contexts: int, init: str) -> lab.WordVectors:
    return lab.word_vectors(get_model(spec), word_contexts(word, contexts), init)


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def word_layer_vectors(spec: str, word: str, contexts: int, init: str) -> np.ndarray:
    """The word's vector in each of its contexts at every layer, (L + 1, K, H): the same vectors, in the same
    order, as ``word_vectors`` projects (``lab.word_vectors`` keeps only their 2-D projections)."""
    bundle = get_model(spec)
    found = word_contexts(word, contexts)
    encoder = features.encoder_for(bundle, init, 0)  # lab.word_vectors' seed
    words = [s.words for s in found.sentences]
    return features.extract(encoder, bundle.tokenizer, words, positions=list(found.positions)).vectors


def pca_3d(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectors (K, H) on their first three principal components (numpy's SVD of the centred vectors), (K, 3), and
    the share of the variance each explains, (3,); zeros where there are fewer components. A component's sign is
    fixed so that its largest loading is positive (as ``geometry.pca_2d`` does), so the view does not flip."""
    vectors = np.asarray(vectors, dtype=np.float64)
    centred = vectors - vectors.mean(axis=0, keepdims=True)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:3]
    signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
    components = components * np.where(signs == 0, 1.0, signs)[:, None]
    coords = np.zeros((len(vectors), 3), np.float32)
    coords[:, : len(components)] = centred @ components.T
    explained = np.zeros(3, np.float32)
    total = float((s**2).sum())
    if total > 0:
        explained[: len(components)] = s[:3] ** 2 / total
    return coords, explained


@st.cache_data(max_entries=32, ttl=CACHE_TTL, show_spinner=False)
def word_pca_3d(spec: str, word: str, contexts: int, init: str, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """``pca_3d`` of the word's vectors at ``layer``, for the layers page's 3-D view."""
    return pca_3d(word_layer_vectors(spec, word, contexts, init)[layer])


_ANISOTROPY_SOURCES = tuple(Path(module.__file__) for module in (lab, features, data, geometry))


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def anisotropy(spec: str, init: str, language: str) -> list[float]:
    """Each layer's anisotropy, measured once per set of weights and read from disk by every later server (the
    geometry section's 9-12 s were mostly this, the same for every word a class asks about)."""
    bundle = get_model(spec)
    path = result_path("anisotropy", bundle, f"{init}-{language}", _ANISOTROPY_SOURCES, ".json")
    return stored_json(path, lambda: {"layers": lab.anisotropy_by_layer(bundle, init, language)})["layers"]


# Tables -------------------------------------------------------------------------------------------------------


def probe_rows(reports: dict[str, dict], headers: dict[str, str], layer_header: str) -> tuple[list[str], list]:
    """One row per layer: pre-trained accuracy, random-init accuracy, control accuracy, selectivity."""
    pretrained = reports["pretrained"]
    columns: list[tuple[str, list[float]]] = [(headers["pretrained"], pretrained["layers"])]
    if "random" in reports:
        columns.append((headers["random"], reports["random"]["layers"]))
    if "control" in pretrained:
        columns += [(headers["control"], pretrained["control"]), (headers["selectivity"], pretrained["selectivity"])]
    header = [layer_header] + [name for name, _ in columns]
    rows = [[layer] + [round(values[layer], 4) for _, values in columns] for layer in range(len(pretrained["layers"]))]
    return header, rows


def geometry_rows(
    anisotropy_by_init: dict[str, list[float]],
    self_similarity_by_init: dict[str, list[float]],
    headers: dict[str, str],
    layer_header: str,
) -> tuple[list[str], list]:
    """One row per layer: anisotropy and self-similarity, pre-trained and random-init."""
    columns = [(headers[f"anisotropy_{i}"], anisotropy_by_init[i]) for i in anisotropy_by_init]
    columns += [(headers[f"self_similarity_{i}"], self_similarity_by_init[i]) for i in self_similarity_by_init]
    header = [layer_header] + [name for name, _ in columns]
    n = len(next(iter(anisotropy_by_init.values())))
    return header, [[layer] + [round(values[layer], 4) for _, values in columns] for layer in range(n)]


def projection_rows(vectors: lab.WordVectors, sentence_header: str, label_header: str, pc_header: str):
    """One row per sentence: its label, the sentence, and its two PCA coordinates at every layer."""
    n_layers = vectors.coords.shape[0]
    header = [label_header, sentence_header] + [
        pc_header.format(layer=layer, k=k + 1) for layer in range(n_layers) for k in range(2)
    ]
    rows = [
        [label, text] + [round(float(vectors.coords[layer, i, k]), 4) for layer in range(n_layers) for k in range(2)]
        for i, (label, text) in enumerate(zip(vectors.labels, vectors.texts))
    ]
    return header, rows
