"""The head lab's analyses (model/analysis/heads.py) on constructed maps, hand-computed examples and a tiny model."""

from __future__ import annotations

import copy as copy_module
import dataclasses
import json
import types

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from model.analysis import budget, heads

# ------------------------------------------------------------------------------------------- constructed maps


def _rows(T: int, fill) -> np.ndarray:
    attn = np.zeros((T, T))
    for i in range(T):
        for j, w in fill(i):  # (key, weight) pairs; a key named twice adds up
            attn[i, j] += w
    assert np.allclose(attn.sum(-1), 1)
    return attn


T = 16
TWO_SEGMENTS = [0] * 8 + [1] * 8
CLS, SEP_A, SEP_B = 0, 7, 15


@pytest.mark.parametrize(
    ("expected", "fill"),
    [
        ("vertical", lambda i: [(CLS, 0.5), (SEP_B, 0.5)]),
        ("diagonal", lambda i: [(max(i - 1, 0), 1.0)]),
        ("vertical+diagonal", lambda i: [(max(i - 1, 0), 0.5), (SEP_A, 0.5)]),
        ("block", lambda i: [(j, 1 / 8) for j in range(8 * (i // 8), 8 * (i // 8) + 8)]),
        ("heterogeneous", lambda i: [(j, 1 / T) for j in range(T)]),
    ],
)
def test_pattern_rule_on_constructed_maps(expected, fill):
    assert heads.classify_map(_rows(T, fill), TWO_SEGMENTS) == expected


def test_attention_within_the_only_segment_is_not_a_block():
    uniform = _rows(T, lambda i: [(j, 1 / T) for j in range(T)])
    assert heads.classify_map(uniform, [0] * T) == "heterogeneous"


def test_classify_maps_handles_a_whole_layer_grid_at_once():
    maps = np.stack(
        [
            _rows(T, lambda i: [(CLS, 0.5), (SEP_B, 0.5)]),
            _rows(T, lambda i: [(max(i - 1, 0), 1.0)]),
            _rows(T, lambda i: [(j, 1 / T) for j in range(T)]),
        ]
    ).reshape(1, 3, T, T)
    kinds = heads.classify_maps(maps, TWO_SEGMENTS)
    assert [heads.PATTERNS[k] for k in kinds[0]] == ["vertical", "diagonal", "heterogeneous"]


def test_map_features_on_a_hand_built_map():
    tokens = ["[CLS]", "a", ",", "b", "[SEP]"]
    previous = _rows(5, lambda i: [(max(i - 1, 0), 1.0)])  # row 0 looks at itself
    to_sep = _rows(5, lambda i: [(4, 0.5), (2, 0.5)])
    f = heads.map_features(np.stack([previous, to_sep])[None], tokens)  # (1, 2, T, T)
    assert f["prev"][0, 0] == pytest.approx(4 / 5) and f["self"][0, 0] == pytest.approx(1 / 5)
    assert f["cls"][0, 0] == pytest.approx(2 / 5)  # rows 0 and 1 attend to [CLS]
    assert f["entropy"][0, 0] == pytest.approx(0, abs=1e-9)
    assert f["sep"][0, 1] == pytest.approx(0.5) and f["punct"][0, 1] == pytest.approx(0.5)
    assert f["next"][0, 1] == pytest.approx((0.5 + 0.5) / 5)  # row 1 -> 2 and row 3 -> 4
    assert f["entropy"][0, 1] == pytest.approx(1.0)  # two equal choices: one bit


# ------------------------------------------------------------------------------- hand-computed 3-token examples


def test_rollout_of_a_hand_computed_three_token_example():
    a1 = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 1.0]])
    a2 = np.array([[0, 1, 0], [0, 1, 0], [0, 1, 0.0]])
    # A1' = [[1,0,0],[.5,.5,0],[0,0,1]], A2' = [[.5,.5,0],[0,1,0],[0,.5,.5]]; rollout = A2' A1'
    expected = np.array([[0.75, 0.25, 0], [0.5, 0.5, 0], [0.25, 0.25, 0.5]])
    np.testing.assert_allclose(heads.rollout(np.stack([a1, a2])), expected)


def test_norm_weighted_attention_of_a_hand_computed_three_token_example():
    attn = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]])
    norms = np.array([2.0, 0.5, 1.0])
    expected = np.array([[1.0, 0.25, 0.0], [0.4, 0.15, 0.5], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(heads.norm_weighted(attn, norms), expected)


def test_value_vector_norms_are_each_heads_slice_of_value_then_output(tiny_bundle):
    torch.manual_seed(1)
    config = tiny_bundle.config
    x = torch.randn(5, config.hidden_size)
    got = heads.value_vector_norms(tiny_bundle, x, 1)
    attention = tiny_bundle.model.bert.encoder.layer[1].attention
    hs = config.head_size
    v = attention.self.value(x)  # (T, H)
    for h in range(config.num_attention_heads):
        part = slice(h * hs, (h + 1) * hs)
        f = v[:, part] @ attention.output.dense.weight[:, part].T  # (T, H)
        torch.testing.assert_close(got[h], f.norm(dim=-1))


# ---------------------------------------------------------------------------------------------- tiny model

PAIRS = [
    ("she opened a door .", "he walked in ."),
    ("we watch a movie .", "the film was good ."),
    ("我去看电影", "电影很好看"),
    ("they went to paris and london .", "it is the world !"),
]


def _loss(bundle, sample, n, gate):
    k = sample.lengths[n]
    labels = sample.labels[n : n + 1, :k]
    out = bundle.model(sample.masked_ids[n : n + 1, :k], sample.types[n : n + 1, :k], head_mask=gate)
    return float(F.cross_entropy(out.mlm_logits[labels != -100], labels[labels != -100]))


def _double(bundle):
    """A float64 copy, so that a finite difference is not drowned in float32 rounding."""
    copy = dataclasses.replace(bundle, model=copy_module.deepcopy(bundle.model).double())
    return copy


def test_importance_matches_a_finite_difference_estimate(tiny_bundle):
    tiny_bundle = _double(tiny_bundle)
    sample = heads.encode_sample(tiny_bundle, PAIRS)
    importance, loss = heads.head_importance(tiny_bundle, sample)
    L, nh = importance.shape
    eps = 1e-4
    estimate = np.zeros((L, nh))
    with torch.no_grad():
        for n in range(len(PAIRS)):
            for layer in range(L):
                for head in range(nh):
                    up, down = torch.ones(L, nh, dtype=torch.float64), torch.ones(L, nh, dtype=torch.float64)
                    up[layer, head] += eps
                    down[layer, head] -= eps
                    slope = (_loss(tiny_bundle, sample, n, up) - _loss(tiny_bundle, sample, n, down)) / (2 * eps)
                    estimate[layer, head] += abs(slope)
        plain = np.mean([_loss(tiny_bundle, sample, n, None) for n in range(len(PAIRS))])
    np.testing.assert_allclose(importance, estimate, rtol=1e-4, atol=1e-9)
    assert loss == pytest.approx(plain, rel=1e-5)


def test_gradient_x_input_matches_a_finite_difference_along_each_input(tiny_bundle):
    tiny_bundle = _double(tiny_bundle)
    enc = tiny_bundle.tokenizer.encode("she opened a [MASK] .")
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    position, target = enc.ids.index(tiny_bundle.tokenizer.mask_token_id), 20
    got = heads.gradient_x_input(tiny_bundle, ids, types, position, target)
    embeddings = tiny_bundle.model.bert.embeddings.word_embeddings

    def score(j, scale):  # log p(target) with token j's embedding scaled by ``scale``
        def hook(_m, _i, out):
            out = out.clone()
            out[0, j] *= scale
            return out

        handle = embeddings.register_forward_hook(hook)
        try:
            with torch.no_grad():
                return float(tiny_bundle.model(ids, types).mlm_logits[0, position].log_softmax(-1)[target])
        finally:
            handle.remove()

    eps = 1e-4
    # d/dt score(e_j * t) at t = 1 is grad_j . e_j: gradient x input by definition
    estimate = [(score(j, 1 + eps) - score(j, 1 - eps)) / (2 * eps) for j in range(len(enc.ids))]
    np.testing.assert_allclose(got.numpy(), estimate, rtol=1e-4, atol=1e-9)


def test_gradient_x_input_is_unchanged_while_other_threads_run_the_model(tiny_bundle):
    """Pages of different sessions run one shared model in threads at once (a CI run of the head lab once broke
    when gradient × input captured its embedding with a hook on the shared model and another pass replaced it)."""
    from concurrent.futures import ThreadPoolExecutor

    texts = ["she opened a [MASK] .", "the cat sat on the [MASK] mat today .", "[MASK] ."]
    encoded = [tiny_bundle.tokenizer.encode(t) for t in texts]
    cases = [
        (torch.tensor([e.ids]), torch.tensor([e.token_type_ids]), e.ids.index(tiny_bundle.tokenizer.mask_token_id))
        for e in encoded
    ]
    alone = [heads.gradient_x_input(tiny_bundle, ids, types, p, 20) for ids, types, p in cases]

    def views(worker: int) -> list[tuple[int, torch.Tensor]]:
        picked = [(worker + n) % len(cases) for n in range(15)]
        return [(i, heads.gradient_x_input(tiny_bundle, *cases[i], 20)) for i in picked]

    def other_passes(_: int) -> None:
        with torch.no_grad():
            for n in range(60):
                tiny_bundle.model(torch.tensor([encoded[n % 3].ids]))

    with ThreadPoolExecutor(5) as pool:
        busy = [pool.submit(other_passes, n) for n in range(2)]
        runs = [pool.submit(views, w) for w in range(3)]
        results = [pair for run in runs for pair in run.result()]  # .result() raises what the thread raised
        for future in busy:
            future.result()
    assert len(results) == 45
    for i, got in results:
        torch.testing.assert_close(got, alone[i], atol=1e-6, rtol=1e-5)


def test_token_views_are_shares_and_follow_the_chosen_head(tiny_bundle):
    views = heads.token_views(tiny_bundle, "she opened a [MASK] .", None, 2, 1, 3)
    T = len(views.tokens)
    for name in ("raw", "norm", "rollout", "gradient_x_input"):
        values = getattr(views, name)
        assert values.shape == (T,) and values.min() >= 0 and values.sum() == pytest.approx(1, abs=1e-5), name
    maps = torch.stack(
        tiny_bundle.model.bert(
            torch.tensor([tiny_bundle.tokenizer.encode("she opened a [MASK] .").ids]), output_attentions=True
        ).attentions
    )
    np.testing.assert_allclose(views.raw, maps[1, 0, 3, 2].detach().numpy(), rtol=1e-6)
    assert views.mask_position == 4 and views.prediction is not None
    no_mask = heads.token_views(tiny_bundle, "she opened a door .", None, 1, 0, 0)
    assert no_mask.gradient_x_input is None and no_mask.prediction is None


def test_head_statistics_and_pruning_curve_on_the_tiny_model(tiny_bundle):
    stats = heads.head_statistics(tiny_bundle, "en")
    L, nh = 2, 4
    assert stats.stride == 1 and stats.inputs == len(heads.sample_pairs("en")) and stats.tokens > stats.inputs * 10
    for name in ("cls", "sep", "punct", "self", "prev", "next"):
        assert stats.features[name].shape == (L, nh) and (0 <= stats.features[name]).all()
        assert (stats.features[name] <= 1).all()
    assert (stats.features["cls"] + stats.features["sep"] + stats.features["punct"] <= 1 + 1e-6).all()
    assert set(stats.patterns.ravel()) <= set(heads.PATTERNS)
    counts = stats.pattern_counts()
    assert [sum(col) for col in zip(*counts.values())] == [nh] * L
    assert stats.importance.shape == (L, nh) and (stats.importance > 0).all()
    assert stats.thumbnails.shape[:2] == (L, nh) and stats.thumbnails.shape[2] == len(stats.thumbnail_tokens)

    progress = []
    curve = heads.pruning_curve(tiny_bundle, "en", stats.importance, seeds=(0, 1), on_progress=progress.append)
    assert curve.removed == [round(k * L * nh / 10) for k in range(11)]
    assert curve.by_importance[0] == curve.random_mean[0] and curve.by_importance[-1] == curve.random_mean[-1]
    assert len(curve.random_runs) == 2 and progress[-1] == pytest.approx(1.0) and progress == sorted(progress)
    order = heads.importance_order(stats.importance)
    assert stats.importance[order[0]] == stats.importance.min()
    sample = heads.encode_sample(tiny_bundle, heads.pruning_pairs("en"))
    half = heads.removal_mask(order, curve.removed[5], L, nh)
    assert curve.by_importance[5] == heads.mlm_top1(tiny_bundle, sample, half)


@pytest.mark.parametrize(
    ("layers", "hidden", "stride"), [(6, 384, 1), (2, 64, 1), (12, 768, 2), (24, 1024, 8), (24, 2048, 29)]
)
def test_a_larger_model_reads_a_share_of_the_sample_within_the_budget(layers, hidden, stride):
    config = types.SimpleNamespace(num_hidden_layers=layers, hidden_size=hidden)
    assert budget.sample_stride(config) == stride
    within = budget.SAMPLE_BUDGET * 6 * 384**2  # the embedded model's work per token, times the budget
    work = layers * hidden**2
    assert work / stride <= within  # within the budget
    assert stride == 1 or work / (stride - 1) > within  # and reading as much of the sample as the budget allows


@pytest.mark.parametrize(
    ("value", "stride"), [("1", 8), ("0.5", 16), ("", 2), ("0", 2), ("-3", 2), ("nan", 2), ("x", 2)]
)
def test_a_deployment_sets_a_smaller_budget_and_a_bad_value_keeps_the_default(monkeypatch, value, stride):
    monkeypatch.setenv("BERT_LAB_SAMPLE_BUDGET", value)
    assert budget.sample_stride(types.SimpleNamespace(num_hidden_layers=12, hidden_size=768)) == stride


def test_a_model_that_reads_every_second_pair_averages_over_those_pairs(tiny_bundle, monkeypatch):
    monkeypatch.setattr(heads, "sample_stride", lambda config: 2)
    stats = heads.head_statistics(tiny_bundle, "zh")
    pairs = heads.sample_pairs("zh")
    assert stats.stride == 2 and stats.inputs == len(pairs[::2]) == (len(pairs) + 1) // 2
    alone = heads.attention_statistics(tiny_bundle, heads.encode_sample(tiny_bundle, pairs[::2]))
    assert np.allclose(stats.features["cls"], alone[0]["cls"])


def test_heads_command_prints_one_json_object(hf_checkpoint, capsys):
    from model.cli import main

    assert main(["heads", "--model", str(hf_checkpoint[0]), "--lang", "zh", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["layers"] == 2 and obj["heads"] == 4 and obj["inputs"] == len(heads.sample_pairs("zh"))
    assert set(obj["features"]) == set(heads.FEATURES)
    assert np.array(obj["importance"]).shape == (2, 4) and np.array(obj["patterns"]).shape == (2, 4)
    assert main(["heads", "--model", str(hf_checkpoint[0]), "--lang", "fr"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
