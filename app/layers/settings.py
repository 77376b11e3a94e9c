"""What the layers lab remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import MAX_LAYERS, Setting
from model.analysis import lab as layers
from model.analysis.data import PROBE_TASKS
from model.analysis.search import METRICS

SETTINGS: dict[str, Setting] = {
    # The layers lab; its task and word follow the page's language until a reader or a link sets them.
    "layers_task": Setting(PROBE_TASKS[0], options=PROBE_TASKS),
    "layers_train": Setting(layers.TRAIN_SENTENCES, low=20, high=400),
    "layers_test": Setting(layers.TEST_SENTENCES, low=20, high=200),
    "layers_word": Setting(layers.DEFAULT_WORDS["en"][0], high=20, kind="text"),
    "layers_contexts": Setting(layers.CONTEXTS, low=5, high=100),
    "layers_probe_ran": Setting(False, kind="flag"),
    "layers_geometry_ran": Setting(False, kind="flag"),
    # Corpus search: a token of the shared sentence (-1: the page picks its longest word), a layer (0 = embeddings).
    "layers_search_token": Setting(-1, low=-1, high=511),
    "layers_search_layer": Setting(2, low=0, high=MAX_LAYERS),
    "layers_search_metric": Setting(METRICS[0], options=METRICS),
    "layers_search_ran": Setting(False, kind="flag"),
}

SESSION: dict[str, str] = {}
