"""What Watch BERT learn remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    # Watch BERT learn (live pre-training): an experiment from app.core.live_jobs.EXPERIMENTS, seconds per run.
    "pretrain_live_experiment": Setting("single", options=("single", "mask_rate", "mask_mix", "nsp")),
    "pretrain_live_budget": Setting(120, options=(30, 60, 120, 300)),
}

SESSION: dict[str, str] = {
    "pretrain_live_job": "this session's live pre-training job (app.core.live_jobs.LiveJob)",
}
