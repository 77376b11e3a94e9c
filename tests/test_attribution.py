"""Integrated gradients at a [MASK] and for a classifier's label (model/analysis/attribution.py): what Captum
computes is the path integral of the gradient, checked against a plain Riemann sum, its scores add up to the change
in log p(answer), and gradient × input is the same product read at the sentence alone."""

from __future__ import annotations

import pytest
import torch

from model import inference
from model.analysis.attribution import classifier_integrated_gradients, integrated_gradients
from model.task_heads import BertForTaskHead
from model.training.finetune import predict

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


def path_ends(bundle, result):
    """The sentence's word embeddings (1, T, H) and the baseline's ([PAD] at every word), and the gradient of log
    p(answer) at the [MASK] at any point between them, by plain autograd."""
    model, enc = bundle.model, bundle.tokenizer.encode(TEXT)
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    read = torch.zeros_like(ids, dtype=torch.bool)
    read[0, result.index] = True
    x = model.bert.embeddings.word_embeddings(ids).detach()
    kept = torch.tensor([[s or i == result.index for i, s in enumerate(enc.special)]])
    pad = model.bert.embeddings.word_embeddings.weight[bundle.tokenizer.token_to_id("[PAD]")].detach()

    def gradient(point: torch.Tensor) -> torch.Tensor:
        point = point.clone().requires_grad_(True)
        with torch.enable_grad():
            out = model(ids, types, mlm_positions=read, inputs_embeds=point)
            (grad,) = torch.autograd.grad(out.mlm_logits.float().log_softmax(-1)[0, result.answer.id], point)
        return grad

    return x, torch.where(kept[..., None], x, pad), gradient


def test_the_scores_are_the_path_integral_of_the_gradient(tiny_bundle):
    """A midpoint Riemann sum of (x - baseline) . dF/dx along the straight path, by plain autograd."""
    result = integrated_gradients(tiny_bundle, TEXT)
    x, baseline, gradient = path_ends(tiny_bundle, result)
    steps = 400
    total = sum(gradient(baseline + (k + 0.5) / steps * (x - baseline)) for k in range(steps)) / steps
    riemann = ((x - baseline) * total).sum(-1)[0]
    span = max(abs(v) for v in riemann.tolist())
    assert result.scores == pytest.approx(riemann.tolist(), abs=0.02 * span)


def test_a_text_without_a_mask_is_refused_with_its_reason(tiny_bundle):
    with pytest.raises(inference.InputError) as caught:
        integrated_gradients(tiny_bundle, "a door walked the cinema .")
    assert caught.value.code == "no_mask"


def test_gradient_x_input_is_the_gradient_at_the_sentence_times_its_distance_from_the_baseline(tiny_bundle):
    result = integrated_gradients(tiny_bundle, TEXT)
    x, baseline, gradient = path_ends(tiny_bundle, result)
    expected = (gradient(x) * (x - baseline))[0].sum(-1)  # 0 where the baseline keeps the token
    assert result.gradient_x_input == pytest.approx(expected.tolist(), abs=1e-5)


@pytest.fixture(scope="module")
def tiny_classifier(tiny_bundle):
    torch.manual_seed(0)
    config = tiny_bundle.config.from_dict({**tiny_bundle.config.to_dict(), "num_labels": 3})
    model = BertForTaskHead(config, per_token=False)
    model.bert.load_state_dict(tiny_bundle.model.bert.state_dict())
    return model.eval()


def test_a_classifiers_scores_add_up_to_the_change_in_log_probability_of_its_label(tiny_bundle, tiny_classifier):
    labels = ["red", "green", "blue"]
    text = "a door walked the cinema ."
    result = classifier_integrated_gradients(tiny_classifier, tiny_bundle.tokenizer, text, labels)
    probs = predict(tiny_classifier, tiny_bundle.tokenizer, text, labels)["probs"]
    assert result.answer.token == max(probs, key=probs.get)
    assert result.answer.prob == pytest.approx(probs[result.answer.token], abs=1e-5)
    assert result.index is None
    assert sum(result.scores) == pytest.approx(result.end - result.start + result.delta, abs=1e-4)
    assert abs(result.delta) < 0.01 * abs(result.end - result.start) + 1e-4
    assert [s for s, special in zip(result.scores, result.special) if special] == [0.0, 0.0]  # [CLS], [SEP]
    assert any(s != 0.0 for s in result.scores)
    assert len(result.gradient_x_input) == len(result.tokens)


def test_a_tagger_is_refused(tiny_bundle):
    config = tiny_bundle.config.from_dict({**tiny_bundle.config.to_dict(), "num_labels": 3})
    with pytest.raises(ValueError, match="tag per token"):
        classifier_integrated_gradients(BertForTaskHead(config, per_token=True), tiny_bundle.tokenizer, "a door", "abc")
