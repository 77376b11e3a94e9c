"""Data and training sub-commands of ``python -m model`` (corpus, pretrain, finetune)."""

from __future__ import annotations


def register(sub, add_model) -> None:
    pass
