"""Sentence vectors trained with in-batch negatives: Sentence-BERT's multiple-negatives ranking loss (Reimers &
Gurevych 2020, "Making Monolingual Sentence Embeddings Multilingual using Knowledge Distillation", and Henderson
et al. 2017) and DPR's in-batch training (Karpukhin et al. 2020, section 3.2).

A batch holds B translation pairs (English, Chinese). Both sides go through the same encoder and are mean-pooled
(``model.analysis.sentence_vectors``); S[i, j] is the cosine of English i and Chinese j, times a scale. Pair i's
translation is the right answer among the batch's B Chinese sentences, the other B - 1 are its negatives: a
cross-entropy over each row of S with the diagonal as its labels, and the same over each column (Chinese → English).

The loop follows the house's order (lr schedule, eval, forward/backward, clip, step, zero_grad, log) and reports
through ``on_step(step, metrics)``; every ``eval_every`` steps, and at the start and the end, it measures recall@1
en → zh on the held-out pool. Plain torch: no UI.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from ..analysis.sentence_vectors import batch_ids, encoder_of, pool_vectors
from ..tokenization import BertTokenizer
from .pretrain import make_optimizer

Pair = tuple[str, str]


@dataclass(frozen=True)
class ContrastiveSettings:
    """One run's recipe; the defaults are the page's minute on a laptop (bench/results/sentence_vectors.md)."""

    batch_size: int = 32  # pairs per batch: each sentence has batch_size - 1 negatives
    lr: float = 5e-5
    weight_decay: float = 0.01
    warmup_steps: int = 10
    scale: float = 20.0  # cosine × scale are the logits (sentence-transformers' MultipleNegativesRankingLoss)
    max_tokens: int = 32
    max_seconds: float | None = 60.0
    max_steps: int | None = None
    eval_every: int = 15  # steps between two measurements of recall@1 on the held-out pool
    seed: int = 0


def contrastive_loss(first: torch.Tensor, second: torch.Tensor, scale: float = 20.0) -> torch.Tensor:
    """In-batch negatives, both directions: first (B, H) and second (B, H), row i of each a positive pair.

    S = scale · cos(first_i, second_j) (B, B); the loss is the mean of cross-entropy(S, diag) and
    cross-entropy(Sᵀ, diag)."""
    scores = scale * F.normalize(first, dim=-1) @ F.normalize(second, dim=-1).T  # (B, B)
    labels = torch.arange(len(scores), device=scores.device)
    return (F.cross_entropy(scores, labels) + F.cross_entropy(scores.T, labels)) / 2


def mean_vectors(encoder, tokenizer: BertTokenizer, texts: Sequence[str], max_tokens: int) -> torch.Tensor:
    """Mean-pooled last-layer vectors (B, H), with a graph for the backward pass."""
    ids, mask, _ = batch_ids(tokenizer, list(texts), max_tokens)
    hidden = encoder(ids, attention_mask=mask).last_hidden_state  # (B, T, H)
    weights = mask.to(hidden.dtype).unsqueeze(-1)  # (B, T, 1)
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


def pool_recall(model, tokenizer: BertTokenizer, pool: Sequence[Pair]) -> dict[str, float]:
    """Recall@1 and @5, en → zh, of mean pooling over the held-out pool."""
    was_training = encoder_of(model).training
    encoder_of(model).eval()
    vectors = pool_vectors(model, tokenizer, pool, ("mean",))["mean"]
    encoder_of(model).train(was_training)
    return {"recall_at_1": vectors.recall(1), "recall_at_5": vectors.recall(5)}


@dataclass
class ContrastiveResult:
    steps: int
    seconds: float  # of training, the evaluations after the first included
    history: list[dict] = field(default_factory=list)  # every step: step, loss, lr, seconds (+ recall when measured)
    evaluations: list[dict] = field(default_factory=list)  # step, seconds, recall_at_1, recall_at_5
    stopped: bool = False  # by should_stop rather than the budget

    @property
    def before(self) -> dict:
        return self.evaluations[0]

    @property
    def after(self) -> dict:
        return self.evaluations[-1]


def learning_rate(settings: ContrastiveSettings, step: int, elapsed: float) -> float:
    """Linear warm-up over ``warmup_steps``, then linear decay to zero at the end of the budget (time or steps)."""
    if step < settings.warmup_steps:
        return settings.lr * (step + 1) / settings.warmup_steps
    progress = 0.0
    if settings.max_seconds:
        progress = elapsed / settings.max_seconds
    if settings.max_steps:
        progress = max(progress, step / settings.max_steps)
    return settings.lr * max(0.0, 1.0 - min(progress, 1.0))


def train_contrastive(
    model,
    tokenizer: BertTokenizer,
    pairs: Sequence[Pair],
    pool: Sequence[Pair],
    settings: ContrastiveSettings = ContrastiveSettings(),
    *,
    on_step: Callable[[int, dict], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ContrastiveResult:
    """Train ``model``'s encoder in place on translation ``pairs``; recall@1 on ``pool`` before, every
    ``eval_every`` steps and after. Stops at ``max_seconds`` or ``max_steps``, or when ``should_stop()``."""
    if len(pairs) < 2:
        raise ValueError("in-batch negatives need at least two training pairs")
    if settings.max_seconds is None and settings.max_steps is None:
        raise ValueError("give the run a budget: max_seconds or max_steps")
    encoder = encoder_of(model)
    encoder.requires_grad_(True)  # the whole encoder trains; a model from the app's shared cache comes frozen
    optimizer = make_optimizer(encoder, settings.lr, settings.weight_decay)
    rng = random.Random(settings.seed)
    torch.manual_seed(settings.seed)
    result = ContrastiveResult(0, 0.0)
    started = time.time()

    def measure(step: int) -> dict:
        entry = {"step": step, "seconds": time.time() - started, **pool_recall(model, tokenizer, pool)}
        result.evaluations.append(entry)
        return entry

    first = measure(0)
    if on_step is not None:
        on_step(0, {"step": 0, "loss": None, "lr": 0.0, **first})
    # The budget starts after the first measurement, so that a busy machine's slow start never eats a short run.
    started = time.time()
    order: list[int] = []
    step = 0
    encoder.train()
    while True:
        elapsed = time.time() - started
        out_of_budget = (settings.max_seconds is not None and elapsed >= settings.max_seconds) or (
            settings.max_steps is not None and step >= settings.max_steps
        )
        if out_of_budget or (should_stop is not None and should_stop()):
            result.stopped = not out_of_budget
            break
        lr = learning_rate(settings, step, elapsed)
        for group in optimizer.param_groups:
            group["lr"] = lr
        if len(order) < settings.batch_size:
            order = rng.sample(range(len(pairs)), len(pairs))
        batch = [pairs[i] for i in order[: settings.batch_size]]
        del order[: settings.batch_size]
        en = mean_vectors(encoder, tokenizer, [p[0] for p in batch], settings.max_tokens)
        zh = mean_vectors(encoder, tokenizer, [p[1] for p in batch], settings.max_tokens)
        loss = contrastive_loss(en, zh, settings.scale)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        metrics = {"step": step, "loss": loss.item(), "lr": lr, "seconds": time.time() - started}
        if settings.eval_every and step % settings.eval_every == 0:
            metrics.update(measure(step))
        result.history.append(metrics)
        if on_step is not None:
            on_step(step, dict(metrics))
    if result.evaluations[-1]["step"] != step:
        last = measure(step)
        if on_step is not None:
            on_step(step, {"step": step, "loss": None, "lr": 0.0, **last})
    encoder.eval()
    result.steps, result.seconds = step, time.time() - started
    return result
