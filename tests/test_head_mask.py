"""Head removal (``head_mask``): a plain forward argument of the model, and ``--ablate`` on the command line."""

from __future__ import annotations

import json

import pytest
import torch

from model import inference
from model.cli import main
from model.modeling import BertConfig, BertForPreTraining

L, NH, HS = 3, 4, 4


def tiny() -> BertForPreTraining:
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=40,
        hidden_size=NH * HS,
        num_hidden_layers=L,
        num_attention_heads=NH,
        intermediate_size=32,
        max_position_embeddings=32,
        initializer_range=0.3,  # large weights, so that every head visibly moves the logits
    )
    model = BertForPreTraining(config).eval()
    with torch.no_grad():  # non-zero biases, so a head's removal is not confused with its bias
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.add_(torch.randn_like(p) * 0.1)
    return model


IDS = torch.tensor([[1, 5, 9, 13, 2, 7, 22, 2], [1, 30, 3, 4, 2, 8, 11, 2]])
TYPES = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1]] * 2)


@pytest.mark.parametrize("output_attentions", [False, True])
def test_keeping_every_head_is_bit_identical(output_attentions):
    model = tiny()
    with torch.no_grad():
        plain = model(IDS, TYPES, output_attentions=output_attentions)
        kept = model(IDS, TYPES, output_attentions=output_attentions, head_mask=torch.ones(L, NH))
    assert torch.equal(plain.mlm_logits, kept.mlm_logits)
    assert torch.equal(plain.nsp_logits, kept.nsp_logits)


@pytest.mark.parametrize("output_attentions", [False, True])
def test_removing_heads_equals_zeroing_their_output_projection_columns(output_attentions):
    removed = [(0, 1), (2, 0), (2, 3)]
    model = tiny()
    mask = torch.ones(L, NH)
    for layer, head in removed:
        mask[layer, head] = 0
    with torch.no_grad():
        masked = model(IDS, TYPES, output_attentions=output_attentions, head_mask=mask)
        plain = model(IDS, TYPES)
        for layer, head in removed:
            dense = model.bert.encoder.layer[layer].attention.output.dense
            dense.weight[:, head * HS : (head + 1) * HS] = 0  # the columns that read this head's context vector
        zeroed = model(IDS, TYPES)
    torch.testing.assert_close(masked.mlm_logits, zeroed.mlm_logits, rtol=0, atol=1e-5)
    torch.testing.assert_close(masked.nsp_logits, zeroed.nsp_logits, rtol=0, atol=1e-5)
    assert (masked.mlm_logits - plain.mlm_logits).abs().max() > 0.1  # the removal did something


def test_head_mask_gradient_flows_to_the_gate():
    model = tiny()
    gate = torch.ones(L, NH, requires_grad=True)
    out = model(IDS, TYPES, head_mask=gate)
    out.mlm_logits.logsumexp(-1).sum().backward()
    assert gate.grad is not None and gate.grad.shape == (L, NH) and (gate.grad != 0).all()


def test_wrong_head_mask_shape_is_refused():
    with pytest.raises(ValueError, match="head_mask has shape"):
        tiny()(IDS, TYPES, head_mask=torch.ones(NH, L))


def test_parse_heads_and_range_check(tiny_bundle):
    assert inference.parse_heads("3.7, 5.0") == [(3, 7), (5, 0)]
    for bad in ["3", "3.x", "a.b", "3.7,", "-1.0"]:
        with pytest.raises(inference.InputError):
            inference.parse_heads(bad)
    assert inference.head_mask_for(tiny_bundle, []) is None
    mask = inference.head_mask_for(tiny_bundle, [(1, 3)])
    assert mask.shape == (2, 4) and mask.sum() == 7 and mask[1, 3] == 0
    with pytest.raises(inference.InputError, match="no head 2.0"):
        inference.head_mask_for(tiny_bundle, [(2, 0)])


def test_removed_heads_change_fill_mask_and_nsp(tiny_bundle):
    every_head = [(layer, head) for layer in range(2) for head in range(4)]
    text = "she opened a [MASK] ."
    plain = inference.fill_mask(tiny_bundle, text, top_k=3)
    same = inference.fill_mask(tiny_bundle, text, top_k=3, removed_heads=[])
    assert plain.to_json() == same.to_json()
    gone = inference.fill_mask(tiny_bundle, text, top_k=3, removed_heads=every_head)
    assert gone.masks[0].predictions[0].prob != plain.masks[0].predictions[0].prob
    nsp = inference.next_sentence(tiny_bundle, "我去看电影", "电影很好看")
    nsp_gone = inference.next_sentence(tiny_bundle, "我去看电影", "电影很好看", removed_heads=every_head)
    assert nsp.is_next != nsp_gone.is_next


def test_cli_ablate(hf_checkpoint, capsys):
    folder = str(hf_checkpoint[0])
    assert main(["fill-mask", "--model", folder, "--json", "she opened a [MASK] ."]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["fill-mask", "--model", folder, "--json", "--ablate", "0.0,1.2", "she opened a [MASK] ."]) == 0
    ablated = json.loads(capsys.readouterr().out)
    assert ablated["masks"][0]["predictions"] != plain["masks"][0]["predictions"]
    assert main(["nsp", "--model", folder, "--ablate", "1.3", "我去看电影", "电影很好看"]) == 0
    assert "IsNext probability" in capsys.readouterr().out


@pytest.mark.parametrize("spec", ["2.0", "0.4", "0-1", "x"])
def test_cli_ablate_bad_head_is_one_line_exit_2(spec, hf_checkpoint, capsys):
    for command in (["fill-mask", "she opened a [MASK] ."], ["nsp", "我去看电影", "电影很好看"]):
        code = main([command[0], "--model", str(hf_checkpoint[0]), "--ablate", spec, *command[1:]])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err


def test_a_per_sequence_head_mask_treats_each_sequence_as_its_own():
    model = tiny()
    first, second = torch.ones(L, NH), torch.ones(L, NH)
    first[1, 2] = 0
    second[0, 0] = second[2, 3] = 0
    with torch.no_grad():
        both = model(IDS, TYPES, head_mask=torch.stack([first, second])).mlm_logits
        alone = [
            model(IDS[i : i + 1], TYPES[i : i + 1], head_mask=m).mlm_logits[0] for i, m in enumerate([first, second])
        ]
    torch.testing.assert_close(both, torch.stack(alone), rtol=0, atol=1e-5)


def test_a_tokens_real_probability_with_and_without_heads(tiny_bundle):
    """What the head lab's comparison shows for a word outside a top 5: its probability, which fill-mask's own
    distribution gives, not 0."""
    every_head = [(layer, head) for layer in range(2) for head in range(4)]
    text = "she opened a [MASK] ."
    for removed in ([], every_head, [(1, 2)]):
        ranked = inference.fill_mask(tiny_bundle, text, top_k=50, removed_heads=removed).masks[0].predictions
        ids = [p.id for p in ranked]
        probs = inference.mask_token_probabilities(tiny_bundle, text, ids, removed_heads=removed)
        assert probs == pytest.approx([p.prob for p in ranked], rel=1e-5)
        assert 0 < probs[-1] < probs[4]  # the 50th word is below the top 5, and not 0
    with pytest.raises(inference.InputError):
        inference.mask_token_probabilities(tiny_bundle, "no mask here", [5])
