"""BERT's family as this package's BERT: RoBERTa (Liu et al. 2019), DistilBERT (Sanh et al. 2019), ALBERT (Lan et
al. 2019) and ELECTRA (Clark et al. 2020).

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

* **ALBERT** (``model_type: albert``): factorized embeddings (``embedding_size`` E, projected to the layers' width by
  ``embedding_hidden_mapping_in``), one layer's weights shared by every layer (``BertConfig.share_layers``), an MLM
  head back down to E, and a sentence-order head (``sop_classifier``) where BERT has its next-sentence head.
* **ELECTRA** (``model_type: electra``): BERT's layers under ``electra.``, factorized embeddings when E differs
  (``embeddings_project``); the discriminator (``ElectraForPreTraining``) says for each token whether it was
  replaced; the generator (``ElectraForMaskedLM``) is a small masked language model (``generator_predictions``,
  ``generator_lm_head``: BERT's MLM head by other names).

A head a family's checkpoint lacks (the pooler, NSP) stays out of the state, as for a BERT checkpoint without it.
"""

from __future__ import annotations

import re

import torch
from torch import nn

from .modeling import ACT2FN, BertConfig, BertModel, BertOutput, BertPreTrainedBase

FAMILIES = ("bert", "roberta", "distilbert", "albert", "electra")
_ALBERT_LAYER = r"^albert\.encoder\.albert_layer_groups\.0\.albert_layers\.0\."

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
    # "{layer}": the one shared layer's tensor, under every layer's name.
    "albert": (
        (r"^albert\.embeddings\.", "bert.embeddings."),
        (r"^albert\.encoder\.embedding_hidden_mapping_in\.", "bert.embeddings_project."),
        (_ALBERT_LAYER + r"attention\.(query|key|value)\.", r"bert.encoder.layer.{layer}.attention.self.\1."),
        (_ALBERT_LAYER + r"attention\.dense\.", "bert.encoder.layer.{layer}.attention.output.dense."),
        (_ALBERT_LAYER + r"attention\.LayerNorm\.", "bert.encoder.layer.{layer}.attention.output.LayerNorm."),
        (_ALBERT_LAYER + r"ffn\.", "bert.encoder.layer.{layer}.intermediate.dense."),
        (_ALBERT_LAYER + r"ffn_output\.", "bert.encoder.layer.{layer}.output.dense."),
        (_ALBERT_LAYER + r"full_layer_layer_norm\.", "bert.encoder.layer.{layer}.output.LayerNorm."),
        (r"^albert\.pooler\.", "bert.pooler.dense."),
        (r"^predictions\.dense\.", "cls.predictions.transform.dense."),
        (r"^predictions\.LayerNorm\.", "cls.predictions.transform.LayerNorm."),
        (r"^predictions\.decoder\.weight$", "cls.predictions.decoder.weight"),
        (r"^predictions\.bias$", "cls.predictions.bias"),
        (r"^sop_classifier\.classifier\.", "cls.seq_relationship."),
        (r"^bert\.encoder\.layer\.0\.", "bert.encoder.layer.{layer}."),  # as this package saves it (save_folder)
    ),
    "electra": (
        (r"^electra\.", "bert."),
        (r"^generator_predictions\.dense\.", "cls.predictions.transform.dense."),
        (r"^generator_predictions\.LayerNorm\.", "cls.predictions.transform.LayerNorm."),
        (r"^generator_lm_head\.weight$", "cls.predictions.decoder.weight"),
        (r"^generator_lm_head\.bias$", "cls.predictions.bias"),
    ),
}
# The decoder's bias is saved twice by transformers (it is the head's ``bias``); position ids are a buffer.
_DROPPED = re.compile(r"(^(lm_head|predictions)\.decoder\.bias$|position_ids$)")

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
    elif family == "albert":
        if data.get("num_hidden_groups", 1) != 1 or data.get("inner_group_num", 1) != 1:
            raise ValueError("an ALBERT with more than one group of shared layers is not supported")
        fields["share_layers"] = True
    config = BertConfig.from_dict(fields)
    for name in _DISTILBERT_FIELDS if family == "distilbert" else ():
        config.extra.pop(name, None)
    config.extra["family"] = family
    return config


def bert_state(family: str, state: dict[str, torch.Tensor], layers: int = 0) -> dict[str, torch.Tensor]:
    """A family's weights under BERT's names (``modeling``'s); a key no rule maps is kept as it is, so that the
    strict load that follows names it. ALBERT's shared layer goes under each of its ``layers`` names."""
    renames = [(re.compile(pattern), replacement) for pattern, replacement in _RENAMES.get(family, ())]
    out = {}
    for key, value in state.items():
        if _DROPPED.search(key):
            continue
        for pattern, replacement in renames:
            key, hits = pattern.subn(replacement, key)
            if hits:
                break
        for name in [key.format(layer=i) for i in range(layers)] if "{layer}" in key else [key]:
            out[name] = value
    return out


def has_discriminator_head(state: dict[str, torch.Tensor]) -> bool:
    """Whether a checkpoint's weights are an ELECTRA discriminator's: it has the replaced-token head."""
    return any(key.startswith("discriminator_predictions.") for key in state)


class ElectraDiscriminatorPredictions(nn.Module):
    """ELECTRA's replaced-token head: a dense layer, the activation, and one score per token (replaced or not)."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = ACT2FN[config.hidden_act]
        self.dense_prediction = nn.Linear(config.hidden_size, 1)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.dense_prediction(self.activation(self.dense(hidden))).squeeze(-1)  # (B, T)


class ElectraForPreTraining(BertPreTrainedBase):
    """ELECTRA's discriminator: the encoder (``bert``, ``electra.`` in its checkpoint) and, for every token, the logit
    of "this token was replaced by the generator" (``logits``, (B, T); sigmoid for the probability)."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.discriminator_predictions = ElectraDiscriminatorPredictions(config)
        self.init_weights()

    def forward(
        self,
        input_ids: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        *,
        output_attentions: bool = False,
        output_hidden_states: bool = False,
        head_mask: torch.Tensor | None = None,
    ) -> BertOutput:
        out = self.bert(
            input_ids,
            token_type_ids,
            attention_mask,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            head_mask=head_mask,
        )
        out.logits = self.discriminator_predictions(out.last_hidden_state)  # (B, T)
        return out


__all__ = ["FAMILIES", "ElectraForPreTraining", "bert_config", "bert_state", "family_of", "has_discriminator_head"]
