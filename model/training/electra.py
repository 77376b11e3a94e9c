"""ELECTRA's pre-training (Clark et al. 2020), at the live preset's size: replaced-token detection.

A small generator, itself a masked language model, fills the masked positions with words it samples; the
discriminator, the model that is kept, reads the whole corrupted sentence and says for every token whether it is the
original or a replacement. MLM learns from the 15% of tokens that were masked; the discriminator learns from every
token. The two are trained together on the generator's MLM loss plus 50 times the discriminator's (the paper's
weight); the generator is half the discriminator's width and shares its embeddings, as the paper's best setting.
ELECTRA has no next-sentence task.

Module names follow Hugging Face's ``ElectraForPreTraining`` (``electra.*``, ``discriminator_predictions.*``); the
generator is a BERT with factorized embeddings, which are the discriminator's own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F
from torch import nn

from ..modeling import ACT2FN, BertConfig, BertForPreTraining, BertModel, BertPreTrainedBase

DISCRIMINATOR_WEIGHT = 50.0  # λ in the paper: the per-token binary loss is much smaller than the MLM loss
REPLACED_SAMPLE_SEED = 12345  # held-out scoring: the same replacements for every evaluation of every run


class ElectraDiscriminatorPredictions(nn.Module):
    """Per token: a logit for "this token was replaced"."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = ACT2FN[config.hidden_act]
        self.dense_prediction = nn.Linear(config.hidden_size, 1)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:  # (B, T, H) -> (B, T)
        return self.dense_prediction(self.activation(self.dense(hidden))).squeeze(-1)


@dataclass
class Corrupted:
    input_ids: torch.Tensor  # (B, T): the sentence with the generator's samples at the masked positions
    replaced: torch.Tensor  # (B, T) bool: where the sample differs from the original token


@dataclass
class ElectraOutput:
    loss: torch.Tensor  # the generator's MLM loss + DISCRIMINATOR_WEIGHT x the discriminator's
    mlm_loss: torch.Tensor
    rtd_loss: torch.Tensor
    mlm_logits: torch.Tensor  # (N, V): the generator's, at the masked positions
    rtd_logits: torch.Tensor  # (B, T): the discriminator's "replaced" logit per token
    corrupted: Corrupted


