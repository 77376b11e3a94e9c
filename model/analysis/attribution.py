"""Integrated gradients (Sundararajan, Taly & Yan 2017, through Captum): how much each input word moved the model's
log-probability of its answer at a [MASK].

The path runs from a baseline to the sentence in the space of word embeddings: the baseline has ``[PAD]``'s
embedding at every word and the sentence's own at ``[CLS]``, ``[SEP]`` and the ``[MASK]`` read, so positions,
segments and the question asked stay the same along the path and those tokens get no credit. By completeness, the
scores add up to log p(answer | sentence) - log p(answer | baseline), up to the integral's error, which Captum
reports as ``delta``.
"""

from __future__ import annotations

import torch

from ..checkpoint import LoadedBert
from ..inference import _mask_positions, encode, pretraining_model
from ..results import Prediction, TokenAttributions

IG_STEPS = 48  # Gauss-Legendre points on the path: the sum misses completeness by under 1% on the embedded model


def integrated_gradients(bundle: LoadedBert, text: str, *, steps: int = IG_STEPS) -> TokenAttributions:
    """Each token's share of the move from the baseline to ``text`` in log p(answer) at the first [MASK], where the
    answer is the model's own top guess there."""
    from captum.attr import IntegratedGradients  # imported here: only this analysis needs Captum

    model = pretraining_model(bundle)
    tokenizer = bundle.tokenizer
    enc = encode(bundle, text)
    index = _mask_positions(bundle, text, enc)[0]
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])  # (1, T)
    read = torch.zeros_like(ids, dtype=torch.bool)
    read[0, index] = True
    embedding = model.bert.embeddings.word_embeddings(ids).detach()  # (1, T, H)
    kept = torch.tensor([[s or i == index for i, s in enumerate(enc.special)]])  # (1, T): the same on the path
    pad = model.bert.embeddings.word_embeddings.weight[tokenizer.token_to_id("[PAD]")].detach()
    baseline = torch.where(kept[..., None], embedding, pad)

    def log_probs(embeds: torch.Tensor) -> torch.Tensor:  # (n, T, H) -> (n, V)
        n = embeds.size(0)
        out = model(ids.expand(n, -1), types.expand(n, -1), mlm_positions=read.expand(n, -1), inputs_embeds=embeds)
        return out.mlm_logits.float().log_softmax(-1)

    with torch.no_grad():
        start, end = log_probs(torch.cat([baseline, embedding]))
    target = int(end.argmax())
    with torch.enable_grad():
        scores, delta = IntegratedGradients(lambda e: log_probs(e)[:, target]).attribute(
            embedding, baselines=baseline, n_steps=steps, internal_batch_size=steps, return_convergence_delta=True
        )
    answer = Prediction(tokenizer.id_to_token(target), target, float(end[target].exp()))
    return TokenAttributions(
        text=text,
        tokens=enc.tokens,
        special=enc.special,
        index=index,
        answer=answer,
        scores=scores.sum(-1)[0].tolist(),  # (T,): each token's dot product along the path
        start=float(start[target]),
        end=float(end[target]),
        delta=float(delta),
        steps=steps,
    )
