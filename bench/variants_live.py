"""BERT's family as live experiments (issue 57): a variant's pre-training choice against BERT's own recipe, on the
live page's tiny model, the same data and seeds, at the page's budget.

Each run is ``python -m model pretrain --preset live --lang LANG --steps STEPS --seed SEED [VARIANT FLAGS] --json``
(one thread); its last line holds the held-out scores: single-token [MASK] top-1 (``heldout_top1``) and, at the end,
top-1 on held-out spans of several tokens masked as SpanBERT masks them (``heldout_span_top1``). The runs are paired
by seed, and the table gives the mean difference with a t interval over the seeds.

    .venv/bin/python bench/variants_live.py [--variant spanbert] [--langs en,zh] [--seeds 0,1,2] [--steps 1800]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {"spanbert": ["--span-masking"]}
METRICS = ("heldout_top1", "heldout_span_top1")
T_975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}  # by degrees of freedom


def run(lang: str, seed: int, steps: int, flags: list[str]) -> dict:
    command = [sys.executable, "-m", "model", "pretrain", "--preset", "live", "--lang", lang, "--steps", str(steps)]
    command += ["--seed", str(seed), "--json", *flags]
    lines = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    return json.loads(lines[-1])


def interval(differences: list[float]) -> str:
    mean = statistics.mean(differences)
    if len(differences) < 2:
        return f"{mean:+.1%}"
    half = T_975[len(differences) - 1] * statistics.stdev(differences) / len(differences) ** 0.5
    return f"{mean:+.1%} [{mean - half:+.1%}, {mean + half:+.1%}]"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="spanbert")
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--steps", type=int, default=1800)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"| lang | seed | recipe | steps | seconds | {' | '.join(METRICS)} |")
    print("|---|---|---|---|---|" + "---|" * len(METRICS))
    summary = []
    for lang in args.langs.split(","):
        differences = {metric: [] for metric in METRICS}
        for seed in seeds:
            results = {name: run(lang, seed, args.steps, flags) for name, flags in (("bert", []),
                       (args.variant, VARIANTS[args.variant]))}  # fmt: skip
            for name, result in results.items():
                scores = " | ".join(f"{result[m]:.1%}" for m in METRICS)
                print(f"| {lang} | {seed} | {name} | {result['steps']} | {result['seconds']} | {scores} |", flush=True)
            for metric in METRICS:
                differences[metric].append(results[args.variant][metric] - results["bert"][metric])
        summary += [f"| {lang} | {metric} | {interval(differences[metric])} |" for metric in METRICS]
    print(f"\n| lang | metric | {args.variant} - bert, mean over {len(seeds)} seeds [95% t interval] |")
    print("|---|---|---|")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
