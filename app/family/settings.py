"""What BERT's family remembers: the descendant chosen and the seconds per run (a shared link carries both)."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    # A descendant of BERT: an experiment of app.core.live_jobs (EXPERIMENTS, or DISTILLATION).
    "family_experiment": Setting("spanbert", options=("spanbert", "roberta", "albert", "electra", "distilbert")),
    "family_budget": Setting(120, options=(30, 60, 120, 300)),
}

SESSION: dict[str, str] = {
    "family_job": "this session's experiment with a descendant of BERT (app.core.live_jobs.LiveJob)",
}
