"""What the NSP lab remembers: its settings (most carried by a shared link) and its other session values."""

from __future__ import annotations

from app.core.settings import Setting

SETTINGS: dict[str, Setting] = {
    "nsp_mode": Setting("sample", options=("sample", "type")),
    "nsp_draw": Setting(0, low=0, high=10**6),
}

SESSION: dict[str, str] = {}
