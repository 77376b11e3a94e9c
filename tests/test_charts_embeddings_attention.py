"""Chart builders and logic of the embeddings and attention pages, without Streamlit."""

from __future__ import annotations

import html

import numpy as np
import pytest
from apptest_helpers import figure_of, heatmap_matrix, labels, panel_titles, traces

from app.attention import charts as attention_charts
from app.core import shared_charts
from app.core.attention_stats import STATISTICS, head_statistics
from app.core.palette import BLACK, DIVERGING, SCALE_STOPS, VERMILLION
from app.embeddings import charts as embedding_charts
from app.embeddings import logic

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


def drawn(chart) -> np.ndarray:
    """A heatmap chart's matrix as it draws it."""
    return heatmap_matrix(figure_of(chart))


def heatmap_trace(chart) -> dict:
    (trace,) = traces(figure_of(chart), "heatmap")
    return trace


def test_part_heatmap_shows_the_first_dims_on_a_symmetric_scale():
    parts = random_parts(T=len(HOSTILE), H=16)
    chart = embedding_charts.part_heatmap(parts["position"], HOSTILE, 8, title="Position")
    trace = heatmap_trace(chart)
    assert np.allclose(drawn(chart), parts["position"][:, :8], atol=1e-6)
    assert trace["zmin"] == -trace["zmax"] and trace["zmax"] == pytest.approx(np.abs(parts["position"][:, :8]).max())
    assert [colour for _, colour in trace["colorscale"]] == list(SCALE_STOPS[DIVERGING])
    assert trace["x"] == [str(i) for i in range(8)]
    rows = trace["y"]
    # Plotly renders tags: what the reader typed is escaped, and reads as typed once drawn.
    assert labels(rows)[1] == HOSTILE[1] and rows[3] == "&lt;b&gt;x&lt;/b&gt;"
    assert rows[4] != rows[5] and rows[4].rstrip("\u200b") == rows[5].rstrip("\u200b")  # repeated tokens: own rows
    zero = embedding_charts.part_heatmap(np.zeros((2, 4)), ["a", "b"], 99, title="zero")
    assert heatmap_trace(zero)["zmax"] == 1.0 and drawn(zero).shape == (2, 4)  # all zero: still a valid scale


def test_a_long_token_axis_is_numbered_and_a_dimension_axis_is_not():
    tokens = ["[CLS]"] + ["the", "dog"] * 40 + ["[SEP]"]
    trace = heatmap_trace(embedding_charts.part_heatmap(np.zeros((len(tokens), 64)), tokens, 64, title="long"))
    rows = trace["y"]
    assert rows[:3] == ["0 · [CLS]", "1 · the", "2 · dog"] and rows[-1] == f"{len(tokens) - 1} · [SEP]"
    assert trace["x"] == [str(i) for i in range(64)]
    short = heatmap_trace(embedding_charts.part_heatmap(np.zeros((3, 4)), ["[CLS]", "the", "[SEP]"], 4, title="s"))
    assert short["y"] == ["[CLS]", "the", "[SEP]"]


def test_token_vectors_draws_the_recomposed_sum_over_the_sum():
    parts = random_parts()
    view = logic.token_view(parts, 1)
    names = {name: name.title() for name in logic.PARTS}
    figure = figure_of(
        embedding_charts.token_vectors(
            view.vectors, view.recomposed, 10, labels=names, recomposed_label="t+s+p", titles=("parts", "LN")
        )
    )
    lines = figure["data"]
    assert [s["name"] for s in lines] == ["Token", "Segment", "Position", "Sum", "t+s+p", "Normalized"]
    assert [s["yaxis"] for s in lines] == ["y"] * 5 + ["y2"]  # LayerNorm's output in a panel of its own
    assert list(lines[0]["x"]) == list(range(10))
    assert np.allclose(lines[0]["y"], view.vectors["token"][:10], atol=1e-6)
    assert np.allclose(lines[3]["y"], lines[4]["y"], atol=1e-4)
    assert lines[4]["line"]["dash"] == "dot" and lines[3]["line"]["dash"] == "solid"
    assert [s["line"]["color"] for s in lines] == [
        embedding_charts.PART_COLORS[n] for n in ("token", "segment", "position", "sum")
    ] + [BLACK, embedding_charts.PART_COLORS["normalized"]]
    assert panel_titles(figure) == ["parts", "LN"]
    assert figure["layout"]["hovermode"] == "x unified"  # one hover lists every line at the dimension
    assert figure["layout"]["xaxis"]["matches"] == "x2"  # both panels on the same dimensions


def test_norm_bars_and_position_similarity():
    norms = {"token": 1.0, "segment": 0.5, "position": 0.5, "sum": 1.2, "normalized": 4.0}
    figure = figure_of(embedding_charts.norm_bars(norms, {n: n.upper() for n in norms}, title="norms"))
    [bars] = figure["data"]
    assert list(bars["x"]) == list(norms.values())
    assert bars["y"] == [n.upper() for n in norms] and figure["layout"]["yaxis"]["autorange"] == "reversed"
    assert bars["marker"]["color"] == [embedding_charts.PART_COLORS[n] for n in norms]
    assert bars["text"] == ["1.00", "0.50", "0.50", "1.20", "4.00"]
    chart = embedding_charts.position_similarity(np.eye(5), title="sim", axis_label="position")
    assert (heatmap_trace(chart)["zmin"], heatmap_trace(chart)["zmax"]) == (-1, 1)
    similarity = np.random.default_rng(0).uniform(-1, 1, (6, 6))
    sent = embedding_charts.position_similarity(similarity, title="sim", axis_label="position")
    # Sent as float32: a 512 x 512 matrix is 262,144 numbers, and the hover reads three decimals.
    assert np.allclose(drawn(sent), similarity, atol=1e-6) and heatmap_trace(sent)["z"].dtype == np.float32
    layout = figure_of(sent)["layout"]
    assert layout["yaxis"]["autorange"] == "reversed" and heatmap_trace(sent)["y"] == [str(i) for i in range(6)]
    assert layout["xaxis"]["title"]["text"] == layout["yaxis"]["title"]["text"] == "position"
    assert layout["yaxis"]["scaleanchor"] == "x"  # square cells


