"""What the head lab remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.i18n import TEXT_LANGUAGES
from app.core.settings import MAX_LAYERS, Setting

SETTINGS: dict[str, Setting] = {
    # The head lab: which heads are switched off, and the sample's language (it follows the page's at first).
    "heads_off": Setting([], high=MAX_LAYERS, kind="heads"),
    "heads_lang": Setting(TEXT_LANGUAGES[0], options=TEXT_LANGUAGES),
    "heads_step": Setting(1, options=(1, 2, 3, 4)),  # the head lab shows one of its four steps at a time
}

SESSION: dict[str, str] = {
    "heads_curve_requested": "whether the reader asked for the pruning curve (it takes seconds)",
    "heads_grid_version": "bumped when a click on the importance grid changed the heads, to reset its selection",
}

# The example sentences the page offers (string keys by kind), which the model card lists (app/core/examples.py).
EXAMPLES = {"fill": ("fill_default",)}
