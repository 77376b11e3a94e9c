"""What the fill-mask page remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    "fill_mask_top_k": Setting(5, low=1, high=20),
    "fill_mask_decode": Setting("independent", options=("independent", "iterative")),
    # The word the logit lens follows through the layers (one token).
    "fill_mask_follow": Setting("", high=100, kind="text", shared=False),
    # Integrated gradients cost about a second per sentence: on request, so a lesson's edits stay instant.
    "fill_mask_attribution": Setting(False, kind="flag"),
    # Causal tracing runs the sentence a few hundred times (about 2-4 s on two cores): on request too.
    "fill_mask_trace": Setting(False, kind="flag"),
    # Candidate sentences to score: a reader's own text, not something to put in a link.
    "fill_mask_candidates": Setting("", high=4000, kind="text", shared=False),
}

SESSION: dict[str, str] = {
    "_fill_mask_scored": "the candidate sentences the reader last asked to score (scoring runs only on request)",
    "fill_mask_base": "the sentence as the reader last typed it, whose tokens the mask buttons show (a click can also undo)",
    "fill_mask_derived": "the sentence the mask buttons made from fill_mask_base (while it is the shared one, the buttons keep the base)",
}

# The example sentences the page offers (string keys by kind), which the model card lists (app/core/examples.py).
EXAMPLES = {"fill": ("example_en", "example_zh"), "score": ("score_default",)}
