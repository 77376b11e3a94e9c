"""Whether new weights may replace the shipped ones: every figure with its 95% interval, two models compared on the
same masks by a paired bootstrap, and the shipping rule as code.

``python -m model evaluate`` masks each held-out pair once (3,567 [MASK] targets in English, 3,725 in Chinese): a
standard error of about 0.8 points, too coarse to resolve the 1-point changes that decide a release. Here each
pair is masked ``MASK_DRAWS`` times (10,635 and 11,217 on the shipped model), every figure is given with a 95% interval, and a
difference between two models is measured on the very same masks, pairs and cloze items.

Intervals are bootstrap percentiles over the sample's units, the pairs (a pair's masks share its text, so they are
resampled together) or the cloze items; a comparison resamples both models with the same indices, so what the two
share cancels out.

The rule (issue 41): new weights ship when, against the shipped model, everyday cloze top-1 rises by at least 6
points in each language with the interval above zero; modern held-out [MASK] top-1 rises by at least 5 points in
each language; the original sources' [MASK] top-1 falls by at most 3 points; NSP stays at or above 90%; and the
weights file stays under 60 MB.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..checkpoint import LoadedBert
from .evaluate import MODERN_PATH, cloze_outcomes, load_sample, mlm_outcomes

MASK_DRAWS = 3
RESAMPLES = 2_000
SEED = 0
MAX_WEIGHTS_MB = 60.0


@dataclass(frozen=True)
class Figure:
    """A share with its 95% interval; ``units`` is how many pairs or items it rests on, ``count`` how many targets."""

    value: float
    low: float
    high: float
    units: int
    count: int


@dataclass(frozen=True)
class Criterion:
    """One line of the rule: what is measured, the bar, the measured change (or level) and whether it passes."""

    name: str
    lang: str
    bar: str
    measured: Figure
    passed: bool


def _units(bundle: LoadedBert, draws: int) -> dict[str, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Per language: each figure the rule reads, as per-unit hits and per-unit counts."""
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


def ratio_figure(hits: np.ndarray, counts: np.ndarray, index: np.ndarray) -> Figure:
    """sum(hits) / sum(counts), and its 95% interval over the resampled units ``index`` (resamples x units)."""
    shares = hits[index].sum(axis=1) / np.maximum(counts[index].sum(axis=1), 1)
    low, high = np.percentile(shares, [2.5, 97.5])
    return Figure(float(hits.sum() / max(counts.sum(), 1)), float(low), float(high), len(hits), int(counts.sum()))


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


def figures(bundle: LoadedBert, draws: int = MASK_DRAWS) -> dict[str, dict[str, Figure]]:
    """Per language, each figure the rule reads with its interval."""
    rng = np.random.default_rng(SEED)
    return {
        lang: {name: ratio_figure(*pair, resamples(len(pair[0]), rng)) for name, pair in measured.items()}
        for lang, measured in _units(bundle, draws).items()
    }


def compare(new: LoadedBert, old: LoadedBert, draws: int = MASK_DRAWS) -> dict[str, dict[str, Figure]]:
    """Per language, each figure's change from ``old`` to ``new`` (new minus old), with its paired interval."""
    rng = np.random.default_rng(SEED)
    a, b = _units(new, draws), _units(old, draws)
    changes: dict[str, dict[str, Figure]] = {}
    for lang in sorted(set(a) & set(b)):
        changes[lang] = {}
        for name in sorted(set(a[lang]) & set(b[lang])):
            index = resamples(len(a[lang][name][0]), rng)
            changes[lang][name] = difference_figure(a[lang][name], b[lang][name], index)
    return changes


def weights_mb(folder: Path) -> float:
    files = [folder / "model.safetensors", folder / "pytorch_model.bin"]
    return max((f.stat().st_size for f in files if f.exists()), default=0) / 1e6


def shipping_rule(
    changes: dict[str, dict[str, Figure]], new_figures: dict[str, dict[str, Figure]], new_weights_mb: float
) -> list[Criterion]:
    """Each criterion of the rule, measured (``changes`` from ``compare``, ``new_figures`` from ``figures`` of the
    new weights)."""
    out = []
    for lang in sorted(changes):
        c, f = changes[lang], new_figures[lang]
        out += [
            Criterion(
                "everyday cloze top-1",
                lang,
                "+6 points, interval above 0",
                c["cloze_top1"],
                c["cloze_top1"].value >= 0.06 and c["cloze_top1"].low > 0,
            ),
            Criterion(
                "modern [MASK] top-1", lang, "+5 points", c["modern_mask_top1"], c["modern_mask_top1"].value >= 0.05
            ),
            Criterion(
                "original [MASK] top-1", lang, "-3 points at most", c["mask_top1"], c["mask_top1"].value >= -0.03
            ),
            Criterion("NSP accuracy", lang, "90% or more", f["nsp_accuracy"], f["nsp_accuracy"].value >= 0.90),
        ]
    size = Figure(new_weights_mb, new_weights_mb, new_weights_mb, 1, 1)
    out.append(Criterion("weights file (MB)", "-", f"under {MAX_WEIGHTS_MB:g}", size, new_weights_mb < MAX_WEIGHTS_MB))
    return out


__all__ = [
    "MASK_DRAWS",
    "MAX_WEIGHTS_MB",
    "Criterion",
    "Figure",
    "compare",
    "difference_figure",
    "figures",
    "ratio_figure",
    "shipping_rule",
    "weights_mb",
]
