"""BERT's family as live experiments (issue 57): a variant's pre-training choice against BERT's own recipe, on the
live page's tiny model, the same data and seeds, at the page's budget.

Each run is ``python -m model pretrain --preset live --lang LANG --steps STEPS --seed SEED [FLAGS] --json`` (one
thread); its last line holds the held-out scores: single-token [MASK] top-1 (``heldout_top1``), top-1 on held-out
spans of several tokens masked as SpanBERT masks them (``heldout_span_top1``), the sentence head's accuracy on
next-sentence pairs (``nsp_acc``) and on sentence-order pairs (``heldout_order_acc``). A variant's runs (``RUNS``,
BERT's recipe first) are paired by seed, and the table gives each one's mean difference from BERT's recipe with a t
interval over the seeds.

    .venv/bin/python bench/variants_live.py [--variant spanbert,roberta,albert] [--langs en,zh] [--seeds 0,1,2]
        [--steps 1800]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Per variant, its runs and their flags; the first is BERT's recipe (the preset: new masks at every draw, with NSP).
# Run names are the live jobs' (app/core/live_jobs.py EXPERIMENTS); BERT's family page quotes these intervals.
RUNS = {
    "spanbert": {"bert": [], "span_masking": ["--variant", "spanbert"]},
    # RoBERTa's two changes one at a time: BERT's original static masks against the preset's dynamic ones, and MLM
    # alone (RoBERTa's recipe: dynamic masks, no NSP) against MLM + NSP.
    "roberta": {"bert": [], "static_masks": ["--static-masking"], "mlm_only": ["--variant", "roberta"]},
    # ALBERT's changes: sentence order in NSP's place alone, then with its narrow, shared model as well.
    "albert": {"bert": [], "sentence_order": ["--sentence-order"], "albert": ["--variant", "albert"]},
}
METRICS = ("heldout_top1", "heldout_span_top1", "nsp_acc", "heldout_order_acc")
T_975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}  # by degrees of freedom


def run(lang: str, seed: int, steps: int, flags: list[str]) -> dict:
    command = [sys.executable, "-m", "model", "pretrain", "--preset", "live", "--lang", lang, "--steps", str(steps)]
    command += ["--seed", str(seed), "--eval-every", str(steps), "--json", *flags]  # evaluated once, at the end
    lines = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    return json.loads(lines[-1])


def in_points(differences: list[float]) -> tuple[float, float, float]:
    """The mean difference and its 95% t interval over the seeds, in percentage points, to one decimal."""
    mean = statistics.mean(differences)
    half = (
        T_975[len(differences) - 1] * statistics.stdev(differences) / len(differences) ** 0.5
        if len(differences) > 1
        else 0.0
    )
    return tuple(round(100 * x, 1) for x in (mean, mean - half, mean + half))


def interval(differences: list[float]) -> str:
    mean, low, high = in_points(differences)
    return f"{mean:+.1f} [{low:+.1f}, {high:+.1f}]" if len(differences) > 1 else f"{mean:+.1f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="spanbert", help=f"one or more of {','.join(RUNS)}, comma-separated")
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--steps", type=int, default=1800)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    variants = args.variant.split(",")
    if unknown := set(variants) - set(RUNS):
        parser.error(f"unknown variant {', '.join(sorted(unknown))}: choose from {', '.join(RUNS)}")
    runs = {name: flags for variant in variants for name, flags in RUNS[variant].items()}  # BERT's recipe run once
    others = [name for name in runs if name != "bert"]
    print(f"| lang | seed | recipe | steps | seconds | {' | '.join(METRICS)} |")
    print("|---|---|---|---|---|" + "---|" * len(METRICS))
    summary, measured = [], {}
    for lang in args.langs.split(","):
        differences = {(name, metric): [] for name in others for metric in METRICS}
        for seed in seeds:
            results = {name: run(lang, seed, args.steps, flags) for name, flags in runs.items()}
            for name, result in results.items():
                scores = " | ".join(f"{result[m]:.1%}" for m in METRICS)
                print(f"| {lang} | {seed} | {name} | {result['steps']} | {result['seconds']} | {scores} |", flush=True)
            for name, metric in differences:
                differences[name, metric].append(results[name][metric] - results["bert"][metric])
        for metric in METRICS:
            summary.append(f"| {lang} | {metric} | {' | '.join(interval(differences[n, metric]) for n in others)} |")
        measured[lang] = {n: {m: in_points(differences[n, m]) for m in METRICS} for n in others}
    columns = " | ".join(f"{name} - bert" for name in others)
    print(f"\n| lang | metric | {columns} (points, mean over {len(seeds)} seeds [95% t interval]) |")
    print("|---|---|" + "---|" * len(others))
    print("\n".join(summary))
    # model/training/live.py MEASURED_VARIANTS holds these for the page
    print("\nmeasured:", json.dumps(measured))


if __name__ == "__main__":
    main()
