"""Our BERT against transformers' on the same random weights: every number must agree."""

from __future__ import annotations

import shutil

import pytest
import torch

from model.checkpoint import load_folder

TOL = 1e-5


def _inputs(vocab_size: int):
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(10, vocab_size, (3, 12), generator=g)
    types = torch.zeros_like(ids)
    types[:, 6:] = 1
    mask = torch.ones_like(ids)
    mask[1, 9:] = 0  # padding in one row
    mask[2, 4:] = 0
    return ids, types, mask


def _assert_same(ours, reference, ids, types, mask):
    with torch.no_grad():
        out = ours(ids, types, mask, output_attentions=True, output_hidden_states=True)
        ref = reference(
            input_ids=ids, token_type_ids=types, attention_mask=mask, output_attentions=True, output_hidden_states=True
        )
    valid = mask.bool()
    torch.testing.assert_close(out.mlm_logits[valid], ref.prediction_logits[valid], atol=TOL, rtol=0)
    torch.testing.assert_close(out.nsp_logits, ref.seq_relationship_logits, atol=TOL, rtol=0)
    assert len(out.hidden_states) == len(ref.hidden_states)
    for a, b in zip(out.hidden_states, ref.hidden_states):
        torch.testing.assert_close(a[valid], b[valid], atol=TOL, rtol=0)
    for a, b in zip(out.attentions, ref.attentions):
        torch.testing.assert_close(a, b, atol=TOL, rtol=0)


def test_safetensors_checkpoint_matches_transformers(hf_checkpoint):
    folder, reference = hf_checkpoint
    bundle = load_folder(folder)
    assert bundle.fresh_keys == []
    _assert_same(bundle.model, reference, *_inputs(bundle.config.vocab_size))


def test_given_word_embeddings_match_transformers_and_their_gradient(hf_checkpoint):
    """``inputs_embeds`` (what gradient × input passes in) gives transformers' logits and the same gradient."""
    folder, reference = hf_checkpoint
    model = load_folder(folder).model
    ids, types, mask = _inputs(model.config.vocab_size)
    ours_in = model.bert.embeddings.word_embeddings(ids).detach().requires_grad_(True)
    ref_in = reference.bert.embeddings.word_embeddings(ids).detach().requires_grad_(True)
    ours = model(ids, types, mask, inputs_embeds=ours_in).mlm_logits
    ref = reference(inputs_embeds=ref_in, token_type_ids=types, attention_mask=mask).prediction_logits
    valid = mask.bool()
    torch.testing.assert_close(ours[valid], ref[valid], atol=TOL, rtol=0)
    (ours_grad,) = torch.autograd.grad(ours[0, 5].log_softmax(-1)[7], ours_in)
    (ref_grad,) = torch.autograd.grad(ref[0, 5].log_softmax(-1)[7], ref_in)
    torch.testing.assert_close(ours_grad, ref_grad, atol=TOL, rtol=0)
    with torch.no_grad():
        torch.testing.assert_close(
            model(ids, types, mask, inputs_embeds=ours_in).mlm_logits, model(ids, types, mask).mlm_logits
        )
    with pytest.raises(ValueError, match="inputs_embeds"):
        model(ids, types, mask, inputs_embeds=ours_in[:, :5])


def test_fast_path_matches_attention_path(tiny_bundle):
    ids, types, mask = _inputs(tiny_bundle.config.vocab_size)
    with torch.no_grad():
        fast = tiny_bundle.model(ids, types, mask)
        slow = tiny_bundle.model(ids, types, mask, output_attentions=True)
    valid = mask.bool()
    torch.testing.assert_close(fast.mlm_logits[valid], slow.mlm_logits[valid], atol=TOL, rtol=0)


def test_legacy_bin_with_gamma_beta_matches(hf_checkpoint, tmp_path):
    folder, reference = hf_checkpoint
    legacy = {}
    for key, value in reference.state_dict().items():
        if "LayerNorm.weight" in key:
            key = key.replace("LayerNorm.weight", "LayerNorm.gamma")
        elif "LayerNorm.bias" in key:
            key = key.replace("LayerNorm.bias", "LayerNorm.beta")
        legacy[key] = value.clone()
    legacy["bert.embeddings.position_ids"] = torch.arange(64)[None]
    torch.save(legacy, tmp_path / "pytorch_model.bin")
    shutil.copy(folder / "config.json", tmp_path)
    shutil.copy(folder / "vocab.txt", tmp_path)
    bundle = load_folder(tmp_path)
    _assert_same(bundle.model, reference, *_inputs(bundle.config.vocab_size))


