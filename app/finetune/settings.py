"""What the fine-tuning lab remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import MAX_LAYERS, Setting
from model.data.tasks import TASKS
from model.training.finetune import DEMO_TRAIN_SIZE, demo_settings

_FINETUNE = demo_settings()

INITS = ("pretrained", "random")  # where a single run starts

SETTINGS: dict[str, Setting] = {
    "finetune_task": Setting(next(iter(TASKS)), options=tuple(TASKS)),
    "finetune_size": Setting(DEMO_TRAIN_SIZE, low=100, high=2000),
    "finetune_epochs": Setting(_FINETUNE.epochs, low=1, high=5),
    "finetune_lr": Setting(_FINETUNE.lr, options=(2e-5, 3e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3)),
    "finetune_batch": Setting(_FINETUNE.batch_size, options=(8, 16, 32)),
    "finetune_max_length": Setting(_FINETUNE.max_length, options=(32, 64, 128)),
    "finetune_budget": Setting(int(_FINETUNE.max_seconds), options=(30, 60, 120, 300)),
    "finetune_freeze": Setting(_FINETUNE.freeze_encoder, kind="flag"),
    # The page clamps it to the loaded model's layer count (that many trains everything, the embeddings too).
    "finetune_layers": Setting(_FINETUNE.trained_layers, low=1, high=MAX_LAYERS),
    "finetune_compare": Setting(False, kind="flag"),
    "finetune_compare_frozen": Setting(False, kind="flag"),
    "finetune_init": Setting(INITS[0], options=INITS),
    "finetune_word_shares": Setting(False, kind="flag"),
}

# The lab's job (app.finetune.jobs.Job, running or finished) is core's ``session_models``: the sidebar offers its
# trained models, and the attention page compares them with the model they started from.
SESSION: dict[str, str] = {}
