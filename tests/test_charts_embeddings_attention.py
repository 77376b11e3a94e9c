"""Chart builders and logic of the embeddings and attention pages, without Streamlit."""

from __future__ import annotations

import html

import numpy as np
import pytest

from app import embedding_logic as logic
from app.attention_stats import STATISTICS, head_statistics
from app.charts import attention as attention_charts
from app.charts import embeddings as embedding_charts

HOSTILE = ["[CLS]", "</script><script>alert(1)</script>", "**bold**", "<b>x</b>", "the", "the", "[SEP]"]


def random_parts(T: int = 7, H: int = 16, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    token, segment, position = (rng.normal(size=(T, H)).astype(np.float32) for _ in range(3))
    total = token + segment + position
    normalized = (total - total.mean(axis=1, keepdims=True)) / total.std(axis=1, keepdims=True)
    return {"token": token, "segment": segment, "position": position, "sum": total, "normalized": normalized}


# --- embeddings: logic -------------------------------------------------------------------------------


def test_token_view_shows_an_exact_sum_and_the_norms():
    parts = random_parts()
    view = logic.token_view(parts, 2)
    assert view.max_sum_error < 1e-6
    assert np.allclose(view.recomposed, parts["sum"][2], atol=1e-6)
    assert view.norms["normalized"] == pytest.approx(np.sqrt(16), rel=1e-4)  # mean 0, variance 1
    assert set(view.vectors) == set(logic.PARTS)


def test_token_view_of_a_real_model(tiny_bundle):
    from model.inference import embedding_parts

    result = embedding_parts(tiny_bundle, "我去看电影", "电影很好看")
    parts = logic.parts_of(result)
    for index in range(len(result.tokens)):
        assert logic.token_view(parts, index).max_sum_error < 1e-5
    rows = logic.input_table(result.tokens, result.token_type_ids)
    assert rows[0] == {"position": 0, "token": "[CLS]", "segment": "A", "segment_id": 0}
    assert rows[-1]["segment"] == "B" and rows[-1]["token"] == "[SEP]"


def test_position_table_and_cosine_similarity(tiny_bundle):
    table = logic.position_table(tiny_bundle.model)
    weight = tiny_bundle.model.bert.embeddings.position_embeddings.weight.detach().numpy()
    assert table.shape == (64, 32)  # the tiny model has 64 positions, fewer than the 128 shown at most
    assert np.allclose(table, weight)
    assert logic.position_table(tiny_bundle.model, limit=10).shape == (10, 32)
    sim = logic.cosine_similarity(table)
    assert sim.shape == (64, 64) and np.allclose(np.diag(sim), 1.0) and np.allclose(sim, sim.T)
    assert np.all(np.abs(sim) <= 1 + 1e-9)


def test_cosine_similarity_of_a_zero_row_is_zero():
    sim = logic.cosine_similarity(np.array([[1.0, 0.0], [0.0, 0.0], [2.0, 0.0]]))
    assert not np.isnan(sim).any()
    assert sim[0, 2] == pytest.approx(1.0) and sim[1].tolist() == [0.0, 0.0, 0.0]


def test_downloads_hold_every_dimension_and_respect_the_limit():
    parts = random_parts(T=5, H=4)
    tokens, types = ["[CLS]", "a", "[SEP]", "b", "[SEP]"], [0, 0, 0, 1, 1]
    header, rows = logic.download_rows(parts, tokens, types)
    assert header == ["part", "position", "token", "segment", "d0", "d1", "d2", "d3"]
    assert len(rows) == 5 * 5 and rows[0][:4] == ["token", 0, "[CLS]", 0]
    assert rows[-1][:4] == ["normalized", 4, "[SEP]", 1]
    assert rows[0][4] == pytest.approx(float(parts["token"][0, 0]), abs=1e-6)
    header, rows = logic.download_rows(parts, tokens, types, limit=2)
    assert len(rows) == 5 * 2
    data = logic.download_json(parts, tokens, types, limit=3)
    assert data["tokens"] == tokens[:3] and np.array(data["sum"]).shape == (3, 4)
    header, rows = logic.similarity_rows(np.eye(3))
    assert header == ["position", "0", "1", "2"] and rows[1] == [1, 0.0, 1.0, 0.0]


# --- embeddings: charts ------------------------------------------------------------------------------


def test_part_heatmap_shows_the_first_dims_on_a_symmetric_scale():
    parts = random_parts(T=len(HOSTILE), H=16)
    trace = embedding_charts.part_heatmap(parts["position"], HOSTILE, 8, title="Position").data[0]
    assert np.array_equal(trace.z, parts["position"][:, :8])
    assert trace.zmin == -trace.zmax and trace.zmax == pytest.approx(np.abs(parts["position"][:, :8]).max())
    assert list(trace.x) == [str(i) for i in range(8)]
    assert (
        trace.y[1] == html.escape(HOSTILE[1], quote=False) and trace.y[3] == "&lt;b&gt;x&lt;/b&gt;"
    )  # drawn literally
    assert trace.y[4] != trace.y[5]  # repeated tokens stay separate rows
    fig = embedding_charts.part_heatmap(np.zeros((2, 4)), ["a", "b"], 99, title="zero")
    assert fig.data[0].zmax == 1.0 and np.shape(fig.data[0].z) == (2, 4)  # all zero: still a valid scale


def test_a_long_token_axis_is_numbered_and_a_dimension_axis_is_not():
    tokens = ["[CLS]"] + ["the", "dog"] * 40 + ["[SEP]"]
    trace = embedding_charts.part_heatmap(np.zeros((len(tokens), 64)), tokens, 64, title="long").data[0]
    assert list(trace.y[:3]) == ["0 · [CLS]", "1 · the", "2 · dog"] and trace.y[-1] == f"{len(tokens) - 1} · [SEP]"
    assert list(trace.x) == [str(i) for i in range(64)]
    short = embedding_charts.part_heatmap(np.zeros((3, 4)), ["[CLS]", "the", "[SEP]"], 4, title="short").data[0]
    assert list(short.y) == ["[CLS]", "the", "[SEP]"]


def test_token_vectors_draws_the_recomposed_sum_over_the_sum():
    parts = random_parts()
    view = logic.token_view(parts, 1)
    labels = {name: name.title() for name in logic.PARTS}
    fig = embedding_charts.token_vectors(
        view.vectors, view.recomposed, 10, labels=labels, recomposed_label="t+s+p", titles=("parts", "LN")
    )
    names = [trace.name for trace in fig.data]
    assert names == ["Token", "Segment", "Position", "Sum", "t+s+p", "Normalized"]
    assert len(fig.data[0].x) == 10
    assert np.allclose(fig.data[3].y, fig.data[4].y, atol=1e-6)
    assert fig.data[4].line.dash == "dot"


def test_norm_bars_and_position_similarity():
    norms = {"token": 1.0, "segment": 0.5, "position": 0.5, "sum": 1.2, "normalized": 4.0}
    fig = embedding_charts.norm_bars(norms, {n: n for n in norms}, title="norms")
    assert list(fig.data[0].x) == list(norms.values())
    fig = embedding_charts.position_similarity(np.eye(5), title="sim", axis_label="position")
    assert fig.data[0].zmin == -1 and fig.data[0].zmax == 1
    similarity = np.random.default_rng(0).uniform(-1, 1, (6, 6))
    sent = embedding_charts.position_similarity(similarity, title="sim", axis_label="position").data[0]
    # Sent in single precision (half the bytes of a 512 x 512 matrix), ample for three decimals in the hover.
    assert "%{z:.3f}" in sent.hovertemplate
    assert sent.z.dtype == np.float32 and np.allclose(sent.z, similarity, atol=1e-6)
    assert fig.layout.yaxis.autorange == "reversed"


# --- attention: charts -------------------------------------------------------------------------------


def test_paired_maps_share_one_colour_scale_and_keep_tokens_literal():
    T = len(HOSTILE)
    left = np.full((T, T), 1 / T)
    right = np.tril(np.ones((T, T)))
    right /= right.sum(axis=1, keepdims=True)
    a, b = attention_charts.paired_maps(left, right, HOSTILE, titles=("BERT", "GPT"))
    # The causal first row (1.0 by construction) does not count; the causal second row's 0.5 is the maximum.
    assert a.data[0].zmax == b.data[0].zmax == 0.5 and a.data[0].zmin == 0.0
    assert a.layout.title.text == "BERT" and b.layout.title.text == "GPT"
    assert list(a.data[0].x)[1] == html.escape(HOSTILE[1], quote=False) and list(a.data[0].y)[2] == "**bold**"
    assert a.layout.height <= attention_charts.MAX_MAP_HEIGHT
    # The weights go out in single precision: half the bytes of a 512-token map, and more than the hover's three.
    assert a.data[0].z.dtype == np.float32 and np.allclose(a.data[0].z, left, atol=1e-7)


def test_long_maps_stay_a_bounded_height():
    tokens = [f"t{i}" for i in range(300)]
    fig = attention_charts.attention_map(np.zeros((300, 300)), tokens, title="long", zmax=1.0)
    assert fig.layout.height == attention_charts.MAX_MAP_HEIGHT


def test_statistics_grid_has_a_panel_per_statistic_and_rings_the_selected_head():
    rng = np.random.default_rng(0)
    scores = rng.random((3, 4, 6, 6))
    attn = scores / scores.sum(axis=-1, keepdims=True)
    stats = head_statistics(attn, [True, False, False, False, False, True])
    titles = {name: f"title {name}" for name in STATISTICS}
    fig = attention_charts.statistics_grid(stats, titles, selected=(2, 1), selected_label="here")
    heatmaps = [trace for trace in fig.data if trace.type == "heatmap"]
    rings = [trace for trace in fig.data if trace.type == "scatter"]
    assert len(heatmaps) == len(STATISTICS) and len(rings) == len(STATISTICS)
    assert all(list(r.x) == [1] and list(r.y) == [2] for r in rings)
    assert [a.text for a in fig.layout.annotations] == [  # shares are written as percentages
        title if name == "entropy" else f"{title} (%)" for name, title in titles.items()
    ]
    assert heatmaps[1].zmax == 1.0 and heatmaps[0].zmax == pytest.approx(stats["entropy"].max())
    share = list(titles)[1]
    assert heatmaps[1].text[2][1] == f"{100 * stats[share][2, 1]:.0f}"  # a whole percentage fits a narrow cell
    assert heatmaps[0].text[2][1] == f"{stats['entropy'][2, 1]:.1f}"
    assert list(fig.layout.xaxis.range) == [-0.5, 3.5] and list(fig.layout.yaxis.range) == [2.5, -0.5]
    plain = attention_charts.statistics_grid(stats, titles)
    assert all(trace.type == "heatmap" for trace in plain.data)


def test_bertviz_height_grows_with_tokens_and_layers():
    head_small = attention_charts.bertviz_height("head", 10, 1, 12)
    assert attention_charts.bertviz_height("head", 40, 1, 12) > head_small >= 10 * 22.5
    model_one = attention_charts.bertviz_height("model", 20, 1, 12)
    model_six = attention_charts.bertviz_height("model", 20, 6, 12)
    assert model_six > model_one >= 20 * 18
