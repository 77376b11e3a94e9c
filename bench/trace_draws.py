"""How many noise draws causal tracing needs (issue 55): each map's error against the mean of 32 draws, for 2 to 6
draws, averaged over 6 seeds, on the page's kind of sentence. The page's ``SAMPLES`` is the fewest draws whose
error stays far below what a heat map shows (its brightest cell, printed beside).

    .venv/bin/python bench/trace_draws.py [--model embedded]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.analysis.tracing import KINDS, causal_trace  # noqa: E402
from model.checkpoint import load  # noqa: E402

SENTENCES = ("I drink a cup of [MASK] every morning.", "我们坐[MASK]铁去学校。", "The capital of France is [MASK].")
REFERENCE_SEEDS = range(100, 108)  # 8 x 4 = 32 draws, none of them among the seeds measured
SEEDS = range(6)


def maps(bundle, text: str, draws: int, seed: int) -> np.ndarray:
    trace = causal_trace(bundle, text, samples=draws, seed=seed)
    return np.stack([trace.restored[kind] for kind in KINDS])  # (kinds, L, T)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="embedded")
    args = parser.parse_args()
    torch.set_num_threads(1)
    bundle = load(args.model)
    print("sentence | brightest cell (32 draws) | RMS error of the maps against the 32-draw mean, by draws")
    for text in SENTENCES:
        reference = np.mean([maps(bundle, text, 4, seed) for seed in REFERENCE_SEEDS], axis=0)
        errors = []
        for draws in (2, 3, 4, 6):
            rms = [np.sqrt(((maps(bundle, text, draws, seed) - reference) ** 2).mean()) for seed in SEEDS]
            errors.append(f"{draws}: {np.mean(rms):.4f}")
        print(f"{text} | {reference.max():.3f} | {', '.join(errors)}")


if __name__ == "__main__":
    main()
