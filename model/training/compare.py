"""Whether new weights may replace the shipped ones: every figure with its 95% interval, two models compared on the
same masks by a paired bootstrap, and the two shipping rules as code.

``python -m model evaluate`` masks each held-out pair once (3,567 [MASK] targets in English, 3,725 in Chinese): a
standard error of about 0.8 points, too coarse to resolve the 1-point changes that decide a release. Here each
pair is masked ``MASK_DRAWS`` times (10,635 and 11,217 on the shipped model), every figure is given with a 95% interval, and a
difference between two models is measured on the very same masks, pairs and cloze items.

Intervals are bootstrap percentiles over the sample's units, the pairs (a pair's masks share its text, so they are
resampled together) or the cloze items; a comparison resamples both models with the same indices, so what the two
share cancels out. The resampling is seeded (``SEED``), so the same two models give the same intervals every time.

Every level and point change a rule reads is computed from integers, each model's hits over its targets, as a
fraction: "+6 points" on 300 cloze items means 18 more right, exactly, where floats put 34/300 - 16/300 below
0.06. Only the interval conditions read floats, the bootstrap's percentiles; the record
(``evaluate --compare --record``) keeps the counts and the intervals, so both rules can be re-derived from it.

The big-step rule (issue 41), the record of the step that took the model from older text to modern text: against
the shipped model, everyday cloze top-1 rises by at least 6 points in each language with the interval above zero;
modern held-out [MASK] top-1 rises by at least 5 points in each language; the original sources' [MASK] top-1 falls
by at most 3 points; NSP stays at or above 90%; and the weights file stays under 60 MB.

The small-step rule (issue 53), which ``python -m model ship`` applies: against the shipped model, everyday cloze
top-1 resolves a gain (its interval above zero) in at least one language, and no line resolves a loss beyond its
tolerance: everyday cloze in each language keeps its interval's upper bound above zero (an interval that ends at
zero or below counts as a loss); modern held-out [MASK] top-1 falls by at most 1 point and the original sources'
by at most 3 points, each read as the point change, as the big-step rule reads them, so a change past its
tolerance fails even where its interval would not resolve it; NSP stays at or above 90% in each language; the
weights file stays under 60 MB. The original sources, NSP and the file keep the big step's bars.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..checkpoint import LoadedBert
from .evaluate import MODERN_PATH, cloze_outcomes, load_sample, mlm_outcomes

MASK_DRAWS = 3
RESAMPLES = 2_000
SEED = 0
MAX_WEIGHTS_MB = 60
POINT = Fraction(1, 100)
NSP_FLOOR = Fraction(90, 100)


@dataclass(frozen=True)
class Figure:
    """A share or a change with its 95% interval; ``units`` is how many pairs or items it rests on, ``count`` how
    many targets."""

    value: float
    low: float
    high: float
    units: int
    count: int


@dataclass(frozen=True)
class Share(Figure):
    """One model's share, ``hits`` right of ``count`` targets: ``value`` is their ratio as a float, ``exact`` as a
    fraction, which is what the rules read."""

    hits: int

    @property
    def exact(self) -> Fraction:
        return Fraction(self.hits, max(self.count, 1))


@dataclass(frozen=True)
class Criterion:
    """One line of a rule: what is measured, the bar, the measured change (or level) and whether it passes."""

    name: str
    lang: str
    bar: str
    measured: Figure
    passed: bool


@dataclass(frozen=True)
class Comparison:
    """What both rules read: each model's shares per language (their hits and counts decide every level and point
    change), the paired intervals of the changes (only they say whether a change is resolved), and the new weights'
    size in bytes (None for a hub model, which has no file here: the rules then fail it)."""

    new: dict[str, dict[str, Share]]
    old: dict[str, dict[str, Share]]
    changes: dict[str, dict[str, Figure]]
    weights_bytes: int | None

    def change(self, lang: str, name: str) -> Fraction:
        """new minus old, exactly."""
        return self.new[lang][name].exact - self.old[lang][name].exact

    def to_record(self) -> dict:
        """The part of a record (``evaluate --compare --record``) the rules are re-derived from."""

        def write(section: dict[str, dict[str, Figure]]) -> dict:
            return {lang: {name: asdict(f) for name, f in m.items()} for lang, m in section.items()}

        return {
            "weights_bytes": self.weights_bytes,
            "new": write(self.new),
            "old": write(self.old),
            "changes": write(self.changes),
        }

    @classmethod
    def from_record(cls, record: dict) -> Comparison:
        """The comparison a record (``evaluate --compare --record``) was measured as."""

        def read(kind: type[Figure], section: dict) -> dict:
            return {lang: {name: kind(**f) for name, f in m.items()} for lang, m in section.items()}

        return cls(
            read(Share, record["new"]),
            read(Share, record["old"]),
            read(Figure, record["changes"]),
            record["weights_bytes"],
        )


def _units(bundle: LoadedBert, draws: int) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Per language: each figure the rules read, as per-unit hits and per-unit counts."""
    original, modern = mlm_outcomes(bundle, load_sample(), draws), mlm_outcomes(bundle, load_sample(MODERN_PATH), draws)
    cloze = cloze_outcomes(bundle)
    out: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for lang in sorted(original):
        o, m, c = original[lang], modern.get(lang), cloze.get(lang)
        out[lang] = {
            "mask_top1": (o["mask_top1"], o["masks"]),
            "nsp_accuracy": (o["nsp_right"], np.ones_like(o["nsp_right"])),
        }
        if m is not None:
            out[lang]["modern_mask_top1"] = (m["mask_top1"], m["masks"])
        if c is not None:
            out[lang]["cloze_top1"] = (c["top1"], np.ones_like(c["top1"]))
    return out


