"""Invariants of the model itself, on tiny random configs."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from model.modeling import BertConfig, BertForPreTraining, bert_base, bert_large, count_parameters, make_attention_mask


def tiny(**kw) -> BertForPreTraining:
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=32,
        max_position_embeddings=32,
        **kw,
    )
    return BertForPreTraining(config).eval()


def test_paper_sizes_from_config():
    assert 105e6 < count_parameters(bert_base())["total"] < 115e6  # "1.1 亿参数"
    assert 330e6 < count_parameters(bert_large())["total"] < 345e6  # "3.4 亿参数"


def test_count_parameters_matches_allocated_model():
    model = tiny()
    assert count_parameters(model.config)["total"] == model.num_parameters()


def test_model_package_imports_no_ui_libraries():
    # Nor jieba: its dictionary takes seconds to load, paid only when whole-word masking is used.
    code = (
        "import sys, model, model.cli, model.training.pretrain, model.training.finetune, model.inference; "
        "bad = [m for m in ('streamlit', 'bertviz', 'jieba') if m in sys.modules]; "
        "print(bad); sys.exit(bool(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_model_and_the_string_tables_do_not_load_the_corpus_builder():
    # The corpus builder (fetching, parsing ten sources) is for `python -m model corpus` and pre-training only;
    # the app and a plain `import model` start without it.
    code = (
        "import sys, model, model.cli, app.core.i18n; "
        "bad = [m for m in ('model.data.corpus', 'model.data.minilm') if m in sys.modules]; "
        "print(bad); sys.exit(bool(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_causal_attention_upper_triangle_is_exactly_zero():
    model = tiny()
    ids = torch.randint(5, 50, (2, 10))
    out = model(ids, causal=True, output_attentions=True)
    for layer in out.attentions:
        upper = torch.triu(torch.ones(10, 10, dtype=torch.bool), diagonal=1)
        assert torch.all(layer[..., upper] == 0)
        torch.testing.assert_close(layer.sum(-1), torch.ones(2, 4, 10))


def test_causal_output_ignores_later_tokens_bidirectional_does_not():
    model = tiny()
    ids = torch.randint(5, 50, (1, 10))
    changed = ids.clone()
    changed[0, 7] = (ids[0, 7] + 1 - 5) % 45 + 5
    for causal in (True, False):
        a = model.bert(ids, causal=causal).last_hidden_state
        b = model.bert(changed, causal=causal).last_hidden_state
        same_prefix = torch.allclose(a[0, :7], b[0, :7], atol=1e-6)
        assert same_prefix == causal


def test_a_flag_per_sequence_reads_each_sequence_as_its_own_batch_would():
    model = tiny().eval()
    ids = torch.randint(5, 50, (1, 9))
    padding = torch.tensor([[1] * 9, [1] * 6 + [0] * 3])
    both = model.bert(
        ids.expand(2, -1), attention_mask=padding, causal=torch.tensor([False, True]), output_attentions=True
    )
    for row, causal in enumerate((False, True)):
        alone = model.bert(ids, attention_mask=padding[row : row + 1], causal=causal, output_attentions=True)
        torch.testing.assert_close(both.last_hidden_state[row], alone.last_hidden_state[0], atol=1e-5, rtol=0)
        for layer_both, layer_alone in zip(both.attentions, alone.attentions, strict=True):
            torch.testing.assert_close(layer_both[row], layer_alone[0], atol=1e-6, rtol=0)


def test_padding_gets_no_attention_and_does_not_change_real_tokens():
    model = tiny()
    ids = torch.randint(5, 50, (1, 8))
    padded = torch.cat([ids, torch.zeros(1, 4, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(1, 8), torch.zeros(1, 4)], dim=1).long()
    out = model.bert(padded, attention_mask=mask, output_attentions=True)
    for layer in out.attentions:
        assert torch.all(layer[..., 8:] == 0)
    short = model.bert(ids).last_hidden_state
    torch.testing.assert_close(out.last_hidden_state[:, :8], short, atol=1e-5, rtol=0)


def test_fully_masked_row_stays_finite():
    mask = make_attention_mask(torch.zeros(1, 4, dtype=torch.long), 4, causal=False, device="cpu")
    model = tiny()
    out = model.bert(
        torch.randint(5, 50, (1, 4)), attention_mask=torch.zeros(1, 4, dtype=torch.long), output_attentions=True
    )
    assert mask is not None and torch.isfinite(out.last_hidden_state).all()
    assert all(torch.isfinite(a).all() for a in out.attentions)


def test_embedding_parts_add_up():
    model = tiny()
    ids = torch.randint(5, 50, (1, 6))
    types = torch.tensor([[0, 0, 0, 1, 1, 1]])
    out = model.bert(ids, types, output_embeddings=True)
    parts = out.embeddings
    torch.testing.assert_close(parts.sum, parts.token + parts.segment + parts.position)
    torch.testing.assert_close(parts.normalized, model.bert.embeddings.LayerNorm(parts.sum))
    assert not torch.equal(parts.segment[0, 0], parts.segment[0, 5])


def test_decoder_is_tied_to_word_embeddings():
    model = tiny()
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight


def test_mlm_probabilities_sum_to_one():
    model = tiny()
    logits = model(torch.randint(5, 50, (2, 7))).mlm_logits
    torch.testing.assert_close(logits.softmax(-1).sum(-1), torch.ones(2, 7))


def test_config_round_trips_through_json(tmp_path):
    config = BertConfig(vocab_size=77, hidden_size=24, num_attention_heads=3, extra={"architectures": ["X"]})
    config.to_json_file(tmp_path / "config.json")
    again = BertConfig.from_json_file(tmp_path / "config.json")
    assert again == config


@pytest.mark.parametrize("bad", [{"hidden_size": 10, "num_attention_heads": 3}, {"hidden_act": "swishy"}])
def test_config_rejects_inconsistent_values(bad):
    with pytest.raises(ValueError):
        BertConfig(**bad)
