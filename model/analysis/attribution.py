"""Integrated gradients (Sundararajan, Taly & Yan 2017, through Captum): how much each input word moved a model's
log-probability of its answer, at a [MASK] (``integrated_gradients``) or for a fine-tuned classifier's label
(``classifier_integrated_gradients``).

The path runs from a baseline to the sentence in the space of word embeddings: the baseline has ``[PAD]``'s
embedding at every word and the sentence's own at ``[CLS]``, ``[SEP]`` and the ``[MASK]`` read, so positions,
segments and the question asked stay the same along the path and those tokens get no credit. By completeness, the
scores add up to log p(answer | sentence) - log p(answer | baseline), up to the integral's error, which Captum
reports as ``delta``.

Beside them, gradient × input: the gradient at the sentence alone times (sentence - baseline), the path's integral
read at its end point. It needs one backward pass instead of ``steps``, and by how far it misses completeness a
student sees why the path is walked.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..checkpoint import LoadedBert
from ..inference import _mask_positions, encode, pretraining_model
from ..results import Prediction, TokenAttributions
from ..task_heads import BertForTaskHead
from ..tokenization import BertTokenizer

IG_STEPS = 48  # Gauss-Legendre points on the path: the sum misses completeness by under 1% on the embedded model


def integrated_gradients(bundle: LoadedBert, text: str, *, steps: int = IG_STEPS) -> TokenAttributions:
    """Each token's share of the move from the baseline to ``text`` in log p(answer) at the first [MASK], where the
    answer is the model's own top guess there."""
    model = pretraining_model(bundle)
    enc = encode(bundle, text)
    index = _mask_positions(bundle, text, enc)[0]
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])  # (1, T)
    read = torch.zeros_like(ids, dtype=torch.bool)
    read[0, index] = True

    def log_probs(embeds: torch.Tensor) -> torch.Tensor:  # (n, T, H) -> (n, V)
        n = embeds.size(0)
        out = model(ids.expand(n, -1), types.expand(n, -1), mlm_positions=read.expand(n, -1), inputs_embeds=embeds)
        return out.mlm_logits.float().log_softmax(-1)

    kept = [special or i == index for i, special in enumerate(enc.special)]
    table, name = model.bert.embeddings.word_embeddings, bundle.tokenizer.id_to_token
    shares = _attribute(table, bundle.tokenizer, ids, kept, log_probs, steps, name)
    return TokenAttributions(text=text, tokens=enc.tokens, special=enc.special, index=index, **shares)


def classifier_integrated_gradients(
    model: BertForTaskHead, tokenizer: BertTokenizer, text: str, labels, *, steps: int = IG_STEPS
) -> TokenAttributions:
    """Each token's share of the move in log p(label) for a fine-tuned sentence classifier, where the label is the
    one it gives ``text``; ``index`` is None (no [MASK] is read)."""
    if model.per_token:
        raise ValueError("integrated gradients here explain one label for a sentence, not a tag per token")
    enc = tokenizer.encode(text, max_length=min(tokenizer.max_length, model.config.max_position_embeddings))
    ids = torch.tensor([enc.ids])  # (1, T)

    def log_probs(embeds: torch.Tensor) -> torch.Tensor:  # (n, T, H) -> (n, C)
        return model(ids.expand(embeds.size(0), -1), inputs_embeds=embeds).logits.float().log_softmax(-1)

    shares = _attribute(
        model.bert.embeddings.word_embeddings, tokenizer, ids, enc.special, log_probs, steps, labels.__getitem__
    )
    return TokenAttributions(text=text, tokens=enc.tokens, special=enc.special, index=None, **shares)


def _attribute(
    table: torch.nn.Embedding,
    tokenizer: BertTokenizer,
    ids: torch.Tensor,
    kept: list[bool],
    log_probs: Callable[[torch.Tensor], torch.Tensor],
    steps: int,
    name: Callable[[int], str],
) -> dict:
    """``TokenAttributions``' fields but the sentence's own: integrated gradients and gradient × input of the top
    class of ``log_probs`` (n, T, H) -> (n, C), named by ``name``, from the baseline that has [PAD] at every token
    but those ``kept``."""
    from captum.attr import IntegratedGradients  # imported here: only this analysis needs Captum

    embedding = table(ids).detach()  # (1, T, H)
    pad = table.weight[tokenizer.pad_token_id].detach()
    baseline = torch.where(torch.tensor(kept)[None, :, None], embedding, pad)  # (1, T, H)
    with torch.no_grad():
        start, end = log_probs(torch.cat([baseline, embedding]))
    target = int(end.argmax())
    with torch.enable_grad():
        scores, delta = IntegratedGradients(lambda e: log_probs(e)[:, target]).attribute(
            embedding, baselines=baseline, n_steps=steps, internal_batch_size=steps, return_convergence_delta=True
        )
        at_sentence = embedding.clone().requires_grad_(True)
        (gradient,) = torch.autograd.grad(log_probs(at_sentence)[0, target], at_sentence)
    return {
        "answer": Prediction(name(target), target, float(end[target].exp())),
        "scores": scores.sum(-1)[0].tolist(),  # (T,): each token's dot product along the path
        "gradient_x_input": (gradient * (embedding - baseline)).sum(-1)[0].tolist(),  # (T,)
        "start": float(start[target]),
        "end": float(end[target]),
        "delta": float(delta),
        "steps": steps,
    }