# --- attention: charts -------------------------------------------------------------------------------


def test_paired_maps_share_one_colour_scale_and_escape_tokens():
    T = len(HOSTILE)
    left = np.full((T, T), 1 / T)
    right = np.tril(np.ones((T, T)))
    right /= right.sum(axis=1, keepdims=True)
    a, b = shared_charts.paired_maps(left, right, HOSTILE, titles=("BERT", "GPT"))
    # The causal first row (1.0 by construction) does not count; the causal second row's 0.5 is the maximum.
    assert heatmap_trace(a)["zmax"] == heatmap_trace(b)["zmax"] == 0.5 and heatmap_trace(a)["zmin"] == 0
    assert a.title == "BERT" and b.title == "GPT"
    trace = heatmap_trace(a)
    assert html.unescape(trace["x"][1]) == HOSTILE[1] and "<" not in trace["x"][1] and trace["y"][2] == "**bold**"
    assert figure_of(a)["layout"]["xaxis"]["side"] == "top"  # keys read along the top
    assert a.height <= shared_charts.MAX_MAP_HEIGHT
    assert np.allclose(drawn(a), left, atol=1e-6) and np.allclose(drawn(b), right, atol=1e-6)


def test_long_maps_stay_a_bounded_height_and_zoom():
    tokens = [f"t{i}" for i in range(300)]
    chart = shared_charts.attention_map(np.zeros((300, 300)), tokens, title="long", zmax=1.0)
    assert chart.height == shared_charts.MAX_MAP_HEIGHT
    assert figure_of(chart)["layout"]["dragmode"] == "zoom"  # 300 rows in 900 px: zoom in to read them


def test_statistics_grid_has_a_panel_per_statistic_and_rings_the_selected_head():
    rng = np.random.default_rng(0)
    scores = rng.random((3, 4, 6, 6))
    attn = scores / scores.sum(axis=-1, keepdims=True)
    stats = head_statistics(attn, [True, False, False, False, False, True])
    titles = {name: f"title {name}" for name in STATISTICS}
    figure = figure_of(shared_charts.statistics_grid(stats, titles, selected=(2, 1), selected_label="here"))
    heatmaps = traces(figure, "heatmap")
    axes = sorted(key for key in figure["layout"] if key.startswith("xaxis"))
    assert len(heatmaps) == len(STATISTICS) == len(axes)
    assert len({(h["xaxis"], h["yaxis"]) for h in heatmaps}) == len(STATISTICS)  # a panel each
    rings = traces(figure, "scatter")
    assert [(ring["x"], ring["y"]) for ring in rings] == [([1], [2])] * len(STATISTICS)  # head 1 of layer 2
    assert [(ring["xaxis"], ring["yaxis"]) for ring in rings] == [(h["xaxis"], h["yaxis"]) for h in heatmaps]
    assert {ring["marker"]["color"] for ring in rings} == {VERMILLION} and {r["name"] for r in rings} == {"here"}
    assert [ring.get("showlegend", True) for ring in rings] == [True] + [False] * (len(STATISTICS) - 1)
    assert figure["layout"]["showlegend"] is True
    assert panel_titles(figure) == [  # shares are written as percentages
        title if name == "entropy" else f"{title} (%)" for name, title in titles.items()
    ]
    assert heatmaps[1]["zmax"] == 1.0 and heatmaps[0]["zmax"] == pytest.approx(stats["entropy"].max())
    assert all(not h["showscale"] for h in heatmaps)
    share = list(titles)[1]
    assert heatmaps[1]["z"][2][1] == pytest.approx(stats[share][2, 1], abs=1e-9)
    assert heatmaps[1]["text"][2][1] == f"{100 * stats[share][2, 1]:.0f}"  # a whole percentage fits a narrow cell
    assert heatmaps[0]["text"][0][3] == f"{stats['entropy'][0, 3]:.1f}"
    assert list(heatmaps[0]["x"]) == [0, 1, 2, 3] and list(heatmaps[0]["y"]) == [0, 1, 2]
    assert figure["layout"]["yaxis"]["range"] == [2.5, -0.5]  # layer 0 at the top
    plain = figure_of(shared_charts.statistics_grid(stats, titles))
    assert all(t["type"] == "heatmap" for t in plain["data"]) and plain["layout"]["showlegend"] is False


def test_bertviz_height_grows_with_tokens_and_layers():
    head_small = attention_charts.bertviz_height("head", 10, 1, 12)
    assert attention_charts.bertviz_height("head", 40, 1, 12) > head_small >= 10 * 22.5
    model_one = attention_charts.bertviz_height("model", 20, 1, 12)
    model_six = attention_charts.bertviz_height("model", 20, 6, 12)
    assert model_six > model_one >= 20 * 18
