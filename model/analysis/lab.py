"""The layers lab's two experiments end to end, for the command line and the app: probing and geometry.

The expensive part is the forward pass over the sentences (``probe_features``, ``word_vectors``,
``anisotropy_by_layer``); the app caches its results per model, and the probes that follow
(``run_probes``) take a few seconds on two cores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..checkpoint import LoadedBert
from . import data, features, geometry, probing

# Defaults sized for two shared CPU cores: about 4,000 word-pieces per model for the English task.
TRAIN_SENTENCES = 100
TEST_SENTENCES = 40
CONTEXTS = 40
ANISOTROPY_SENTENCES = 40  # about 1,000 pieces: 2,000 pairs of them
ANISOTROPY_PAIRS = 2000
DEFAULT_WORDS = {"en": ("bank", "play", "light", "run"), "zh": ("行", "打", "花", "长")}


@dataclass
class ProbeFeatures:
    """A task's train and test words as one model's layers see them, with their task labels and word types."""

    task: str
    init: str
    labels: tuple[str, ...]
    train: features.LayerFeatures = field(repr=False)
    test: features.LayerFeatures = field(repr=False)
    train_y: np.ndarray = field(repr=False)
    test_y: np.ndarray = field(repr=False)
    train_types: list[str] = field(repr=False)
    test_types: list[str] = field(repr=False)

    @property
    def num_layers(self) -> int:
        """Layers with a vector: the embeddings (0) and every encoder layer."""
        return self.train.vectors.shape[0]

    @property
    def tokens(self) -> int:
        return self.train.tokens + self.test.tokens


def _labelled(sentences: list[data.TaggedSentence], feats: features.LayerFeatures, label_id: dict[str, int]):
    y = np.array([label_id[sentences[s].tags[w]] for s, w in zip(feats.sentence, feats.word)], dtype=np.int64)
    types = [sentences[s].words[w].lower() for s, w in zip(feats.sentence, feats.word)]
    return y, types


def probe_features(
    bundle: LoadedBert,
    task: str,
    init: str = "pretrained",
    *,
    train_sentences: int = TRAIN_SENTENCES,
    test_sentences: int = TEST_SENTENCES,
    seed: int = 0,
    cache_dir: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ProbeFeatures:
    """Every layer's vectors at the first piece of each word of the task's train and test sentences."""
    if train_sentences < 1 or test_sentences < 1:
        raise ValueError("train and test sentences must be at least 1 each")
    task_data = data.load_probe_data(task, cache_dir)
    train, test = data.split_sentences_for_probe(task_data, train_sentences, test_sentences, seed)
    encoder = features.encoder_for(bundle, init, seed)
    total = len(train) + len(test)

    def progress(offset: int):
        return None if on_progress is None else lambda done, _n: on_progress(offset + done, total)

    train_f = features.extract(encoder, bundle.tokenizer, [s.words for s in train], on_progress=progress(0))
    test_f = features.extract(encoder, bundle.tokenizer, [s.words for s in test], on_progress=progress(len(train)))
    label_id = {name: i for i, name in enumerate(task_data.labels)}
    train_y, train_types = _labelled(train, train_f, label_id)
    test_y, test_types = _labelled(test, test_f, label_id)
    return ProbeFeatures(task, init, task_data.labels, train_f, test_f, train_y, test_y, train_types, test_types)


@dataclass
class ProbeReport:
    """Held-out accuracy per layer, and with a control task the control accuracy and selectivity."""

    task: str
    init: str
    labels: tuple[str, ...]
    layers: list[float]
    expected_layer: float | None
    majority: float
    train_words: int
    test_words: int
    control: list[float] | None = None
    selectivity: list[float] | None = None

    def to_json(self) -> dict:
        out = {
            "task": self.task,
            "init": self.init,
            "layers": self.layers,
            "expected_layer": self.expected_layer,
            "majority_baseline": self.majority,
            "train_words": self.train_words,
            "test_words": self.test_words,
            "labels": list(self.labels),
        }
        if self.control is not None:
            out["control"] = self.control
            out["selectivity"] = self.selectivity
        return out


def run_probes(feats: ProbeFeatures, *, control: bool = False, seed: int = 0) -> ProbeReport:
    """Train the task probes (and with ``control`` the control-task probes) on every layer."""
    n = len(feats.labels)
    task = probing.train_probes(feats.train.vectors, feats.train_y, feats.test.vectors, feats.test_y, n)
    report = ProbeReport(
        feats.task,
        feats.init,
        feats.labels,
        task.accuracy,
        probing.expected_layer(task.accuracy),
        probing.majority_accuracy(feats.train_y.tolist(), feats.test_y.tolist()),
        task.train_words,
        task.test_words,
    )
    if control:
        all_y = np.concatenate([feats.train_y, feats.test_y]).tolist()
        labels = probing.control_labels(feats.train_types + feats.test_types, all_y, n, seed)
        k = len(feats.train_types)
        result = probing.train_probes(feats.train.vectors, labels[:k], feats.test.vectors, labels[k:], n)
        report.control = result.accuracy
        report.selectivity = probing.selectivity(task.accuracy, result.accuracy)
    return report


# ---------------------------------------------------------------------------------------------------------------
# Geometry
# ---------------------------------------------------------------------------------------------------------------


def anisotropy_by_layer(
    bundle: LoadedBert,
    init: str,
    language: str,
    *,
    sentences: int = ANISOTROPY_SENTENCES,
    pairs: int = ANISOTROPY_PAIRS,
    seed: int = 0,
    cache_dir: Path | None = None,
) -> list[float]:
    """Mean cosine of random word-piece pairs from different corpus sentences, per layer."""
    sample = data.random_sentences(language, sentences, cache_dir, seed)
    encoder = features.encoder_for(bundle, init, seed)
    feats = features.extract(encoder, bundle.tokenizer, [s.words for s in sample], all_pieces=True)
    return geometry.anisotropy(feats.vectors, feats.sentence, pairs, seed)


@dataclass
class WordVectors:
    """One word's vectors in several contexts, per layer, and what geometry makes of them."""

    word: str
    init: str
    texts: list[str]  # the sentences, in the order of the vectors
    labels: list[str]
    self_similarity: list[float]
    coords: np.ndarray = field(repr=False)  # (L + 1, K, 2) PCA per layer
    explained: np.ndarray = field(repr=False)  # (L + 1, 2)


def word_vectors(
    bundle: LoadedBert,
    contexts: data.WordContexts,
    init: str = "pretrained",
    *,
    seed: int = 0,
) -> WordVectors:
    """The word's first-piece vector in each of its contexts, per layer: self-similarity and a 2-D PCA."""
    encoder = features.encoder_for(bundle, init, seed)
    feats = features.extract(
        encoder, bundle.tokenizer, [s.words for s in contexts.sentences], positions=list(contexts.positions)
    )
    if feats.vectors.shape[1] < 2:
        raise ValueError(f"{contexts.word!r} fits the model's length limit in fewer than 2 sentences")
    kept = feats.sentence.tolist()
    coords, explained = geometry.pca_2d(feats.vectors)
    return WordVectors(
        contexts.word,
        init,
        [contexts.sentences[i].text for i in kept],
        [contexts.labels[i] for i in kept],
        geometry.self_similarity(feats.vectors),
        coords,
        explained,
    )
