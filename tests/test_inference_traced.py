"""Attention maps and fill-mask run a traced TorchScript graph of the encoder (one interpreter-lock release per
forward pass instead of one per operator): it must give what the module itself gives, for any length, pair,
number of masks and reading direction."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model import inference
from model.checkpoint import load, load_folder

TEXTS = [
    ("Hi", None),
    ("Student 7 opened the [MASK] and walked in.", None),
    ("我去[MASK]场看电影。", "电影很好看。"),
    ("我去[MASK]场看电影。" * 30, None),  # longer than any length traced before
    ("word " * 600, "and its pair"),  # truncated to the model's 512 positions
]
MASKED = [
    "She opened the [MASK] and walked in.",
    "我去[MASK]场看电影。",
    "[MASK] [MASK] walked home after the long and tiring day at [MASK].",
    "a [MASK]",
    "[MASK] " + "word " * 600,  # truncated to 512 positions, its mask kept
]


@pytest.fixture(scope="module")
def bundle():
    return load("embedded")


def module_maps(bundle, text: str, pair: str | None, causal: bool) -> np.ndarray:
    """The maps from the eager module, as the model code computes them without tracing."""
    enc = inference.encode(bundle, text, pair)
    with torch.inference_mode():
        out = bundle.model.bert(
            torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids]), causal=causal, output_attentions=True
        )
    return torch.stack(out.attentions, dim=1)[0].numpy()


@pytest.mark.parametrize(("text", "pair"), TEXTS)
def test_traced_maps_equal_the_module(bundle, text, pair):
    for causal in (False, True):
        traced = inference.attention_maps(bundle, text, pair, causal=causal)
        np.testing.assert_array_equal(traced.attentions, module_maps(bundle, text, pair, causal))
    # Both readings from one batch of two: the same maps, up to the batched matrix products' rounding.
    bidirectional, causal_result = inference.attention_maps_both(bundle, text, pair)
    assert bidirectional.tokens == causal_result.tokens == inference.encode(bundle, text, pair).tokens
    np.testing.assert_allclose(bidirectional.attentions, module_maps(bundle, text, pair, False), atol=1e-5, rtol=0)
    np.testing.assert_allclose(causal_result.attentions, module_maps(bundle, text, pair, True), atol=1e-5, rtol=0)
    upper = np.triu(np.ones(bidirectional.attentions.shape[-2:], dtype=bool), k=1)
    assert np.all(causal_result.attentions[..., upper] == 0)
    assert (bidirectional.attentions[..., upper] > 0).mean() > 0.5  # later tokens seen (long texts underflow a few)


def test_traced_fill_mask_equals_the_module(bundle, monkeypatch):
    traced = [inference.fill_mask(bundle, text, causal=causal, top_k=8) for text in MASKED for causal in (False, True)]
    monkeypatch.setattr(inference, "_run_traced", lambda form, bert, *inputs: form(bert)(*inputs))
    for result, (text, causal) in zip(traced, [(t, c) for t in MASKED for c in (False, True)], strict=True):
        module = inference.fill_mask(bundle, text, causal=causal, top_k=8)
        assert [m.index for m in result.masks] == [m.index for m in module.masks] and result.masks
        for a, b in zip(result.masks, module.masks, strict=True):
            assert [p.id for p in a.predictions] == [p.id for p in b.predictions]
            assert [p.prob for p in a.predictions] == [p.prob for p in b.predictions]


def test_one_trace_per_model_and_form_and_a_training_model_is_not_traced(bundle, hf_checkpoint):
    inference.attention_maps(bundle, "one")
    inference.fill_mask(bundle, "one [MASK]")
    graphs = dict(inference._traced[bundle.model.bert])
    assert set(graphs) == {inference._AttentionMaps, inference._MaskRows}
    inference.attention_maps(bundle, "and another, longer text")
    inference.fill_mask(bundle, "[MASK] and another, longer [MASK]", causal=True)
    assert inference._traced[bundle.model.bert] == graphs
    # A model in training mode draws dropout anew on every call: it runs as the module.
    tiny_bundle = load_folder(hf_checkpoint[0])  # a model of its own, which no other test has traced
    tiny_bundle.model.train()
    try:
        inference.attention_maps(tiny_bundle, "hello world")
        assert tiny_bundle.model.bert not in inference._traced
    finally:
        tiny_bundle.model.eval()
    inference.attention_maps(tiny_bundle, "hello world")
    assert inference._AttentionMaps in inference._traced[tiny_bundle.model.bert]
