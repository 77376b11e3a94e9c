"""How every page writes a share: rounded to whole percents (or tenths, where a page asks for one decimal), except
that a share above 0 never reads 0% and one short of all never reads 100%. A word the model gives 0.3% is not
impossible, and a head that sends 99.7% of its attention to [SEP] does not send all of it: they read <1% and >99%
(<0.1% and >99.9% with one decimal). The overview states this with the app's other conventions.
"""

from __future__ import annotations

import re

_PERCENT_SPEC = re.compile(r"\.(\d)%")


def percent(value: float, decimals: int = 0) -> str:
    """``value`` (a share, 0..1) in percent with ``decimals`` decimals, by the rule above."""
    value = float(value)
    written = f"{value:.{decimals}%}"
    step = 10.0**-decimals
    if 0 < value and float(written[:-1]) == 0:
        return f"<{step:.{decimals}f}%"
    if value < 1 and float(written[:-1]) >= 100:
        return f">{100 - step:.{decimals}f}%"
    return written


class Share(float):
    """A float that a string's ``{name:.0%}`` or ``{name:.1%}`` writes by ``percent``; every other format spec (a
    signed change, ``+.1%``; a plain number, ``.3f``) as a float would."""

    def __format__(self, spec: str) -> str:
        match = _PERCENT_SPEC.fullmatch(spec)
        return percent(self, int(match.group(1))) if match else super().__format__(spec)


def parameter_count(n: int) -> str:
    """A count of parameters in millions ("24.8M"); a tiny checkpoint (a test's) keeps its digits ("29,858"), not
    "0.0M"."""
    return f"{n / 1e6:.1f}M" if n >= 50_000 else f"{n:,}"
