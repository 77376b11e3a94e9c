"""Sentence vectors: pooling, recall@k, the contrastive loss and loop on a tiny model, the shipped pairs, the
command line, and the page's chart builders."""

from __future__ import annotations

import copy
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest
import torch
import torch.nn.functional as F
from apptest_helpers import figure_of

from app.sentence_vectors import charts
from model.analysis.sentence_vectors import (
    batch_ids,
    embed,
    mean_pool,
    neighbours,
    pool_side,
    recall_at_k,
    wilson_interval,
)
from model.checkpoint import EMBEDDED_DIR
from model.cli import main
from model.data import sentence_index
from model.data.tatoeba import is_heldout
from model.data.translation_pairs import UNSUITABLE, load_pool, load_train, one_to_one
from model.training.contrastive import ContrastiveSettings, contrastive_loss, train_contrastive


def test_mean_pooling_ignores_padding(tiny_bundle):
    model, tokenizer = tiny_bundle.model, tiny_bundle.tokenizer
    alone = embed(model, tokenizer, ["the door"], ("mean",))["mean"][0]
    padded = embed(model, tokenizer, ["the door", "she opened the door and walked in to the cinema"], ("mean",))
    ids, mask, _ = batch_ids(tokenizer, ["the door", "she opened the door and walked in to the cinema"])
    assert mask[0].sum() < mask.shape[1]  # the first row really is padded
    torch.testing.assert_close(padded["mean"][0], alone, atol=1e-5, rtol=1e-5)
    hidden = torch.randn(1, 5, 3)
    garbage = hidden.clone()
    garbage[0, 3:] = 1e6  # whatever sits at padded positions
    mask = torch.tensor([[1, 1, 1, 0, 0]])
    torch.testing.assert_close(mean_pool(garbage, mask), hidden[0, :3].mean(0, keepdim=True))


def test_the_contrastive_loss_is_cross_entropy_over_the_similarity_matrix():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    s = 20.0 * unit(a) @ unit(b).T

    def ce(m):  # mean over rows of -log softmax at the diagonal
        return float(np.mean([np.log(np.exp(row).sum()) - row[i] for i, row in enumerate(m)]))

    expected = (ce(s) + ce(s.T)) / 2
    got = contrastive_loss(torch.tensor(a), torch.tensor(b), scale=20.0).item()
    assert got == pytest.approx(expected, rel=1e-6)
    assert contrastive_loss(torch.tensor(a), torch.tensor(a), 20.0) < contrastive_loss(torch.tensor(a), torch.tensor(b))


def brute_force_recall(queries, keys, k):
    hits = 0
    for i, q in enumerate(queries):
        cos = [float(q @ key / np.linalg.norm(q) / np.linalg.norm(key)) for key in keys]
        ranked = sorted(range(len(keys)), key=lambda j: -cos[j])
        hits += i in ranked[:k]
    return hits / len(queries)


@pytest.mark.parametrize("k", [1, 3])
def test_recall_at_k_matches_brute_force(k):
    rng = np.random.default_rng(1)
    keys = rng.normal(size=(40, 8))
    queries = keys + rng.normal(scale=1.2, size=keys.shape)  # some right, some not
    got = recall_at_k(queries, keys, k)
    assert got == pytest.approx(brute_force_recall(queries, keys, k))
    assert 0 < got < 1
    assert recall_at_k(np.ones((5, 3)), np.ones((5, 3)), 1) == 0.0  # all tied: no query finds its own key
    best = neighbours(queries[0], keys, 3)
    assert [i for i, _ in best] == sorted(range(40), key=lambda j: -(queries[0] @ keys[j] / np.linalg.norm(keys[j])))[
        :3
    ]


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert (low, high) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(0, 20)[1] > 0.1


PLANTED = [
    ("the door", "门"),
    ("a movie", "电影"),
    ("the cinema", "电影场"),
    ("she walked", "她去"),
    ("he opened it", "他开"),
    ("hello world", "你好"),
    ("paris", "北京"),
    ("an apple", "苹果"),
    ("we watch", "我们看"),
    ("they play", "他们玩"),
    ("the model", "模型"),
    ("london", "天气"),
]


def test_a_few_steps_of_contrastive_training_lower_the_loss_and_raise_recall(tiny_bundle):
    model = copy.deepcopy(tiny_bundle.model).requires_grad_(False)  # frozen, as the app's shared models are
    settings = ContrastiveSettings(
        batch_size=12, lr=3e-3, warmup_steps=1, max_seconds=None, max_steps=40, eval_every=20
    )
    seen = []
    result = train_contrastive(
        model, tiny_bundle.tokenizer, PLANTED, PLANTED, settings, on_step=lambda step, m: seen.append(step)
    )
    losses = [h["loss"] for h in result.history]
    assert result.steps == 40 and seen[0] == 0 and seen[-1] == 40
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    assert [e["step"] for e in result.evaluations] == [0, 20, 40]
    assert result.after["recall_at_1"] > result.before["recall_at_1"]
    assert not any(p.requires_grad is False for p in model.bert.parameters())  # it trained the whole encoder
    stopped = train_contrastive(
        copy.deepcopy(tiny_bundle.model), tiny_bundle.tokenizer, PLANTED, PLANTED, settings, should_stop=lambda: True
    )
    assert stopped.steps == 0 and stopped.stopped