class ElectraForPreTraining(BertPreTrainedBase):
    """Generator and discriminator, trained together; ``forward`` takes MLM batches as BERT's pre-training does."""

    def __init__(self, config: BertConfig, generator_hidden: int | None = None):
        super().__init__()
        self.config = config
        hidden = generator_hidden or config.hidden_size // 2
        self.generator = BertForPreTraining(
            replace(
                config,
                hidden_size=hidden,
                num_attention_heads=max(1, config.num_attention_heads * hidden // config.hidden_size),
                intermediate_size=config.intermediate_size * hidden // config.hidden_size,
                embedding_size=config.embedding_width,
            )
        )
        self.electra = BertModel(config)
        self.discriminator_predictions = ElectraDiscriminatorPredictions(config)
        self.init_weights()

    def tie_weights(self) -> None:
        # One embedding table for both, the generator's output layer reading it too (the paper's tied embeddings).
        self.generator.bert.embeddings = self.electra.embeddings
        self.generator.tie_weights()

    def corrupt(self, gen_logits: torch.Tensor, input_ids: torch.Tensor, mlm_labels: torch.Tensor, generator=None):
        """The generator's samples in place of the masked tokens (the original elsewhere)."""
        chosen = mlm_labels != -100
        original = torch.where(chosen, mlm_labels, input_ids)
        with torch.no_grad():
            sampled = torch.multinomial(gen_logits.detach().float().softmax(-1), 1, generator=generator).squeeze(-1)
        corrupted = original.clone()
        corrupted[chosen] = sampled
        return Corrupted(corrupted, corrupted != original)

    def discriminate(self, input_ids, token_type_ids, attention_mask) -> torch.Tensor:
        """(B, T) logits of "replaced"."""
        return self.discriminator_predictions(self.electra(input_ids, token_type_ids, attention_mask).last_hidden_state)

    def forward(
        self,
        input_ids: torch.Tensor,  # (B, T), masked as for MLM
        token_type_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        *,
        mlm_labels: torch.Tensor,  # (B, T), the original token where masked, -100 elsewhere
        nsp_labels: None = None,  # ELECTRA has no sentence task; the argument is pre-training's loop's
        generator: torch.Generator | None = None,  # the samples' randomness (held-out scoring fixes it)
    ) -> ElectraOutput:
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        gen = self.generator(input_ids, token_type_ids, attention_mask, mlm_labels=mlm_labels)
        corrupted = self.corrupt(gen.mlm_logits, input_ids, mlm_labels, generator)
        logits = self.discriminate(corrupted.input_ids, token_type_ids, attention_mask)
        real = attention_mask.bool()
        rtd_loss = F.binary_cross_entropy_with_logits(logits[real], corrupted.replaced[real].float())
        loss = gen.loss + DISCRIMINATOR_WEIGHT * rtd_loss
        return ElectraOutput(loss, gen.loss, rtd_loss, gen.mlm_logits, logits, corrupted)


def ranked_above(scores: torch.Tensor, positive: torch.Tensor) -> float:
    """How often a positive scores above a negative, over every (positive, negative) pair (ties count half): the
    area under the ROC curve, 0.5 for scores that know nothing, whatever the threshold."""
    pos, neg = scores[positive].double(), scores[~positive].double()
    if not len(pos) or not len(neg):
        return 0.5
    above = (pos[:, None] > neg[None, :]).double().mean()
    tied = (pos[:, None] == neg[None, :]).double().mean()
    return float(above + tied / 2)


@torch.no_grad()
def evaluate(model: ElectraForPreTraining, held: list[dict], mask_token_id: int, most_frequent_id: int) -> dict:
    """The generator's held-out top-1 at [MASK] (beside the word-frequency baseline) and MLM loss; for the
    discriminator, over every real token of the corrupted held-out sentences: how often a replaced token looks more
    replaced to it than an original one (``rtd_auc``, chance 0.5; a young discriminator learns this long before any
    token passes an even chance of being replaced), its accuracy at that threshold beside always answering
    "original", and how many of the replaced tokens it finds there."""
    was_training = model.training
    model.eval()
    sampler = torch.Generator().manual_seed(REPLACED_SAMPLE_SEED)
    right = total = baseline = targeted = 0
    mlm_loss = 0.0
    rtd_right = rtd_total = originals = found = replaced_total = 0
    all_scores, all_replaced = [], []
    for b in held:
        out = model(
            b["input_ids"], b["token_type_ids"], b["attention_mask"], mlm_labels=b["mlm_labels"], generator=sampler
        )
        chosen = b["mlm_labels"] != -100
        targets = b["mlm_labels"][chosen]
        masked = b["input_ids"][chosen] == mask_token_id
        right += int((out.mlm_logits.argmax(-1)[masked] == targets[masked]).sum())
        baseline += int((targets[masked] == most_frequent_id).sum())
        total += int(masked.sum())
        mlm_loss += float(F.cross_entropy(out.mlm_logits, targets, reduction="sum"))
        targeted += len(targets)
        real = b["attention_mask"].bool()
        said = out.rtd_logits > 0
        replaced = out.corrupted.replaced
        rtd_right += int((said == replaced)[real].sum())
        rtd_total += int(real.sum())
        originals += int((~replaced)[real].sum())
        found += int((said & replaced)[real].sum())
        replaced_total += int(replaced[real].sum())
        all_scores.append(out.rtd_logits[real])
        all_replaced.append(replaced[real])
    model.train(was_training)
    return {
        "heldout_top1": right / max(1, total),
        "frequency_baseline_top1": baseline / max(1, total),
        "mlm_loss": mlm_loss / max(1, targeted),
        "rtd_auc": ranked_above(torch.cat(all_scores), torch.cat(all_replaced)),
        "rtd_acc": rtd_right / max(1, rtd_total),
        "rtd_baseline": originals / max(1, rtd_total),
        "rtd_recall": found / max(1, replaced_total),
    }


@torch.no_grad()
def replaced_view(model: ElectraForPreTraining, tokenizer, text: str, *, rate: float = 0.15, seed: int = 0) -> dict:
    """``text`` as the discriminator sees it: ``rate`` of its tokens masked (at least one, when it has one), the
    generator's samples in their place, and for every token the discriminator's probability that it was replaced.
    A text longer than the model's positions is cut to them."""
    ids = tokenizer.encode(text).ids
    longest = model.config.max_position_embeddings
    if len(ids) > longest:
        ids = [*ids[: longest - 1], tokenizer.sep_token_id]
    ids = torch.tensor([ids])
    inner = torch.arange(1, ids.shape[1] - 1)  # not [CLS] or the last [SEP]
    rng = torch.Generator().manual_seed(seed)
    chosen = inner[torch.randperm(len(inner), generator=rng)[: max(1, round(rate * len(inner)))]]
    types, mask = torch.zeros_like(ids), torch.ones_like(ids)
    was_training = model.training
    model.eval()
    if len(chosen):
        labels = torch.full_like(ids, -100)
        labels[0, chosen] = ids[0, chosen]
        masked = ids.clone()
        masked[0, chosen] = tokenizer.mask_token_id
        out = model(masked, types, mask, mlm_labels=labels, generator=rng)
        shown, replaced, logits = out.corrupted.input_ids, out.corrupted.replaced, out.rtd_logits
    else:  # nothing between [CLS] and [SEP]: nothing to replace
        shown, replaced, logits = ids, torch.zeros_like(ids, dtype=torch.bool), model.discriminate(ids, types, mask)
    model.train(was_training)
    return {
        "tokens": [tokenizer.id_to_token(int(i)) for i in shown[0]],
        "original": [tokenizer.id_to_token(int(i)) for i in ids[0]],
        "replaced": replaced[0].tolist(),
        "chosen": sorted(int(i) for i in chosen),
        "p_replaced": [round(float(p), 4) for p in logits[0].sigmoid()],
    }


__all__ = [
    "DISCRIMINATOR_WEIGHT",
    "ElectraDiscriminatorPredictions",
    "ElectraForPreTraining",
    "ElectraOutput",
    "evaluate",
    "replaced_view",
]
