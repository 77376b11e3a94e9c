"""BERT's family as this package's BERT: RoBERTa (Liu et al. 2019) and DistilBERT (Sanh et al. 2019).

Each keeps BERT's encoder and changes a little around it, so each is a small adapter here rather than a copy of
``modeling``: its ``config.json`` read into a ``BertConfig``, and its weight names mapped onto BERT's, after which
loading is the same strict ``load_state_dict`` as for BERT.

* **RoBERTa** (``model_type: roberta``): BERT's layers and names under ``roberta.``; one segment; positions counted
  from ``pad_token_id + 1`` (``BertConfig.positions_after_padding``); the MLM head is ``lm_head`` (dense, GELU,
  ``layer_norm``, the tied decoder and its bias, BERT's ``cls.predictions`` by other names); no next-sentence head,
  since RoBERTa dropped that task.
* **DistilBERT** (``model_type: distilbert``): six layers distilled from BERT-Base; no segment embeddings
  (``type_vocab_size`` 0), no pooler and no next-sentence head; a layer is BERT's under other names (``q_lin`` ...
  ``out_lin``, ``sa_layer_norm``, ``ffn.lin1``/``lin2``, ``output_layer_norm``), and so is the MLM head
  (``vocab_transform``, ``vocab_layer_norm``, ``vocab_projector``).

A head a family's checkpoint lacks (the pooler, NSP) stays out of the state, as for a BERT checkpoint without it.
"""

from __future__ import annotations

import re

import torch

from .modeling import BertConfig

FAMILIES = ("bert", "roberta", "distilbert")

# (pattern, replacement) in order, on every key of a family's state dict; keys matching ``_DROPPED`` go first.
_RENAMES: dict[str, tuple[tuple[str, str], ...]] = {
    "roberta": (
        (r"^roberta\.", "bert."),
        (r"^lm_head\.dense\.", "cls.predictions.transform.dense."),
        (r"^lm_head\.layer_norm\.", "cls.predictions.transform.LayerNorm."),
        (r"^lm_head\.decoder\.weight$", "cls.predictions.decoder.weight"),
        (r"^lm_head\.bias$", "cls.predictions.bias"),
    ),
    "distilbert": (
        (r"^distilbert\.embeddings\.", "bert.embeddings."),
        (r"^distilbert\.transformer\.layer\.(\d+)\.attention\.q_lin\.", r"bert.encoder.layer.\1.attention.self.query."),
        (r"^distilbert\.transformer\.layer\.(\d+)\.attention\.k_lin\.", r"bert.encoder.layer.\1.attention.self.key."),
        (r"^distilbert\.transformer\.layer\.(\d+)\.attention\.v_lin\.", r"bert.encoder.layer.\1.attention.self.value."),
        (
            r"^distilbert\.transformer\.layer\.(\d+)\.attention\.out_lin\.",
            r"bert.encoder.layer.\1.attention.output.dense.",
        ),
        (
            r"^distilbert\.transformer\.layer\.(\d+)\.sa_layer_norm\.",
            r"bert.encoder.layer.\1.attention.output.LayerNorm.",
        ),
        (r"^distilbert\.transformer\.layer\.(\d+)\.ffn\.lin1\.", r"bert.encoder.layer.\1.intermediate.dense."),
        (r"^distilbert\.transformer\.layer\.(\d+)\.ffn\.lin2\.", r"bert.encoder.layer.\1.output.dense."),
        (r"^distilbert\.transformer\.layer\.(\d+)\.output_layer_norm\.", r"bert.encoder.layer.\1.output.LayerNorm."),
        (r"^vocab_transform\.", "cls.predictions.transform.dense."),
        (r"^vocab_layer_norm\.", "cls.predictions.transform.LayerNorm."),
        (r"^vocab_projector\.weight$", "cls.predictions.decoder.weight"),
        (r"^vocab_projector\.bias$", "cls.predictions.bias"),
    ),
}
# The decoder's bias is saved twice by transformers (it is the head's ``bias``); position ids are a buffer.
_DROPPED = re.compile(r"(^lm_head\.decoder\.bias$|position_ids$)")

# DistilBERT's config names for BERT's fields.
_DISTILBERT_FIELDS = {
    "dim": "hidden_size",
    "n_layers": "num_hidden_layers",
    "n_heads": "num_attention_heads",
    "hidden_dim": "intermediate_size",
    "activation": "hidden_act",
    "dropout": "hidden_dropout_prob",
    "attention_dropout": "attention_probs_dropout_prob",
}


def family_of(data: dict) -> str:
    """A ``config.json``'s family: its ``model_type`` (a config without one is BERT's)."""
    family = data.get("model_type", "bert")
    if family not in FAMILIES:
        raise ValueError(f"model_type {family!r} is not one of BERT's family here ({', '.join(FAMILIES)})")
    return family


def bert_config(data: dict) -> BertConfig:
    """A family's ``config.json`` (as a dict) as the ``BertConfig`` of the same network; ``extra["family"]`` names
    the family."""
    family = family_of(data)
    fields = dict(data)
    if family == "roberta":
        fields["positions_after_padding"] = True
    elif family == "distilbert":
        fields = {_DISTILBERT_FIELDS.get(k, k): v for k, v in data.items()}
        fields.update(type_vocab_size=0, layer_norm_eps=1e-12)  # DistilBERT's LayerNorms use 1e-12, unconfigured
    config = BertConfig.from_dict(fields)
    for name in _DISTILBERT_FIELDS if family == "distilbert" else ():
        config.extra.pop(name, None)
    config.extra["family"] = family
    return config


def bert_state(family: str, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A family's weights under BERT's names (``modeling``'s); a key no rule maps is kept as it is, so that the
    strict load that follows names it."""
    renames = [(re.compile(pattern), replacement) for pattern, replacement in _RENAMES.get(family, ())]
    out = {}
    for key, value in state.items():
        if _DROPPED.search(key):
            continue
        for pattern, replacement in renames:
            key, hits = pattern.subn(replacement, key)
            if hits:
                break
        out[key] = value
    return out


__all__ = ["FAMILIES", "bert_config", "bert_state", "family_of"]
