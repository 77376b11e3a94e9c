"""Causal tracing (model/analysis/tracing.py): the batched restorations are the one-at-a-time ones, putting back
the last layer at the [MASK] gives the clean answer back, and without noise nothing is lost."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model.analysis import tracing
from model.modeling import make_attention_mask

TEXT = "a door walked the [MASK] cinema ."


def test_the_last_layer_put_back_at_the_mask_gives_the_clean_answer(tiny_bundle):
    trace = tracing.causal_trace(tiny_bundle, TEXT)
    L, T = tiny_bundle.config.num_hidden_layers, len(trace.tokens)
    assert all(grid.shape == (L, T) for grid in trace.restored.values())
    assert trace.restored["layer"][L - 1, trace.index] == pytest.approx(trace.answer.prob, abs=1e-5)
    assert trace.corrupted == [i for i, t in enumerate(trace.tokens) if t not in ("[CLS]", "[SEP]", "[MASK]")]


def test_without_noise_every_restoration_is_the_clean_answer(tiny_bundle, monkeypatch):
    monkeypatch.setattr(tracing, "NOISE", 0.0)
    trace = tracing.causal_trace(tiny_bundle, TEXT, samples=2)
    assert trace.corrupted_prob == pytest.approx(trace.answer.prob, abs=1e-5)
    for grid in trace.restored.values():
        assert np.allclose(grid, trace.answer.prob, atol=1e-5)


@pytest.mark.parametrize("kind", tracing.KINDS)
def test_a_batched_restoration_is_the_one_run_alone(tiny_bundle, kind):
    trace = tracing.causal_trace(tiny_bundle, TEXT, corrupt=[1, 2], kinds=(kind,), samples=1)
    model, enc = tiny_bundle.model, tiny_bundle.tokenizer.encode(TEXT)
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    mask = make_attention_mask(None, len(enc.ids), False, ids.device)
    table = model.bert.embeddings.word_embeddings.weight
    noise = torch.randn(1, 2, table.size(1), generator=torch.Generator().manual_seed(tracing.SEED))
    words = model.bert.embeddings.word_embeddings(ids).detach().clone()
    words[:, [1, 2]] += noise * tracing.NOISE * float(table.detach().std())

    def run(embeds, patch=None, clean=None):
        """The encoder block by block; ``patch`` (layer, token) puts back ``kind`` there from ``clean``."""
        x, seen = model.bert.embeddings(ids, types, inputs_embeds=embeds)[0], []
        for depth, layer in enumerate(model.bert.encoder.layer):
            y, _ = layer.attention.self(x, mask, False)
            attention = layer.attention.output.dense(y)
            if patch == (depth, "attention"):
                attention[0, token] = clean[depth][0][0, token]
            a = layer.attention.output.LayerNorm(attention + x)
            ffn = layer.output.dense(layer.intermediate(a))
            if patch == (depth, "ffn"):
                ffn[0, token] = clean[depth][1][0, token]
            x = layer.output.LayerNorm(ffn + a)
            if patch == (depth, "layer"):
                x[0, token] = clean[depth][2][0, token]
            seen.append((attention, ffn, x))
        return model.cls.predictions(x[:, trace.index]).softmax(-1)[0, trace.answer.id], seen

    with torch.no_grad():
        _, clean = run(model.bert.embeddings.word_embeddings(ids))
        for depth in range(tiny_bundle.config.num_hidden_layers):
            for token in range(len(enc.ids)):
                alone, _ = run(words, (depth, kind), clean)
                assert trace.restored[kind][depth, token] == pytest.approx(float(alone), abs=1e-5)


def test_the_strongest_restoration_leaves_the_masks_own_column_out(tiny_bundle):
    trace = tracing.causal_trace(tiny_bundle, TEXT, kinds=("layer",), samples=1)
    layer, token = trace.strongest("layer")
    grid = trace.restored["layer"].copy()
    assert token != trace.index and grid[layer, token] == max(np.delete(grid, trace.index, axis=1).ravel())


def test_the_first_draw_then_the_rest_merge_into_every_draw_at_once(tiny_bundle):
    """The page draws the first noise draw's maps, then the mean over all of them: the same maps as one run."""
    whole = tracing.causal_trace(tiny_bundle, TEXT, samples=3)
    first = tracing.causal_trace(tiny_bundle, TEXT, samples=3, draws=range(1))
    rest = tracing.causal_trace(tiny_bundle, TEXT, samples=3, draws=range(1, 3))
    merged = first.merged(rest)
    assert (first.draws, rest.draws, merged.draws, whole.draws) == (1, 2, 3, 3)
    assert merged.corrupted_prob == pytest.approx(whole.corrupted_prob, abs=1e-6)
    for kind, grid in whole.restored.items():
        assert np.allclose(merged.restored[kind], grid, atol=1e-6), kind
    assert first.corrupted_prob != whole.corrupted_prob  # one draw alone is another mean
    with pytest.raises(ValueError):
        tracing.causal_trace(tiny_bundle, TEXT, samples=3, draws=range(2, 4))
    with pytest.raises(ValueError):
        first.merged(tracing.causal_trace(tiny_bundle, TEXT, corrupt=[1], samples=3, draws=range(1, 3)))
