"""Results kept on disk (model/analysis/result_store.py): computed once however many ask at the same moment."""

from __future__ import annotations

import json
import threading
import time

from model.analysis.result_store import stored_json


def test_two_askers_at_once_compute_once_and_both_read_the_result(tmp_path):
    path = tmp_path / "probes" / "question-code-weights.json"
    computed, answers = [], []
    start = threading.Barrier(2)

    def compute():
        computed.append(threading.get_ident())
        time.sleep(0.5)  # the other asker arrives while this one computes
        return {"answer": 42}

    def ask():
        start.wait()
        answers.append(stored_json(path, compute))

    askers = [threading.Thread(target=ask) for _ in range(2)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    assert len(computed) == 1 and answers == [{"answer": 42}] * 2
    assert json.loads(path.read_text(encoding="utf-8")) == {"answer": 42}
    assert stored_json(path, lambda: {"answer": 0}) == {"answer": 42}  # read back, not computed


def test_an_unwritable_cache_computes_each_time(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the store's folder would be")
    computed = []
    for _ in range(2):
        assert stored_json(blocked / "probes" / "q.json", lambda: computed.append(1) or {"n": len(computed)})
    assert computed == [1, 1]


def test_the_pools_vectors_are_measured_once_per_set_of_weights_then_read_back(tiny_bundle, tmp_path, monkeypatch):
    import numpy as np

    from model.analysis import sentence_vectors
    from model.data.translation_pairs import load_pool

    measured = []
    compute = sentence_vectors.pool_vectors
    monkeypatch.setattr(sentence_vectors, "pool_vectors", lambda *a, **k: measured.append(1) or compute(*a, **k))
    first = sentence_vectors.stored_pool_vectors(tiny_bundle, 7, cache_dir=tmp_path)
    again = sentence_vectors.stored_pool_vectors(tiny_bundle, 7, cache_dir=tmp_path)
    assert measured == [1] and set(first) == set(again) == set(sentence_vectors.POOLINGS)
    for pooling, vectors in first.items():
        assert np.array_equal(vectors.en, again[pooling].en) and np.array_equal(vectors.zh, again[pooling].zh)
        assert vectors.en.shape[0] == vectors.zh.shape[0] == len(load_pool(7))


def test_the_layers_labs_anisotropy_is_measured_once_per_set_of_weights(tmp_path, monkeypatch):
    from app.layers import logic
    from model.analysis import lab

    monkeypatch.setenv("BERT_LAB_CACHE", str(tmp_path))
    measured = []
    monkeypatch.setattr(lab, "anisotropy_by_layer", lambda bundle, init, language: measured.append(init) or [0.25, 0.5])
    logic.anisotropy.clear()
    assert logic.anisotropy("embedded", "random", "en") == [0.25, 0.5]
    logic.anisotropy.clear()  # a new server: its memory cache is empty, the disk is not
    assert logic.anisotropy("embedded", "random", "en") == [0.25, 0.5]
    assert measured == ["random"] and list((tmp_path / "anisotropy").glob("random-en-*.json"))
    logic.anisotropy.clear()
