"""What the sentence-vectors page remembers: its settings (carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    # Which of the held-out pool's languages the neighbours come from (model.analysis.sentence_vectors.SIDES).
    "sentence_vectors_side": Setting("both", options=("en", "zh", "both")),
    "sentence_vectors_budget": Setting(60, options=(30, 60, 120)),  # seconds of contrastive training
}

SESSION: dict[str, str] = {
    "sentence_vectors_job": "this session's contrastive training job (app.sentence_vectors.jobs.ContrastiveJob)",
}
