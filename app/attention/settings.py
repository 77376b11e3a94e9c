"""What the attention page remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import MAX_LAYERS, Setting

SETTINGS: dict[str, Setting] = {
    # The attention page shows one section at a time: the two maps, every head's statistics, or bertviz.
    "attention_section": Setting("maps", options=("maps", "heads", "neuron", "bertviz")),
    "attention_average": Setting(False, kind="flag"),
    "attention_hide": Setting(False, kind="flag"),
    "attention_renormalize": Setting(True, kind="flag"),
    "attention_bertviz_view": Setting("head", options=("head", "model")),
    "attention_bertviz_mask": Setting("bidirectional", options=("bidirectional", "causal")),
    # None: the layer chosen above; an empty list is a reader's choice and stays empty.
    "attention_bertviz_layers": Setting(None, low=0, high=MAX_LAYERS - 1, kind="list"),
}

SESSION: dict[str, str] = {}