def test_mlm_logits_at_selected_positions_equal_full_logits(tiny_bundle):
    ids, types, _ = _inputs(tiny_bundle.config.vocab_size)
    where = torch.zeros_like(ids, dtype=torch.bool)
    where[0, 3] = where[2, 7] = True
    with torch.no_grad():
        full = tiny_bundle.model(ids, types).mlm_logits
        picked = tiny_bundle.model(ids, types, mlm_positions=where).mlm_logits
    torch.testing.assert_close(picked, full[where], atol=TOL, rtol=0)


def test_saved_folder_round_trips(tiny_bundle, tmp_path):
    from model.checkpoint import save_folder

    save_folder(tiny_bundle.model, tiny_bundle.tokenizer, tmp_path)
    again = load_folder(tmp_path)
    ids, types, mask = _inputs(tiny_bundle.config.vocab_size)
    with torch.no_grad():
        a = tiny_bundle.model(ids, types, mask).mlm_logits
        b = again.model(ids, types, mask).mlm_logits
    torch.testing.assert_close(a, b, atol=0, rtol=0)
    assert again.model.cls.predictions.decoder.weight is again.model.bert.embeddings.word_embeddings.weight


@pytest.mark.parametrize(
    "text",
    [
        "She opened the door and walked in.",
        "我去电影场看电影，今天天气很好！",
        "BERT 2018: un-affable Résumé, naïve café (hello world)?",
        "I went to the [MASK] and watched a movie.",
        "  \t  weird   spacing\u00a0and\u200bzero width ",
        "我去 [MASK] 场看电影",
        "hello world",
    ],
)
def test_tokenizer_matches_bert_tokenizer_fast(hf_checkpoint, tiny_bundle, text):
    from transformers import BertTokenizerFast

    reference = BertTokenizerFast.from_pretrained(str(hf_checkpoint[0]))
    ours = tiny_bundle.tokenizer.encode(text, "第二句 second sentence")
    ref = reference(text, "第二句 second sentence")
    assert ours.ids == ref["input_ids"]
    assert ours.token_type_ids == ref["token_type_ids"]
    assert tiny_bundle.tokenizer.encode(text).ids == reference(text)["input_ids"]


def test_tokenizer_json_and_vocab_txt_agree(hf_checkpoint, tiny_bundle, tmp_path):
    from model.tokenization import BertTokenizer

    tiny_bundle.tokenizer.save(tmp_path)
    (tmp_path / "vocab.txt").unlink()  # force the tokenizer.json path
    from_json = BertTokenizer.from_folder(tmp_path)
    for text in ("BERT 2018: naïve café [MASK]", "我去[MASK]场看电影", "hello   world!"):
        assert from_json.encode(text, "第二句").ids == tiny_bundle.tokenizer.encode(text, "第二句").ids


