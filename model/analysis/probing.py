"""Linear probes per layer, control tasks and selectivity, and the expected layer.

* Probe: multinomial logistic regression on one layer's frozen vectors (standardised with the training words'
  mean and deviation, an affine map, so still linear), trained with L-BFGS to convergence with a small L2
  penalty. All layers are trained at once as one batched problem: their losses are independent, so the sum has
  the same minimum per layer, and one batched matrix product per step is much faster on a CPU than one per layer.
* Control task (Hewitt & Liang 2019, "Designing and Interpreting Probes with Control Tasks"): every word type
  gets a fixed random label, drawn from the task's label distribution; a probe can only learn it by memorising
  word identity. Selectivity = task accuracy − control accuracy: high when the layer encodes the property
  rather than the word.
* Expected layer (Tenney, Das & Pavlick 2019, "BERT Rediscovers the Classical NLP Pipeline", eq. 2): the
  layer-weighted mean of the score gains Δ(ℓ) = score(ℓ) − score(ℓ−1), E[ℓ] = Σ ℓ·Δ(ℓ) / Σ Δ(ℓ). Tenney's probe
  at ℓ reads a mix of layers 0..ℓ, so its score never falls; ours read one layer each, so the score at ℓ is the
  best accuracy of layers 0..ℓ (what a probe that may also read the lower layers would reach at least).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F


@dataclass
class ProbeResult:
    """Held-out accuracy per layer (0 = embeddings) and what the probe saw."""

    accuracy: list[float]
    train_words: int
    test_words: int
    iterations: int


def standardise(train: torch.Tensor, test: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per layer and dimension, subtract the training words' mean and divide by their deviation.

    BERT's vectors have a few dimensions hundreds of times larger than the rest; without this the optimiser
    spends its steps on their scale instead of the task.
    """
    mean = train.mean(dim=1, keepdim=True)  # (L + 1, 1, H)
    std = train.std(dim=1, keepdim=True).clamp_min(1e-6)
    return (train - mean) / std, (test - mean) / std


def train_probes(
    train_x: np.ndarray | torch.Tensor,  # (L + 1, N, H)
    train_y: Sequence[int] | np.ndarray,  # (N,)
    test_x: np.ndarray | torch.Tensor,  # (L + 1, M, H)
    test_y: Sequence[int] | np.ndarray,  # (M,)
    num_classes: int,
    *,
    l2: float = 1e-3,
    max_iter: int = 50,
) -> ProbeResult:
    """One logistic-regression probe per layer; returns each one's accuracy on the test words."""
    xtr, xte = torch.as_tensor(train_x, dtype=torch.float32), torch.as_tensor(test_x, dtype=torch.float32)
    ytr, yte = torch.as_tensor(np.asarray(train_y), dtype=torch.long), torch.as_tensor(np.asarray(test_y))
    if xtr.shape[1] == 0 or xte.shape[1] == 0:
        raise ValueError("a probe needs at least one training and one test word")
    xtr, xte = standardise(xtr, xte)
    n_layers, _, hidden = xtr.shape
    weight = torch.zeros(n_layers, hidden, num_classes, requires_grad=True)
    bias = torch.zeros(n_layers, 1, num_classes, requires_grad=True)
    optimiser = torch.optim.LBFGS(
        [weight, bias], lr=1, max_iter=max_iter, history_size=20, line_search_fn="strong_wolfe"
    )
    target = ytr.expand(n_layers, -1).reshape(-1)

    def closure():
        optimiser.zero_grad(set_to_none=True)
        logits = torch.baddbmm(bias, xtr, weight)  # (L + 1, N, C)
        # mean over words per layer, summed over layers: each layer's probe gets its own full gradient
        loss = F.cross_entropy(logits.reshape(-1, num_classes), target) * n_layers + l2 * weight.pow(2).sum()
        loss.backward()
        return loss

    with torch.enable_grad():
        optimiser.step(closure)
    iterations = optimiser.state[optimiser._params[0]].get("n_iter", 0)
    with torch.no_grad():
        predicted = torch.baddbmm(bias, xte, weight).argmax(dim=-1)  # (L + 1, M)
        accuracy = (predicted == yte).float().mean(dim=1)
    return ProbeResult([round(float(a), 6) for a in accuracy], xtr.shape[1], xte.shape[1], int(iterations))


def control_labels(word_types: Sequence[str], task_labels: Sequence[int], num_classes: int, seed: int = 0) -> list[int]:
    """Hewitt & Liang's control task: one random label per word type, drawn from the task's label distribution
    over these words, the same for every occurrence of the type (in training and test alike)."""
    counts = Counter(task_labels)
    weights = [counts.get(c, 0) for c in range(num_classes)]
    rng = random.Random(seed)
    by_type = {}
    for word_type in sorted(set(word_types)):
        by_type[word_type] = rng.choices(range(num_classes), weights=weights)[0]
    return [by_type[w] for w in word_types]


def selectivity(task_accuracy: Sequence[float], control_accuracy: Sequence[float]) -> list[float]:
    return [round(a - c, 6) for a, c in zip(task_accuracy, control_accuracy)]


def expected_layer(accuracy: Sequence[float]) -> float | None:
    """Tenney's centre of gravity over the layers' score gains (None when no layer gains over layer 0)."""
    best = np.maximum.accumulate(np.asarray(accuracy, dtype=float))
    gains = np.diff(best)  # Δ(ℓ) for ℓ = 1..L, never negative
    if gains.sum() <= 0:
        return None
    return round(float((np.arange(1, len(best)) * gains).sum() / gains.sum()), 4)


def majority_accuracy(train_y: Sequence[int], test_y: Sequence[int]) -> float:
    """What always answering the training words' most common label scores on the test words."""
    most = Counter(train_y).most_common(1)[0][0]
    return round(float(np.mean(np.asarray(test_y) == most)), 6)