def resamples(n: int, rng: np.random.Generator) -> np.ndarray:
    """``RESAMPLES`` bootstrap draws of ``n`` unit indices (resamples x units)."""
    return rng.integers(0, n, size=(RESAMPLES, n))


def shown(f: Figure, signed: bool = False) -> str:
    """``46.1% [44.7%, 47.5%]``; ``signed`` for a change (``+5.4% [+4.7%, +6.1%]``)."""
    sign = "+" if signed else ""
    return f"{f.value:{sign}.1%} [{f.low:{sign}.1%}, {f.high:{sign}.1%}]"


def ratio_figure(hits: np.ndarray, counts: np.ndarray, index: np.ndarray) -> Share:
    """sum(hits) / sum(counts), and its 95% interval over the resampled units ``index`` (resamples x units)."""
    shares = hits[index].sum(axis=1) / np.maximum(counts[index].sum(axis=1), 1)
    low, high = np.percentile(shares, [2.5, 97.5])
    value = float(hits.sum() / max(counts.sum(), 1))
    return Share(value, float(low), float(high), len(hits), int(counts.sum()), int(hits.sum()))


def difference_figure(
    new: tuple[np.ndarray, np.ndarray], old: tuple[np.ndarray, np.ndarray], index: np.ndarray
) -> Figure:
    """new minus old on the same units, the same resamples for both: a paired bootstrap. Two models with one
    vocabulary (a continued run keeps it) are masked identically; otherwise the pairs and items are still shared."""
    (hits_a, counts_a), (hits_b, counts_b) = new, old
    if len(hits_a) != len(hits_b):
        raise ValueError("the two models were not measured on the same units")
    a = hits_a[index].sum(axis=1) / np.maximum(counts_a[index].sum(axis=1), 1)
    b = hits_b[index].sum(axis=1) / np.maximum(counts_b[index].sum(axis=1), 1)
    low, high = np.percentile(a - b, [2.5, 97.5])
    value = hits_a.sum() / max(counts_a.sum(), 1) - hits_b.sum() / max(counts_b.sum(), 1)
    return Figure(float(value), float(low), float(high), len(hits_a), int(counts_a.sum()))


def _shares(units: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]) -> dict[str, dict[str, Share]]:
    rng = np.random.default_rng(SEED)
    return {
        lang: {name: ratio_figure(*pair, resamples(len(pair[0]), rng)) for name, pair in measured.items()}
        for lang, measured in units.items()
    }


def figures(bundle: LoadedBert, draws: int = MASK_DRAWS) -> dict[str, dict[str, Share]]:
    """Per language, each figure the rules read with its interval."""
    return _shares(_units(bundle, draws))


def weights_bytes(folder: Path) -> int | None:
    """The size of the weights file in ``folder``; None where it has none."""
    files = [folder / "model.safetensors", folder / "pytorch_model.bin"]
    return max((f.stat().st_size for f in files if f.exists()), default=None)


