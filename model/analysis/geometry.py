"""How the vectors of each layer are shaped (Ethayarajh 2019, "How Contextual are Contextualized Word
Representations?").

* Anisotropy: the mean cosine similarity of the vectors of random token pairs from different sentences. In an
  isotropic space it is near 0; BERT's upper layers are far from that, so any two words look alike by cosine.
* Self-similarity: the mean cosine between one word's vectors in different contexts. The lower it is, the more
  the context changes the word's vector. Ethayarajh reads it against the anisotropy (the baseline any two
  vectors reach), so both are reported per layer.
* A 2-D PCA of the word's vectors per layer, and the share of their variance the first component explains.
"""

from __future__ import annotations

import numpy as np


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def anisotropy(vectors: np.ndarray, sentence: np.ndarray, pairs: int = 2000, seed: int = 0) -> list[float]:
    """Per layer, the mean cosine of ``pairs`` random token pairs from different sentences.

    vectors: (L + 1, N, H); sentence: (N,) which sentence each token is from. The same pairs serve every layer.
    """
    sentence = np.asarray(sentence)
    if len(np.unique(sentence)) < 2:
        raise ValueError("anisotropy needs tokens from at least two sentences")
    rng = np.random.default_rng(seed)
    n = vectors.shape[1]
    first, second = [], []
    while len(first) < pairs:
        a, b = rng.integers(0, n, size=(2, pairs))
        keep = sentence[a] != sentence[b]
        first.extend(a[keep].tolist())
        second.extend(b[keep].tolist())
    first, second = np.array(first[:pairs]), np.array(second[:pairs])
    unit = _unit(vectors)
    cosines = (unit[:, first] * unit[:, second]).sum(axis=-1)  # (L + 1, pairs)
    return [round(float(c), 6) for c in cosines.mean(axis=1)]


def self_similarity(vectors: np.ndarray) -> list[float]:
    """Per layer, the mean cosine over all pairs of one word's vectors in different contexts.

    vectors: (L + 1, K, H), one row per context, K >= 2.
    """
    k = vectors.shape[1]
    if k < 2:
        raise ValueError("self-similarity needs the word in at least two contexts")
    unit = _unit(vectors)
    gram = unit @ unit.transpose(0, 2, 1)  # (L + 1, K, K)
    off_diagonal = gram.sum(axis=(1, 2)) - np.trace(gram, axis1=1, axis2=2)
    return [round(float(s), 6) for s in off_diagonal / (k * (k - 1))]


def pca_2d(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per layer, the word's vectors on their first two principal components, and the variance share of each.

    vectors: (L + 1, K, H) → coordinates (L + 1, K, 2) and explained (L + 1, 2). A component's sign is fixed so
    that its largest loading is positive, so the panels do not flip at random.
    """
    n_layers, k, _ = vectors.shape
    coords = np.zeros((n_layers, k, 2), np.float32)
    explained = np.zeros((n_layers, 2), np.float32)
    for layer in range(n_layers):
        centred = vectors[layer] - vectors[layer].mean(axis=0, keepdims=True)
        _, s, vt = np.linalg.svd(centred, full_matrices=False)
        components = vt[:2]
        signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
        components = components * signs[:, None]
        projected = centred @ components.T
        coords[layer, :, : projected.shape[1]] = projected
        total = float((s**2).sum())
        if total > 0:
            share = s[:2] ** 2 / total
            explained[layer, : len(share)] = share
    return coords, explained
