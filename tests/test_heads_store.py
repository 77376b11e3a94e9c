"""The head lab's statistics on disk: measured once per set of weights and language, read back the same."""

from __future__ import annotations

import copy

import numpy as np
import torch

from model.analysis import heads, heads_store


def _same(a: heads.HeadStats, b: heads.HeadStats) -> bool:
    scalars = ("lang", "layers", "heads", "inputs", "stride", "tokens", "mlm_loss", "thumbnail_tokens")
    arrays = ("patterns", "pattern_share", "importance", "thumbnails")
    return (
        all(getattr(a, k) == getattr(b, k) for k in scalars)
        and all(np.array_equal(getattr(a, k), getattr(b, k)) for k in arrays)
        and a.features.keys() == b.features.keys()
        and all(np.array_equal(a.features[k], b.features[k]) for k in a.features)
    )


def test_statistics_are_measured_once_then_read_back_unchanged(tiny_bundle, tmp_path, monkeypatch):
    measured = []
    compute = heads.head_statistics
    monkeypatch.setattr(heads, "head_statistics", lambda b, lang: measured.append(lang) or compute(b, lang))
    first = heads_store.head_statistics(tiny_bundle, "zh", tmp_path)
    again = heads_store.head_statistics(tiny_bundle, "zh", tmp_path)
    assert measured == ["zh"] and heads_store.store_path(tiny_bundle, "zh", tmp_path).exists()
    assert _same(first, again) and _same(again, compute(tiny_bundle, "zh"))
    assert again.patterns.dtype == first.patterns.dtype and again.pattern_counts() == first.pattern_counts()


def test_other_weights_or_a_damaged_file_are_measured_anew(tiny_bundle, tmp_path):
    path = heads_store.store_path(tiny_bundle, "en", tmp_path)
    changed = copy.deepcopy(tiny_bundle)
    with torch.no_grad():
        changed.model.bert.encoder.layer[0].attention.self.query.weight.add_(0.5)
    assert heads_store.store_path(changed, "en", tmp_path) != path
    assert heads_store.store_path(tiny_bundle, "zh", tmp_path) != path
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a numpy archive")
    stats = heads_store.head_statistics(tiny_bundle, "en", tmp_path)
    assert _same(stats, heads.head_statistics(tiny_bundle, "en"))
    assert _same(heads_store.load(path), stats)  # and the damaged file was replaced
