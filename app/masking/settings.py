"""What the masking lab remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    "masking_rate": Setting(15, low=1, high=100),
    "masking_split": Setting((80, 90), low=0, high=100, kind="pair"),
    "masking_whole_word": Setting(False, kind="flag"),
    "masking_seed": Setting(3, low=0, high=2**31 - 1),
}

SESSION: dict[str, str] = {
    "masking_draw_count": "the number-of-draws widget of the statistics section",
    "masking_stats_draws": "how many draws the reader asked the statistics for (once asked, they follow every change of the settings)",
}
