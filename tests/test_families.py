"""BERT's family (issue 56): RoBERTa's and DistilBERT's checkpoints, read into this package's BERT, compute what
transformers computes on the same weights: MLM logits, every hidden state and every attention map, to 1e-5, on a
padded batch."""

from __future__ import annotations

import pytest
import torch

from model.checkpoint import load_weights
from model.families import bert_config, bert_state, family_of
from model.modeling import BertForPreTraining

TOL = 1e-5


def tiny(family: str):
    """A randomly initialised transformers model of ``family`` with small shapes, its LayerNorms and biases moved
    off their initial values so that a swapped name cannot go unnoticed."""
    import transformers

    torch.manual_seed(0)
    if family == "roberta":
        config = transformers.RobertaConfig(
            vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48,
            max_position_embeddings=40, type_vocab_size=1, pad_token_id=1,
        )  # fmt: skip
        model = transformers.RobertaForMaskedLM(config)
    else:
        config = transformers.DistilBertConfig(
            vocab_size=60, dim=32, n_layers=2, n_heads=4, hidden_dim=48, max_position_embeddings=40, pad_token_id=0
        )
        model = transformers.DistilBertForMaskedLM(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm" in name or "layer_norm" in name or name.endswith("bias"):
                p.add_(torch.randn_like(p) * 0.1)
    return model.eval()


@pytest.mark.parametrize("family", ["roberta", "distilbert"])
def test_a_family_checkpoint_computes_what_transformers_computes(family):
    reference = tiny(family)
    reference.config._attn_implementation = "eager"  # returns attention maps
    config = bert_config(reference.config.to_dict())
    assert family_of(reference.config.to_dict()) == family and config.extra["family"] == family
    ours = BertForPreTraining(config).eval()
    fresh = load_weights(ours, bert_state(family, reference.state_dict()), "tiny")
    assert set(fresh) == {key for key in ours.state_dict() if key.startswith(("bert.pooler.", "cls.seq_relationship."))}
    pad = reference.config.pad_token_id
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(3, 60, (2, 9), generator=g)
    mask = torch.ones_like(ids)
    ids[1, 6:], mask[1, 6:] = pad, 0  # a padded sequence: RoBERTa's positions skip padding
    with torch.no_grad():
        out = ours(ids, None, mask, output_attentions=True, output_hidden_states=True)
        ref = reference(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
    real = mask.bool()
    torch.testing.assert_close(out.mlm_logits[real], ref.logits[real], atol=TOL, rtol=0)
    assert len(out.hidden_states) == len(ref.hidden_states) == 3
    for mine, theirs in zip(out.hidden_states, ref.hidden_states, strict=True):
        torch.testing.assert_close(mine[real], theirs[real], atol=TOL, rtol=0)
    for mine, theirs in zip(out.attentions, ref.attentions, strict=True):
        torch.testing.assert_close(mine[0], theirs[0], atol=TOL, rtol=0)
        torch.testing.assert_close(mine[1, :, :6, :], theirs[1, :, :6, :], atol=TOL, rtol=0)


def test_roberta_counts_positions_after_the_padding_index_and_distilbert_has_no_segments():
    roberta = BertForPreTraining(bert_config(tiny("roberta").config.to_dict()))
    ids = torch.tensor([[0, 5, 6, 2, 1, 1]])  # <s> a b </s> <pad> <pad>, pad_token_id 1
    assert roberta.bert.embeddings.position_ids(ids).tolist() == [[2, 3, 4, 5, 1, 1]]
    distil = BertForPreTraining(bert_config(tiny("distilbert").config.to_dict()))
    assert distil.bert.embeddings.token_type_embeddings is None
    assert "bert.embeddings.token_type_embeddings.weight" not in distil.state_dict()
    parts = distil.bert(torch.tensor([[5, 6, 7]]), output_embeddings=True).embeddings
    assert not parts.segment.any()  # nothing is added for a segment
    assert distil.config.to_dict()["type_vocab_size"] == 0


def test_an_unknown_family_is_named():
    with pytest.raises(ValueError, match="'gpt2' is not one of BERT's family"):
        family_of({"model_type": "gpt2"})
