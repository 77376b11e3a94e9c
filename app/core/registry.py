"""The concepts' own declarations, gathered by name: each concept folder's ``settings.py`` (what it remembers, and
the example sentences it offers). Core reads them this way so that it never imports a concept by name: a new
concept is a new folder (and its strings a file in each ``app/locales/<language>/``), and nothing in core changes."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

APP_DIR = Path(__file__).resolve().parents[1]
CORE = "core"


def concept_names() -> list[str]:
    """Every concept folder of ``app/``, sorted."""
    return sorted(p.name for p in APP_DIR.iterdir() if p.is_dir() and p.name != CORE and (p / "__init__.py").exists())


def concept_modules(module: str) -> dict[str, ModuleType]:
    """Each concept's ``module`` (``"text"``, ``"settings"``) that exists, by concept name."""
    return {
        name: importlib.import_module(f"app.{name}.{module}")
        for name in concept_names()
        if (APP_DIR / name / f"{module}.py").exists()
    }