def test_tokenizer_config_can_keep_case(hf_checkpoint, tmp_path):
    from transformers import BertTokenizerFast

    from model.tokenization import BertTokenizer

    vocab = (hf_checkpoint[0] / "vocab.txt").read_text(encoding="utf-8") + "Hello\n"
    (tmp_path / "vocab.txt").write_text(vocab, encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text('{"do_lower_case": false}')
    ours = BertTokenizer.from_folder(tmp_path)
    reference = BertTokenizerFast.from_pretrained(str(tmp_path))
    for text in ("Hello hello HELLO", "Résumé 我去"):
        assert ours.encode(text).ids == reference(text)["input_ids"]
    assert "Hello" in ours.encode("Hello").tokens


@pytest.mark.parametrize("causal", [False, True])
def test_last_layer_rows_give_the_same_states_there(tiny_bundle, causal):
    ids, types, _ = _inputs(tiny_bundle.config.vocab_size)
    ids, types = ids[:1], types[:1]
    rows = torch.tensor([2, 5, 11])
    with torch.no_grad():
        full = tiny_bundle.model.bert(ids, types, causal=causal).last_hidden_state
        some = tiny_bundle.model.bert(ids, types, causal=causal, last_layer_rows=rows).last_hidden_state
    assert some.shape == (1, 3, full.size(-1))
    torch.testing.assert_close(some, full[:, rows], atol=TOL, rtol=0)


def test_fill_mask_matches_full_forward(tiny_bundle):
    from model import inference

    text = "我去[MASK]场看电影 [MASK] hello"
    result = inference.fill_mask(tiny_bundle, text, top_k=3)
    enc = tiny_bundle.tokenizer.encode(text)
    with torch.no_grad():
        probs = tiny_bundle.model(torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])).mlm_logits[0].softmax(-1)
    for m in result.masks:
        top = probs[m.index].topk(3)
        assert [p.id for p in m.predictions] == top.indices.tolist()
        assert [p.prob for p in m.predictions] == pytest.approx(top.values.tolist(), abs=1e-6)


@pytest.mark.parametrize("per_token", [False, True])
def test_task_head_matches_transformers_classification(hf_checkpoint, per_token):
    """A sentence head computes its last layer for [CLS] alone; logits must still equal the full pass's."""
    from transformers import BertForSequenceClassification, BertForTokenClassification

    from model.training.finetune import build_task_model

    folder, _ = hf_checkpoint
    bundle = load_folder(folder)
    ours = build_task_model(bundle, ["a", "b", "c"], "token" if per_token else "sequence").eval()
    reference_class = BertForTokenClassification if per_token else BertForSequenceClassification
    reference = reference_class.from_pretrained(folder, num_labels=3, attn_implementation="eager").eval()
    # the head's own random weights, under the same names (transformers' token head has no pooler)
    missing, unexpected = reference.load_state_dict(ours.state_dict(), strict=False)
    assert missing == [] and all(k.startswith("bert.pooler.") for k in unexpected) and (unexpected != []) == per_token
    ids, types, mask = _inputs(bundle.config.vocab_size)
    labels = torch.tensor([[0, 1, 2] * 4] * 3) if per_token else torch.tensor([0, 1, 2])
    with torch.no_grad():
        out = ours(ids, types, mask, labels=labels)
        ref = reference(input_ids=ids, token_type_ids=types, attention_mask=mask, labels=labels)
    torch.testing.assert_close(out.logits, ref.logits, atol=TOL, rtol=0)
    torch.testing.assert_close(out.loss, ref.loss, atol=TOL, rtol=0)


def test_logit_lens_is_transformers_hidden_states_read_by_its_mlm_head(hf_checkpoint, tiny_bundle):
    from model import inference

    text = "a door walked the [MASK] cinema ."
    lens = inference.logit_lens(tiny_bundle, text, top_k=3)
    ids = torch.tensor([tiny_bundle.tokenizer.encode(text).ids])
    with torch.no_grad():
        hidden = hf_checkpoint[1].bert(ids, output_hidden_states=True).hidden_states
        probs = torch.stack([hf_checkpoint[1].cls.predictions(h[0, lens.index]) for h in hidden]).softmax(-1)
    assert len(lens.layers) == tiny_bundle.config.num_hidden_layers + 1 == len(hidden)
    for layer, top in enumerate(lens.layers):
        expected = probs[layer].topk(3)
        assert [p.id for p in top] == expected.indices.tolist()
        torch.testing.assert_close(torch.tensor([p.prob for p in top]), expected.values, atol=1e-5, rtol=0)
    torch.testing.assert_close(torch.tensor(lens.answer_probs), probs[:, lens.answer.id], atol=1e-5, rtol=0)
    assert lens.answer_ranks == [int((row > row[lens.answer.id]).sum()) + 1 for row in probs]
    assert lens.answer_ranks[-1] == 1
    filled = inference.fill_mask(tiny_bundle, text, top_k=3).masks[0].predictions  # the last layer is fill-mask's
    assert [p.id for p in filled] == [p.id for p in lens.layers[-1]]
