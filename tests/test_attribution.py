"""Integrated gradients at a [MASK] (model/analysis/attribution.py): what Captum computes is the path integral of
the gradient, checked against a plain Riemann sum, and its scores add up to the change in log p(answer)."""

from __future__ import annotations

import pytest
import torch

from model import inference
from model.analysis.attribution import integrated_gradients

TEXT = "a door walked the [MASK] cinema ."


def test_the_scores_add_up_to_the_change_in_log_probability_and_spare_the_fixed_tokens(tiny_bundle):
    result = integrated_gradients(tiny_bundle, TEXT)
    assert result.tokens == tiny_bundle.tokenizer.encode(TEXT).tokens
    assert result.answer.id == inference.fill_mask(tiny_bundle, TEXT, top_k=1).masks[0].predictions[0].id
    assert sum(result.scores) == pytest.approx(result.end - result.start + result.delta, abs=1e-4)
    assert abs(result.delta) < 0.01 * abs(result.end - result.start) + 1e-4
    for i, (token, score) in enumerate(zip(result.tokens, result.scores)):
        if result.special[i] or i == result.index:
            assert score == 0.0, token  # the path leaves [CLS], [SEP] and the [MASK] read where they are


def test_the_scores_are_the_path_integral_of_the_gradient(tiny_bundle):
    """A midpoint Riemann sum of (x - baseline) . dF/dx along the straight path, by plain autograd."""
    result = integrated_gradients(tiny_bundle, TEXT)
    model, enc = tiny_bundle.model, tiny_bundle.tokenizer.encode(TEXT)
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    read = torch.zeros_like(ids, dtype=torch.bool)
    read[0, result.index] = True
    x = model.bert.embeddings.word_embeddings(ids).detach()
    kept = torch.tensor([[s or i == result.index for i, s in enumerate(enc.special)]])
    pad = model.bert.embeddings.word_embeddings.weight[tiny_bundle.tokenizer.token_to_id("[PAD]")].detach()
    baseline = torch.where(kept[..., None], x, pad)
    steps = 400
    total = torch.zeros_like(x)
    for k in range(steps):
        point = (baseline + (k + 0.5) / steps * (x - baseline)).requires_grad_(True)
        with torch.enable_grad():
            out = model(ids, types, mlm_positions=read, inputs_embeds=point)
            (grad,) = torch.autograd.grad(out.mlm_logits.float().log_softmax(-1)[0, result.answer.id], point)
        total += grad / steps
    riemann = ((x - baseline) * total).sum(-1)[0]
    span = max(abs(v) for v in riemann.tolist())
    assert result.scores == pytest.approx(riemann.tolist(), abs=0.02 * span)


def test_a_text_without_a_mask_is_refused_with_its_reason(tiny_bundle):
    with pytest.raises(inference.InputError) as caught:
        integrated_gradients(tiny_bundle, "a door walked the cinema .")
    assert caught.value.code == "no_mask"
