"""What the parsers of every ``python -m model`` sub-command share: the one-line usage error, argument types that
refuse a bad value before anything runs, and the ``--model`` option.

They live apart from ``cli.py`` so that the commands modules beside the training and analysis code can use them
without importing the CLI that registers those commands: the dependency runs one way, cli -> commands -> here.
"""

from __future__ import annotations

import argparse
import math

PRECISIONS = {"auto": None, "bf16": True, "fp32": False}  # --precision -> the training settings' bf16


class UsageError(Exception):
    """A bad command line: ``python -m model`` prints its message as one line and exits with code 2."""


def positive_int(text: str) -> int:
    """An argparse type. It raises ArgumentTypeError because argparse shows that message as it is, where a
    ValueError would become "invalid positive_int value"."""
    value = _whole_number(text)
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    value = _whole_number(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"expected zero or a positive whole number, got {text!r}")
    return value


def number_in(low: float, high: float = math.inf, *, above_low: bool = False):
    """An argparse type for a finite number from ``low`` (or above it) to ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        fits = (value > low if above_low else value >= low) and value <= high and math.isfinite(value)
        if not fits:
            bound = f"above {low:g}" if above_low else f"from {low:g}"
            if not math.isinf(high):
                bound += f" and at most {high:g}" if above_low else f" to {high:g}"
            raise argparse.ArgumentTypeError(f"expected a number {bound}, got {text!r}")
        return value

    return parse


def _whole_number(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def add_model(p: argparse.ArgumentParser) -> None:
    """``--model SPEC``: the model a sub-command reads (``checkpoint.load`` resolves it)."""
    p.add_argument(
        "--model", default="embedded", metavar="SPEC", help="embedded (default), a checkpoint folder or a hub id"
    )