def weights_sha256(folder: Path) -> str | None:
    """What a record names weights by: the hash of ``model.safetensors``, the file ``ship`` copies (None where the
    folder has none)."""
    path = folder / "model.safetensors"
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def compare(new: LoadedBert, old: LoadedBert, draws: int = MASK_DRAWS) -> Comparison:
    """Both models measured once on the same masks, pairs and items: each one's shares, and each change from
    ``old`` to ``new`` (new minus old) with its paired interval."""
    a, b = _units(new, draws), _units(old, draws)
    rng = np.random.default_rng(SEED)  # the changes' own draws, as each model's shares have theirs (``_shares``)
    changes: dict[str, dict[str, Figure]] = {}
    for lang in sorted(set(a) & set(b)):
        changes[lang] = {}
        for name in sorted(set(a[lang]) & set(b[lang])):
            index = resamples(len(a[lang][name][0]), rng)
            changes[lang][name] = difference_figure(a[lang][name], b[lang][name], index)
    return Comparison(_shares(a), _shares(b), changes, weights_bytes(Path(new.path)) if new.path else None)


def _weights_line(c: Comparison) -> Criterion:
    mb = float("nan") if c.weights_bytes is None else c.weights_bytes / 1e6
    return Criterion(
        "weights file (MB)",
        "-",
        f"under {MAX_WEIGHTS_MB}",
        Figure(mb, mb, mb, 1, 1),
        c.weights_bytes is not None and c.weights_bytes < MAX_WEIGHTS_MB * 1_000_000,
    )


def _nsp_line(c: Comparison, lang: str) -> Criterion:
    level = c.new[lang]["nsp_accuracy"]
    return Criterion("NSP accuracy", lang, "90% or more", level, level.exact >= NSP_FLOOR)


def _change_line(c: Comparison, lang: str, name: str, key: str, points: int, bar: str) -> Criterion:
    """A line that asks a figure's change to be at least ``points`` (negative: a fall of at most that many)."""
    return Criterion(name, lang, bar, c.changes[lang][key], c.change(lang, key) >= points * POINT)


def big_step_rule(c: Comparison) -> list[Criterion]:
    """Issue 41's rule, line by line: the record of the step from older text to modern text."""
    out = []
    for lang in sorted(c.changes):
        changes = c.changes[lang]
        out += [
            Criterion(
                "everyday cloze top-1",
                lang,
                "+6 points, interval above 0",
                changes["cloze_top1"],
                c.change(lang, "cloze_top1") >= 6 * POINT and changes["cloze_top1"].low > 0,
            ),
            _change_line(c, lang, "modern [MASK] top-1", "modern_mask_top1", 5, "+5 points"),
            _change_line(c, lang, "original [MASK] top-1", "mask_top1", -3, "-3 points at most"),
            _nsp_line(c, lang),
        ]
    return [*out, _weights_line(c)]


def small_step_rule(c: Comparison) -> list[Criterion]:
    """Issue 53's rule, line by line, the one ``ship`` applies. Its first line reads the language whose cloze
    interval starts highest: a gain resolved in either language passes it, and its figure is the one shown."""
    best = max(sorted(c.changes), key=lambda lang: c.changes[lang]["cloze_top1"].low)
    gain = c.changes[best]["cloze_top1"]
    out = [Criterion("everyday cloze gain", best, "interval above 0, one language", gain, gain.low > 0)]
    for lang in sorted(c.changes):
        changes = c.changes[lang]
        out += [
            Criterion(
                "everyday cloze top-1",
                lang,
                "no loss: interval's top above 0",
                changes["cloze_top1"],
                changes["cloze_top1"].high > 0,
            ),
            _change_line(c, lang, "modern [MASK] top-1", "modern_mask_top1", -1, "-1 point at most"),
            _change_line(c, lang, "original [MASK] top-1", "mask_top1", -3, "-3 points at most"),
            _nsp_line(c, lang),
        ]
    return [*out, _weights_line(c)]


__all__ = [
    "MASK_DRAWS",
    "MAX_WEIGHTS_MB",
    "Comparison",
    "Criterion",
    "Figure",
    "Share",
    "big_step_rule",
    "compare",
    "difference_figure",
    "figures",
    "ratio_figure",
    "small_step_rule",
    "weights_bytes",
    "weights_sha256",
]
