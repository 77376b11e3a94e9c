"""How much of a fixed sample a model of a given size reads on a page.

The head lab's statistics and the sentence-vectors pool are sized for the embedded model (6 layers, 384 wide). A
model's work per token grows as layers x hidden^2, so BERT-Large does 28 times the embedded model's work: the whole
sample would keep a page waiting minutes on a two-core machine. A larger model reads every k-th item instead, the
smallest k that keeps its work within a budget (SAMPLE_BUDGET times the embedded model's), and the page says which
share. A deployment on slower cores sets a smaller budget, ``BERT_LAB_SAMPLE_BUDGET`` (a positive number).
"""

from __future__ import annotations

import math
import os

SAMPLE_BUDGET = 4
EMBEDDED_WORK = 6 * 384**2  # the embedded model's layers x hidden^2


def sample_budget() -> float:
    """How many times the embedded model's work a larger model may spend: ``BERT_LAB_SAMPLE_BUDGET``, else
    ``SAMPLE_BUDGET``."""
    value = os.environ.get("BERT_LAB_SAMPLE_BUDGET", "")
    try:
        budget = float(value)
    except ValueError:
        return SAMPLE_BUDGET
    return budget if math.isfinite(budget) and budget > 0 else SAMPLE_BUDGET


def sample_stride(config) -> int:
    """Every how many items of a sample a model of ``config``'s size reads: at the default budget, 1 for the
    embedded model, 2 for BERT-Base, 8 for BERT-Large."""
    work = config.num_hidden_layers * config.hidden_size**2
    return max(1, math.ceil(work / (sample_budget() * EMBEDDED_WORK)))
