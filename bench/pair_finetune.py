"""Sentence pairs and multiple choice in the fine-tuning lab: what the page's default minute buys, from pre-trained and
from random weights, against the baselines a student understands, with intervals.

For each task this runs exactly what the page's Start button runs with "compare pre-trained and random" ticked and
every other setting at its default (``app.finetune.jobs.page_settings`` of the settings' defaults,
``app.finetune.jobs.start``: the child process, its niceness and threads, the time budget), then scores both trained
models and the baselines (pairs: the majority class and word overlap with its threshold chosen on the training pairs;
choices: the ending sharing most words with the context, and chance) on every test example of the task, for tighter
intervals than the page's first 200.

Accuracy with 95% bootstrap intervals (2,000 resamples of the test examples), and the paired differences pre-trained
minus random and pre-trained minus the best baseline on the same resamples.

    .venv/bin/python bench/pair_finetune.py [--tasks paraphrase-en,paraphrase-zh,choice-en,choice-zh] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qa_finetune import page_comparison  # noqa: E402  (bench/ is the script's own folder on the path)

from model.checkpoint import load  # noqa: E402
from model.data.tasks import load_task  # noqa: E402
from model.training import baselines  # noqa: E402
from model.training.finetune import encode_examples  # noqa: E402

RESAMPLES = 2_000
RESULTS = ROOT / "bench" / "results" / "pair_tasks.md"
TASKS = ("paraphrase-en", "paraphrase-zh", "choice-en", "choice-zh")


def interval(values: np.ndarray, index: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% bootstrap interval over the resamples ``index`` (resamples x n), shared by every row."""
    means = values[index].mean(axis=1)
    return float(values.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def cell(stat: tuple[float, float, float], signed: bool = False) -> str:
    mean, low, high = stat
    sign = "+" if signed else ""
    return f"{100 * mean:{sign}.1f}% [{100 * low:{sign}.1f}, {100 * high:{sign}.1f}]"


@torch.inference_mode()
def hits(model, tokenizer, kind: str, examples: list, max_length: int) -> np.ndarray:
    """1 where the model's answer is right, per test example."""
    data = encode_examples(tokenizer, kind, examples, max_length)
    model.eval()
    right = []
    for start in range(0, len(data), 64):
        batch = data.batch(torch.arange(start, min(start + 64, len(data))))
        logits = model(batch.input_ids, batch.token_type_ids, batch.attention_mask).logits
        right += (logits.argmax(-1) == batch.labels).float().tolist()
    return np.array(right)


def run_task(task_name: str, base, rng: np.random.Generator) -> list[str]:
    started = time.time()
    job, settings, snapshot, _owner = page_comparison(task_name, base)
    task = load_task(task_name)
    test, train = task.heldout, task.train[: snapshot.train_size]
    rows = {
        init: hits(job.trained_model(init), base.tokenizer, task.kind, test, settings.max_length)
        for init in ("pretrained", "random")
    }
    if task.kind == "pair":
        rows["majority class"] = np.array([float(label == 1) for *_, label in test])  # balanced: either label
        rows["word overlap"] = np.array(baselines.overlap_threshold_hits(train, test, task.language))
    else:
        rows["most shared words"] = np.array(baselines.most_shared_words_hits(test, task.language))
        rows["chance"] = np.full(len(test), 0.25)
    index = rng.integers(0, len(test), size=(RESAMPLES, len(test)))
    best_baseline = max((name for name in rows if name not in ("pretrained", "random")), key=lambda n: rows[n].mean())
    lines = [
        f"### {task_name}: {settings.max_seconds:g} s per run, {snapshot.train_size:,} training examples, "
        f"{settings.max_length} tokens, top {settings.trained_layers} layers trained, lr {settings.lr:g} "
        f"(job: {time.time() - started:.0f} s); scored on all {len(test):,} test examples\n",
        "| model or baseline | steps | accuracy [95% CI] |",
        "|---|---|---|",
    ]
    for name, values in rows.items():
        steps = snapshot.results[name].steps if name in snapshot.results else "–"
        lines.append(f"| {name} | {steps} | {cell(interval(values, index))} |")
    lines += [
        "",
        f"pre-trained − random: {cell(interval(rows['pretrained'] - rows['random'], index), signed=True)}; "
        f"pre-trained − {best_baseline}: "
        f"{cell(interval(rows['pretrained'] - rows[best_baseline], index), signed=True)} (paired, same resamples)\n",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--write", action="store_true", help=f"write the tables to {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args()
    base = load("embedded")
    rng = np.random.default_rng(0)
    cores = len(os.sched_getaffinity(0))
    out = [
        f"Run {time.strftime('%Y-%m-%d')} on {platform.machine()}, {cores} core(s) this process may use, "
        f"training threads: BERT_LAB_TRAIN_THREADS={os.environ.get('BERT_LAB_TRAIN_THREADS', 'all cores')}\n"
    ]
    for name in args.tasks.split(","):
        out += run_task(name, base, rng)
        print("\n".join(out[-8:]), flush=True)
    if args.write:
        RESULTS.write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
