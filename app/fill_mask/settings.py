"""What the fill-mask page remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    "fill_mask_top_k": Setting(5, low=1, high=20),
    "fill_mask_decode": Setting("independent", options=("independent", "iterative")),
    # Candidate sentences to score: a reader's own text, not something to put in a link.
    "fill_mask_candidates": Setting("", high=4000, kind="text", shared=False),
}

SESSION: dict[str, str] = {
    "_fill_mask_scored": "the candidate sentences last scored, so a rerun does not score them again",
    "fill_mask_base": "the sentence the page masked a word of, when the shared sentence had no [MASK]",
    "fill_mask_derived": "the sentence with the page's own [MASK], derived from fill_mask_base",
}