def test_the_shipped_pairs_keep_the_pools_english_out_of_training():
    pool, train = load_pool(), load_train()
    assert 300 <= len(pool) <= 1000 and len(train) >= 2000
    assert all(is_heldout(en) for en, _ in pool)
    read = sentence_index.load(EMBEDDED_DIR)  # what the shipped model was pre-trained on
    assert not any(en in read for en, _ in pool)  # no English query is a sentence it read
    # Its Chinese side was read only where it is a sentence of Tatoeba's Chinese training split, which the embedded
    # model pre-trained on one sentence at a time, never beside the English (translation_pairs' docstring).
    chinese_read = [zh for _, zh in pool if zh in read]
    assert not chinese_read or "tatoeba-zh" in read.metadata["sources"]
    assert not any(is_heldout(zh) for zh in chinese_read)
    assert list(pool) == one_to_one(list(pool)) and list(train) == one_to_one(list(train))
    in_pool = {s for pair in pool for s in pair}
    assert not any(UNSUITABLE.search(s) for s in in_pool)
    assert not any(en in in_pool or zh in in_pool or is_heldout(en) or is_heldout(zh) for en, zh in train)
    assert len(pool_side(pool, "both")) == 2 * len(pool) and pool_side(pool, "zh")[0] == ("zh", pool[0][1])


def test_the_command_line_prints_neighbours_and_trains(capsys):
    assert (
        main(
            [
                "sentence-vectors",
                "--json",
                "--top-k",
                "2",
                "--side",
                "en",
                "My sister bakes bread every Sunday morning.",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(out["neighbours"]) >= {"cls", "mean", "minilm"}
    assert [h["lang"] for h in out["neighbours"]["mean"]] == ["en", "en"]
    assert main(["sentence-vectors", "  "]) == 2
    assert main(["sentence-vectors", "--train-seconds", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(summary["recall_at_1"]) == {"before", "after"} and summary["pool_pairs"] == len(load_pool())
    assert summary["steps"] >= 1


def validated(chart) -> dict:
    """The figure's JSON, after checking that plotly's validation accepts every property (the builders skip it)."""
    spec = json.loads(plotly.io.to_json(chart.figure, validate=False))
    again = json.loads(plotly.io.to_json(go.Figure(spec), validate=False))
    again["layout"].pop("template")
    assert again == {**spec, "layout": {k: v for k, v in spec["layout"].items() if k != "template"}}
    return spec


def test_chart_builders():
    validated(
        charts.pooling_bars(
            ["<b>x</b>", "mean"],
            [0.1, 0.2],
            [0.8, 0.4],
            [0.7, None],
            recall_title="r",
            cosine_title="c",
            recall_name="recall",
            en_name="en",
            zh_name="zh",
            title="t",
        )
    )
    validated(
        charts.recall_curve(
            [0, 15], [0.1, 0.3], [0.3, 0.6], cls_recall=None, names=("a", "b"), cls_label="c", step_title="s"
        )
    )
    bars = figure_of(
        charts.pooling_bars(
            ["cls", "mean", "minilm"],
            [0.1, 0.2, 0.05],
            [0.8, 0.4, 0.1],
            [0.7, 0.3, None],
            recall_title="r",
            cosine_title="c",
            recall_name="recall",
            en_name="en",
            zh_name="zh",
        )
    )
    assert [list(trace["y"]) for trace in bars["data"]] == [[10.0, 20.0, 5.0], [0.8, 0.4, 0.1], [0.7, 0.3, None]]
    curve = figure_of(
        charts.recall_curve(
            [0, 15, 30],
            [0.1, 0.3, 0.4],
            [0.3, 0.6, 0.7],
            cls_recall=0.08,
            names=("r1", "r5"),
            cls_label="cls",
            step_title="s",
        )
    )
    assert list(curve["data"][0]["y"]) == [10.0, 30.0, 40.0] and curve["layout"]["shapes"][0]["y0"] == 8.0
    assert charts.recall_summary([0.1, 0.4], [0, 30], "{start:.0%}-{end:.0%} in {steps}") == "10%-40% in 30"


def test_texts_batched_shortest_first_come_back_in_the_order_given(tiny_bundle):
    model, tokenizer = tiny_bundle.model, tiny_bundle.tokenizer
    texts = ["she opened the door and walked in to the cinema", "the door", "a movie in paris", "un"]
    together = embed(model, tokenizer, texts, batch=2)
    for pooling, vectors in together.items():
        for row, text in enumerate(texts):
            alone = embed(model, tokenizer, [text], (pooling,))[pooling][0]
            torch.testing.assert_close(vectors[row], alone, atol=1e-5, rtol=1e-5)


def test_mean_vectors_match_embed(tiny_bundle):
    from model.training.contrastive import mean_vectors

    texts = ["the door", "a movie in paris"]
    with torch.no_grad():
        ours = mean_vectors(tiny_bundle.model.bert, tiny_bundle.tokenizer, texts, 32)
    torch.testing.assert_close(ours, embed(tiny_bundle.model, tiny_bundle.tokenizer, texts, ("mean",))["mean"])
    assert F.cosine_similarity(ours[0], ours[1], dim=0) < 1.0
