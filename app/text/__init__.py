"""UI strings, one module per page plus ``common``; each defines ``TEXT = {key: {"en": ..., "zh": ...}}``.

Keys are prefixed with the module name (``masking.title``), so pages cannot collide.
"""

from __future__ import annotations

import importlib
import pkgutil

LANGUAGES = ("zh", "en")


def load_all() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for key, value in module.TEXT.items():
            merged[f"{info.name}.{key}"] = value
    return merged
