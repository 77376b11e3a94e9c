"""What a remembered value is: ``Setting`` (its default, the values a link may give it, whether a link carries it).

Each concept declares its own in ``app/<concept>/settings.py``: ``SETTINGS`` (remembered values, most carried by a
shared link) and ``SESSION`` (every other value the concept keeps in ``st.session_state``, with what it holds).
``app.core.state`` gathers them all; a test holds every ``st.session_state`` key of the app to these lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_LAYERS = 1024  # bounds a hand-edited link; the sidebar clamps to the loaded model's layers and heads


@dataclass(frozen=True)
class Setting:
    """One remembered value. A link may set it to one of ``options``, or a whole number in ``low..high``."""

    default: Any
    options: tuple = ()
    low: int = 0
    high: int = 0
    # "one" value, a "flag", a "pair" of numbers, a "list" of numbers, "text" (high: its length), or "heads":
    # attention heads named "layer.head" (a link may name heads this model lacks: the page drops those)
    kind: str = "one"
    shared: bool = True  # carried by a shared link

    def parse(self, raw: str) -> Any:
        """The value a URL's ``raw`` string stands for; ``ValueError`` when a link may not set it."""
        if self.kind == "flag":
            if raw not in ("0", "1"):
                raise ValueError(raw)
            return raw == "1"
        if self.kind == "heads":
            names = [part for part in raw.split(",") if part]
            if len(names) > self.high or any(not re.fullmatch(r"\d{1,4}\.\d{1,4}", n) for n in names):
                raise ValueError(raw)
            return sorted(set(names))
        if self.kind == "text":
            if not raw.strip():
                raise ValueError(raw)
            return raw.strip()[: self.high]
        if self.options:
            by_text = {url_value(option): option for option in self.options}
            if raw not in by_text:
                raise ValueError(raw)
            return by_text[raw]
        numbers = [int(part) for part in raw.split(",")] if raw else []
        if any(not self.low <= n <= self.high for n in numbers):
            raise ValueError(raw)
        if self.kind == "pair":
            if len(numbers) != 2 or numbers[0] > numbers[1]:
                raise ValueError(raw)
            return tuple(numbers)
        if self.kind == "list":
            return sorted(set(numbers))
        if len(numbers) != 1:
            raise ValueError(raw)
        return numbers[0]


def url_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple | list):
        return ",".join(map(str, value))
    return str(value)
