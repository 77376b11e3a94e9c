"""Corpus search (``model.analysis.search``): the index, exact search, what the matches share, and the command.

A tiny random model keeps the index small and the builds fast; the embedded model's figures come from
``python -m model search`` and ``bench/corpus_search.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from model.analysis import search
from model.analysis.search_pool import PoolSentence, pool_sentences
from model.inference import InputError

POOL = [
    PoolSentence(
        "the cat sat on the mat .",
        ("the", "cat", "sat", "on", "the", "mat", "."),
        ("DET", "NOUN", "VERB", "ADP", "DET", "NOUN", "PUNCT"),
        "test",
    ),
    PoolSentence(
        "we like paris and london",
        ("we", "like", "paris", "and", "london"),
        ("PRON", "VERB", "PROPN", "CCONJ", "PROPN"),
        "test",
    ),
    PoolSentence("you went to the bank", ("you", "went", "to", "the", "bank"), ("", "", "", "", ""), "untagged"),
    PoolSentence("我 去 北京 看 电影", ("我", "去", "北京", "看", "电影"), ("r", "v", "n", "v", "n"), "test"),
    PoolSentence(
        "they said the model was good",
        ("they", "said", "the", "model", "was", "good"),
        ("PRON", "VERB", "DET", "NOUN", "AUX", "ADJ"),
        "test",
    ),
]
PLANTED = PoolSentence(
    "bert read the book in london",
    ("bert", "read", "the", "book", "in", "london"),
    ("PROPN", "VERB", "DET", "NOUN", "ADP", "PROPN"),
    "planted",
)


@pytest.fixture(scope="module")
def index(tiny_bundle, tmp_path_factory):
    pool = POOL * 4 + [PLANTED] + POOL * 3  # repeats: many equal candidates, as a real corpus has
    folder = tmp_path_factory.mktemp("search") / "index"
    return search.build_index(tiny_bundle, "en", folder, pool=pool)


def brute_force(index, query, metric):
    vectors = np.asarray(index.vectors, np.float64)  # (L + 1, N, H)
    scores = np.einsum("lnh,lh->ln", vectors, np.asarray(query, np.float64))
    if metric == "cosine":
        scores /= np.linalg.norm(vectors, axis=-1) * np.linalg.norm(query, axis=-1)[:, None]
    return scores


@pytest.mark.parametrize("metric", search.METRICS)
def test_search_equals_brute_force_numpy(index, tiny_bundle, metric):
    query = search.query_tokens(tiny_bundle, "we like the cat")
    rng = np.random.default_rng(0)
    for vector in [query.vectors[:, 1], query.vectors[:, 3], rng.normal(size=query.vectors[:, 0].shape)]:
        found = search.search(index, vector, metric, k=10)
        expected = brute_force(index, vector, metric)
        for layer in range(index.layers):
            best = np.sort(expected[layer])[::-1][:10]
            # the same scores, best first (equal scores may come in either order, so compare scores, not indices)
            assert found.score[layer] == pytest.approx(best, rel=1e-4, abs=1e-4)
            assert expected[layer][found.index[layer]] == pytest.approx(best, rel=1e-4, abs=1e-4)


def test_leaving_out_a_sentence_or_untagged_tokens(index, tiny_bundle):
    query = search.query_tokens(tiny_bundle, "you went to the bank").vectors[:, 4]
    found = search.search(index, query, "cosine", k=20, tagged_only=True)
    assert (index.tag[found.index] >= 0).all()
    first = int(index.sentence[search.search(index, query, "cosine", k=1).index[-1, 0]])
    left_out = search.search(index, query, "cosine", k=20, exclude_sentence=first)
    assert (index.sentence[left_out.index] != first).all()


def test_a_planted_duplicate_sentence_is_found_first(index, tiny_bundle):
    query = search.query_tokens(tiny_bundle, PLANTED.text)
    assert index.meta["sources"]["planted"] == 1
    where = next(i for i, s in enumerate(index.sentences) if s["source"] == "planted")
    elsewhere = {token for s in index.sentences if s["source"] != "planted" for token in s["tokens"]}
    unique = [p for p, token in enumerate(query.tokens) if token not in elsewhere]
    assert len(unique) >= 3  # bert, read, book ... are in no other sentence
    for position in unique:
        found = search.search(index, query.vectors[:, position], "cosine", k=3)
        for layer in range(index.layers):
            best = int(found.index[layer, 0])
            assert (int(index.sentence[best]), int(index.position[best])) == (where, position)
            assert found.score[layer, 0] == pytest.approx(1.0, abs=2e-3)
            assert found.score[layer, 1] < found.score[layer, 0]


def test_the_stored_vectors_are_the_models_own_in_float16(index, tiny_bundle):
    assert index.vectors.dtype == np.float16 and index.vectors.shape[0] == tiny_bundle.config.num_hidden_layers + 1
    assert index.meta["tokens"] == len(index) == len(index.sentence) == len(index.tag)
    assert index.meta["tagged_tokens"] == int((index.tag >= 0).sum()) < len(index)
    assert {index.tags[t] for t in index.tag if t >= 0} <= {t for s in [*POOL, PLANTED] for t in s.tags if t}
    query = search.query_tokens(tiny_bundle, PLANTED.text)
    where = next(i for i, s in enumerate(index.sentences) if s["source"] == "planted")
    rows = np.flatnonzero(index.sentence == where)
    assert index.position[rows].tolist() == list(range(len(query.tokens)))
    np.testing.assert_allclose(index.vectors[:, rows].astype(np.float32), query.vectors, atol=2e-3, rtol=2e-3)
    np.testing.assert_allclose(index.norms[:, rows], np.linalg.norm(query.vectors, axis=-1), rtol=2e-3)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_real_pool_is_built_once_then_read_from_disk(tiny_bundle, tmp_path, language):
    heard = []
    built = search.load_or_build(tiny_bundle, language, tmp_path, on_progress=lambda done, total: heard.append(done))
    assert heard and heard[-1] == built.meta["sentences"]
    assert search.is_built(tiny_bundle, language, tmp_path)
    # up to 50,000 tokens: the pool's sentences are taken until the next would not fit (a sentence is < 512)
    pool = pool_sentences(language)
    assert built.meta["tokens"] <= search.POOL_TOKENS
    assert built.meta["sentences"] == len(pool) or built.meta["tokens"] > search.POOL_TOKENS - 512
    # held-out text only: the tagged part is the layers lab's held-out probe sentences, the rest the modern sample
    sources = built.meta["sources"]
    assert set(sources) - {"brown", "peoples-daily"} <= {
        "tatoeba-en",
        "tatoeba-zh",
        "sotu",
        "email-en",
        "libreoffice-help-en",
        "libreoffice-help-zh",
    }
    assert len(sources) >= 3
    texts = {s.text for s in pool_sentences(language)}
    assert all(s["text"] in texts for s in built.sentences)
    again = search.load_or_build(tiny_bundle, language, tmp_path, on_progress=lambda done, total: heard.append(-1))
    assert -1 not in heard and again.meta == built.meta and np.array_equal(again.vectors, built.vectors)


def test_each_set_of_weights_has_its_own_index(tiny_bundle, tmp_path):
    import copy

    import torch

    tuned = copy.deepcopy(tiny_bundle)
    with torch.no_grad():
        for p in tuned.model.parameters():
            p.add_(0.01)
    assert search.weights_fingerprint(tuned) != search.weights_fingerprint(tiny_bundle)
    assert search.weights_fingerprint(copy.deepcopy(tiny_bundle)) == search.weights_fingerprint(tiny_bundle)
    assert search.index_folder(tuned, "en", tmp_path) != search.index_folder(tiny_bundle, "en", tmp_path)


def test_a_wider_model_indexes_fewer_tokens_within_the_byte_limit(tiny_bundle):
    from dataclasses import replace

    from model.modeling import BertConfig

    for layers, hidden in [(6, 384), (12, 768), (24, 1024)]:
        config = replace(
            BertConfig.from_dict(tiny_bundle.config.to_dict()), num_hidden_layers=layers, hidden_size=hidden
        )
        fake = type("Bundle", (), {"config": config})()
        budget = search.token_budget(fake)
        assert budget * (layers + 1) * hidden * 2 <= search.MAX_INDEX_BYTES
        assert budget == min(search.POOL_TOKENS, search.MAX_INDEX_BYTES // ((layers + 1) * hidden * 2))


def test_what_the_matches_share(index, tiny_bundle):
    query = search.query_tokens(tiny_bundle, PLANTED.text)
    position = query.tokens.index("london")
    found = search.search(index, query.vectors[:, position], "cosine", k=5)
    token_id = tiny_bundle.tokenizer.token_to_id("london")
    summary = search.summarise(index, found, token_id, position, "PROPN")
    for layer, s in enumerate(summary):
        rows = found.index[layer]
        assert s.same_token == pytest.approx(float(np.mean(index.token_id[rows] == token_id)))
        assert s.same_position == pytest.approx(float(np.mean(index.position[rows] == position)))
        tagged = [index.tags[t] for t in index.tag[rows] if t >= 0]
        assert s.tagged == len(tagged) and sum(s.tags.values()) == pytest.approx(1.0)
        assert s.same_tag == pytest.approx(tagged.count("PROPN") / len(tagged))
        assert list(s.tags.values()) == sorted(s.tags.values(), reverse=True)
    rows = search.match_rows(index, found, 0)
    assert rows[0]["token"] == "london" and rows[0]["text"] == PLANTED.text and rows[0]["tag"] == "PROPN"


def test_pos_agreement_is_the_mean_share_of_neighbours_with_the_querys_tag(index):
    agreement = index.meta["agreement"]
    assert len(agreement) == index.layers and all(0.0 <= a <= 1.0 for a in agreement)
    # with every tagged token as a query, by hand: its nearest tagged tokens outside its sentence, their tags
    tagged = np.flatnonzero(index.tag >= 0)
    shares = []
    for i in tagged:
        found = search.search(
            index,
            index.vectors[:, i].astype(np.float32),
            "cosine",
            exclude_sentence=int(index.sentence[i]),
            tagged_only=True,
        )
        shares.append((index.tag[found.index] == index.tag[i]).mean(axis=1))
    expected = np.mean(shares, axis=0)
    assert search.pos_agreement(index, queries=len(tagged)) == pytest.approx(expected.tolist(), abs=1e-4)
    untagged = type(index)(**{**index.__dict__, "tag": np.full_like(index.tag, -1)})
    assert search.pos_agreement(untagged) is None


def test_hostile_queries(index, tiny_bundle):
    query = search.query_tokens(tiny_bundle, "we like paris")
    for bad in (-1, len(query.tokens), 10**9):
        with pytest.raises(search.SearchError) as caught:
            search.check_token(query, bad)
        assert caught.value.code == "no_such_token"
    for empty in ("", "   \n "):
        with pytest.raises(InputError):
            search.query_tokens(tiny_bundle, empty)
    with pytest.raises(search.SearchError):
        search.search(index, query.vectors[:, 0], "euclid")
    with pytest.raises(search.SearchError):
        search.search(index, query.vectors[:1, 0], "cosine")  # a query of another model's shape
    long = search.query_tokens(tiny_bundle, "the cinema was dark " * 250)  # 5,000 characters
    assert len(long.tokens) == tiny_bundle.config.max_position_embeddings - 2  # cut to the model's length
    found = search.search(index, long.vectors[:, len(long.tokens) - 1], "dot")
    assert found.index.shape == (index.layers, search.TOP_K)


def test_the_command_prints_matches_and_refuses_bad_input(hf_checkpoint, tmp_path):
    env = os.environ | {"BERT_LAB_CACHE": str(tmp_path)}
    folder = str(hf_checkpoint[0])
    cmd = [sys.executable, "-m", "model", "search", "--model", folder, "--lang", "en", "--layer", "1", "--json"]
    done = subprocess.run([*cmd, "we paris london", "1"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["token"] == "paris" and out["layer"] == 1 and len(out["matches"]) == search.TOP_K
    assert all({"score", "token", "text", "tag", "position"} <= set(m) for m in out["matches"])
    scores = [m["score"] for m in out["matches"]]
    assert scores == sorted(scores, reverse=True)
    assert len(out["summary_by_layer"]) == 3 and len(out["pos_agreement_by_layer"]) == 3
    for args, says in [(["we paris london", "9"], "no token 9"), (["", "0"], "empty"), (["we", "-1"], "no token -1")]:
        bad = subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, timeout=600)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr and says in bad.stderr
    layer = subprocess.run([*cmd[:-3], "--layer", "7", "we paris", "0"], capture_output=True, text=True, env=env)
    assert layer.returncode == 2 and "layers 0-2" in layer.stderr
