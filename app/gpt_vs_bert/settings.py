"""What the GPT-versus-BERT page remembers: nothing but the sidebar's sentence; it declares its example."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {}

SESSION: dict[str, str] = {}

# The example sentences the page offers (string keys by kind), which the model card lists (app/core/examples.py).
EXAMPLES = {"fill": ("mask_default",)}
