"""What a fine-tuned model must beat: the majority class, a bag of characters (of words, in English), word overlap.

"Did BERT help?" has an answer only beside these: always answering the most common label, and a logistic
regression that knows which characters (Chinese) or words (English) a text contains but not their order. A pair of
sentences is judged by how many words they share, and a choice of endings by the ending that shares most with the
context. Each is scored on the same held-out examples as the fine-tuned model.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import torch

from ..data.paraphrase import overlap, words

# A Chinese text is a bag of its characters; a run of Latin letters or digits counts as one word.
_UNITS = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


def majority_accuracy(heldout_labels: Sequence[int]) -> float:
    """Held-out accuracy of always answering the held-out set's most common label."""
    if not heldout_labels:
        return 0.0
    return Counter(heldout_labels).most_common(1)[0][1] / len(heldout_labels)


def text_units(text: str) -> set[str]:
    """The characters of a Chinese text and the words of an English one, lower-cased, each once."""
    return set(_UNITS.findall(text.lower()))


@torch.enable_grad()
def bag_of_characters_accuracy(
    train: Sequence[tuple[str, int]],
    heldout: Sequence[tuple[str, int]],
    num_labels: int,
    *,
    min_count: int = 2,
    steps: int = 100,
    lr: float = 0.03,
    weight_decay: float = 1e-3,
) -> float:
    """Held-out accuracy of a logistic regression on which units (``text_units``) each text contains.

    Trained full-batch with Adam from zero weights, so the result does not depend on a random seed. Units in
    fewer than ``min_count`` training texts are left out: they cannot generalise, and dropping them halves
    the features (1,000 reviews: 1,805 characters instead of 2,642; same held-out accuracy within a point),
    so a page gets the number in a second or two. Units never seen in training are ignored."""
    counts = Counter(unit for text, _ in train for unit in text_units(text))
    index = {unit: i for i, unit in enumerate(sorted(u for u, n in counts.items() if n >= min_count))}

    def features(rows):
        x = torch.zeros(len(rows), len(index))  # (N, units), 1 where the text contains the unit
        for r, (text, _) in enumerate(rows):
            x[r, [index[u] for u in text_units(text) if u in index]] = 1.0
        return x, torch.tensor([label for _, label in rows])

    (x, y), (x_heldout, y_heldout) = features(train), features(heldout)
    linear = torch.nn.Linear(len(index), num_labels)
    torch.nn.init.zeros_(linear.weight)
    torch.nn.init.zeros_(linear.bias)
    optimizer = torch.optim.Adam(linear.parameters(), lr=lr)
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(linear(x), y) + weight_decay * linear.weight.square().sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        return float((linear(x_heldout).argmax(-1) == y_heldout).float().mean())


def overlap_threshold_hits(train: Sequence[tuple], heldout: Sequence[tuple], lang: str) -> list[float]:
    """For each held-out pair, 1 if calling it a paraphrase when its sentences share at least a threshold of their
    words (``paraphrase.overlap``; characters in Chinese) is right, else 0; the threshold chosen on the training
    pairs."""
    train_scores = [(overlap(a, b, lang), label) for a, b, label in train]
    candidates = sorted({score for score, _ in train_scores}) or [0.0]
    best = max(candidates, key=lambda t: sum((score >= t) == bool(label) for score, label in train_scores))
    return [float((overlap(a, b, lang) >= best) == bool(label)) for a, b, label in heldout]


def overlap_threshold_accuracy(train: Sequence[tuple], heldout: Sequence[tuple], lang: str) -> float:
    hits = overlap_threshold_hits(train, heldout, lang)
    return sum(hits) / len(hits) if hits else 0.0


def most_shared_words_hits(heldout: Sequence[tuple], lang: str) -> list[float]:
    """For each held-out item, what choosing the ending that shares most words (characters in Chinese) with the
    context scores: 1 or 0, and 1/k for a tie between k endings with the right one among them (what choosing among
    them at random scores on average)."""
    hits = []
    for context, endings, label in heldout:
        shared = [len(words(context, lang) & words(ending, lang)) for ending in endings]
        best = [i for i, n in enumerate(shared) if n == max(shared)]
        hits.append((label in best) / len(best))
    return hits


def most_shared_words_accuracy(heldout: Sequence[tuple], lang: str) -> float:
    hits = most_shared_words_hits(heldout, lang)
    return sum(hits) / len(hits) if hits else 0.0


def pair_and_choice_baselines(kind: str, train: Sequence[tuple], heldout: Sequence[tuple], lang: str) -> dict:
    """The baselines of a sentence-pair task (the majority class, word overlap) or a multiple-choice one (the ending
    sharing most words, chance), by name, on ``heldout``; empty for other kinds."""
    if kind == "pair":
        return {
            "majority": majority_accuracy([label for *_, label in heldout]),
            "word_overlap": overlap_threshold_accuracy(train, heldout, lang),
        }
    if kind == "choice":
        return {
            "most_shared_words": most_shared_words_accuracy(heldout, lang),
            "chance": 1 / len(heldout[0][1]) if heldout else 0.0,
        }
    return {}
