"""Fine-tuning heads (Devlin et al. 2019, section 4): the pre-trained ``bert`` encoder plus one small Linear layer.

* ``BertForTaskHead``: one class per sentence, read from the pooled [CLS] (section 4.1, GLUE), or one tag per
  token (section 5.3, NER).
* ``BertForQuestionAnswering``: a start and an end score for every token (section 4.2, SQuAD v1.1); the answer
  is the best span of the passage.
* ``BertForMultipleChoice``: one score per ``[CLS] context [SEP] ending [SEP]``, a softmax over the endings
  (section 4.4, SWAG).

Attribute names are Hugging Face's checkpoint keys (``classifier``, ``qa_outputs``), as in ``model.modeling``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .modeling import BertConfig, BertModel, BertOutput, BertPreTrainedBase

CLS_ROW = torch.tensor([0])  # position of [CLS], the only row a sentence classifier reads


class BertForTaskHead(BertPreTrainedBase):
    """Fine-tuning: the pretrained ``bert`` plus one Linear ``classifier``.

    ``per_token=False`` reads the pooled [CLS] (sentence classification, ``BertForSequenceClassification``);
    ``per_token=True`` reads every position (tagging, ``BertForTokenClassification``). Same keys as HF.
    """

    def __init__(self, config: BertConfig, per_token: bool):
        super().__init__()
        self.config = config
        self.per_token = per_token
        self.bert = BertModel(config)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.init_weights()

    def forward(
        self,
        input_ids,
        token_type_ids=None,
        attention_mask=None,
        *,
        labels: torch.Tensor | None = None,  # (B,) or (B, T) with -100 where no loss
        output_attentions: bool = False,
        inputs_embeds: torch.Tensor | None = None,  # (B, T, H): the word embeddings, given instead of looked up
    ) -> BertOutput:
        if self.per_token or output_attentions:
            out = self.bert(
                input_ids,
                token_type_ids,
                attention_mask,
                output_attentions=output_attentions,
                inputs_embeds=inputs_embeds,
            )
            features = out.last_hidden_state if self.per_token else out.pooled
        else:
            # Only [CLS] reaches the classifier, so the last layer computes that row alone (about a sixth less
            # work for six layers); its last_hidden_state is then (B, 1, H), and the pooler reads row 0.
            out = self.bert(
                input_ids,
                token_type_ids,
                attention_mask,
                last_layer_rows=CLS_ROW.to(input_ids.device),
                inputs_embeds=inputs_embeds,
            )
            out.pooled = features = self.bert.pooler(out.last_hidden_state)  # (B, H)
        out.logits = self.classifier(self.dropout(features))  # (B, T, C) or (B, C)
        if labels is not None:
            out.loss = F.cross_entropy(
                out.logits.reshape(-1, out.logits.size(-1)), labels.reshape(-1), ignore_index=-100
            )
        return out

    @property
    def head(self) -> nn.Module:
        """The layer fine-tuning adds (it starts from random weights, so it may get its own learning rate)."""
        return self.classifier


class BertForQuestionAnswering(BertPreTrainedBase):
    """Extractive question answering: ``[CLS] question [SEP] passage [SEP]`` in, two scores per token out.

    One Linear ``qa_outputs`` (H -> 2) holds the two learned vectors of section 4.2: S, whose dot product with a
    token's final hidden state scores it as the answer's start, and E, as its end. ``logits`` is (B, T, 2):
    ``[..., 0]`` the start scores, ``[..., 1]`` the end scores (Hugging Face's ``start_logits``, ``end_logits``).
    The loss is the mean of the two cross-entropies over positions, as in Hugging Face; which spans may be
    answers (the passage's, start <= end, not too long) is the reader's business, ``model.inference_qa``.
    """

    per_token = True  # every position is read (the fine-tuning loop asks)

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.qa_outputs = nn.Linear(config.hidden_size, 2)
        self.init_weights()

    @property
    def head(self) -> nn.Module:
        return self.qa_outputs

    def forward(
        self,
        input_ids,
        token_type_ids=None,
        attention_mask=None,
        *,
        labels: torch.Tensor | None = None,  # (B, 2): the answer's start and end token positions
        output_attentions: bool = False,
    ) -> BertOutput:
        out = self.bert(input_ids, token_type_ids, attention_mask, output_attentions=output_attentions)
        out.logits = self.qa_outputs(out.last_hidden_state)  # (B, T, 2)
        if labels is not None:
            start, end = out.logits.unbind(dim=-1)  # (B, T) each
            out.loss = (F.cross_entropy(start, labels[:, 0]) + F.cross_entropy(end, labels[:, 1])) / 2
        return out


class BertForMultipleChoice(BertPreTrainedBase):
    """Multiple choice (SWAG): each of C endings is read with the context as one ``[CLS] context [SEP] ending [SEP]``
    pair, one Linear ``classifier`` (H -> 1) scores its pooled [CLS], and a softmax over the C scores picks the
    ending. Inputs are (B, C, T); ``logits`` is (B, C). Hugging Face's keys and loss."""

    per_token = False

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size, 1)
        self.init_weights()

    @property
    def head(self) -> nn.Module:
        return self.classifier

    def forward(
        self,
        input_ids,  # (B, C, T)
        token_type_ids=None,
        attention_mask=None,
        *,
        labels: torch.Tensor | None = None,  # (B,): the right ending's index
        output_attentions: bool = False,
    ) -> BertOutput:
        B, C, T = input_ids.shape

        def flat(x):  # (B, C, T) -> (B*C, T): every ending is one sequence to the encoder
            return None if x is None else x.reshape(B * C, T)

        if output_attentions:
            out = self.bert(flat(input_ids), flat(token_type_ids), flat(attention_mask), output_attentions=True)
        else:  # only [CLS] is read: the last layer computes that row alone, as BertForTaskHead does
            out = self.bert(
                flat(input_ids),
                flat(token_type_ids),
                flat(attention_mask),
                last_layer_rows=CLS_ROW.to(input_ids.device),
            )
            out.pooled = self.bert.pooler(out.last_hidden_state)  # (B*C, H)
        out.logits = self.classifier(self.dropout(out.pooled)).view(B, C)  # (B, C)
        if labels is not None:
            out.loss = F.cross_entropy(out.logits, labels)
        return out


__all__ = ["CLS_ROW", "BertForMultipleChoice", "BertForQuestionAnswering", "BertForTaskHead"]
