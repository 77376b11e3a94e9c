"""ELECTRA against MLM at equal time (issue 57), on the live page's tiny model, the same data and seeds.

MLM alone (``--variant roberta``: BERT's masked words, no sentence task, as ELECTRA has none) against ELECTRA's
replaced-token detection (``--variant electra``), each scored at its end by a linear probe of its frozen encoder on a
labelled task (``model/training/downstream.py``: English news topics, Chinese review sentiment), beside the probe on
the untrained model, bags of words and the most frequent label. ELECTRA's step also runs its generator, so equal time
is fewer steps: both are first timed for ``--calibrate`` steps on this machine, and ELECTRA gets ``--steps`` times
the ratio of their seconds per step. Paired by seed; a t interval over the seeds.

    .venv/bin/python bench/electra_live.py [--langs en,zh] [--seeds 0,1,2] [--steps 1800] [--calibrate 300]
"""

from __future__ import annotations

import argparse
import json

from variants_live import in_points, interval, run

RUNS = {"mlm": ["--variant", "roberta", "--downstream"], "electra": ["--variant", "electra"]}
METRICS = ("probe_acc", "probe_untrained_acc", "probe_bow_acc", "probe_majority")


def seconds_per_step(lang: str, steps: int, flags: list[str]) -> float:
    result = run(lang, 0, steps, flags)
    return result["seconds"] / result["steps"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--steps", type=int, default=1800)
    parser.add_argument("--calibrate", type=int, default=300)
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"| lang | seed | recipe | steps | seconds | {' | '.join(METRICS)} | rtd_acc | rtd_baseline |")
    print("|---|---|---|---|---|" + "---|" * (len(METRICS) + 2))
    summary, measured = [], {}
    for lang in args.langs.split(","):
        mlm, electra = (seconds_per_step(lang, args.calibrate, RUNS[name]) for name in ("mlm", "electra"))
        steps = {"mlm": args.steps, "electra": round(args.steps * mlm / electra)}
        print(f"| {lang} | calibration | electra's step takes {electra / mlm:.2f} x MLM's | {steps['electra']} |")
        differences = []
        for seed in seeds:
            results = {name: run(lang, seed, steps[name], flags) for name, flags in RUNS.items()}
            for name, r in results.items():
                scores = " | ".join(f"{r[m]:.1%}" for m in METRICS)
                rtd = f"{r['rtd_acc']:.1%} | {r['rtd_baseline']:.1%}" if "rtd_acc" in r else " | "
                print(f"| {lang} | {seed} | {name} | {r['steps']} | {r['seconds']} | {scores} | {rtd} |", flush=True)
            differences.append(results["electra"]["probe_acc"] - results["mlm"]["probe_acc"])
        summary.append(f"| {lang} | {results['mlm']['probe_task']} | {interval(differences)} |")
        measured[lang] = {"electra": {"probe_acc": in_points(differences)}}
    print(f"\n| lang | task | electra - mlm, linear probe accuracy (points, mean over {len(seeds)} seeds [95% t]) |")
    print("|---|---|---|")
    print("\n".join(summary))
    print("\nmeasured:", json.dumps(measured))  # model/training/live.py MEASURED_VARIANTS["electra"]


if __name__ == "__main__":
    main()
