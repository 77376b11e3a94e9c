"""Error text: what a page says, in the reader's language, when input or a checkpoint cannot be used."""

from __future__ import annotations

from app.core.i18n import STRINGS, t
from model.checkpoint import CheckpointError
from model.inference import InputError


def explain(error: InputError | CheckpointError) -> str:
    """The error in the session's language (the model's English message where no translation exists)."""
    if getattr(error, "code", None) is None:
        return str(error)
    kind = "checkpoint" if isinstance(error, CheckpointError) else "error"
    key = f"common.{kind}_{error.code}"
    return t(key, **error.values) if key in STRINGS else str(error)
