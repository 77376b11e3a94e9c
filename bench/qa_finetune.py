"""Question answering in the fine-tuning lab: what the page's default budget buys, from pre-trained and from random
weights, on the held-out questions, with intervals.

For each task (qa-zh, qa-en) this runs exactly what the page's Start button runs with "compare pre-trained and
random" ticked and every other setting at its default (``app.finetune.jobs.page_settings`` of the settings'
defaults, ``app.finetune.jobs.start``: the child process, its niceness and threads, the time budget), then scores
both trained readers and the readers without a model (the word matcher, on the reworded questions and on the same
questions asked in place, before rewording; the longest name of the asked type; the random start):

* on the page's held-out questions (the first 200), as the page shows them;
* on every held-out question of the task (text the shipped model never read), for tighter intervals.

Exact match and F1 with 95% bootstrap intervals (2,000 resamples of the questions), and the paired differences
pre-trained minus random and pre-trained minus the word matcher on the same questions (the same resamples).

    .venv/bin/python bench/qa_finetune.py [--tasks qa-zh,qa-en] [--write]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.core.jobs import Owner  # noqa: E402
from app.core.state import SETTINGS  # noqa: E402
from app.finetune import jobs  # noqa: E402
from model.checkpoint import load  # noqa: E402
from model.data.tasks import load_task  # noqa: E402
from model.training import qa  # noqa: E402

RESAMPLES = 2_000
RESULTS = ROOT / "bench" / "results" / "qa.md"


def interval(
    values: np.ndarray, rng: np.random.Generator, index: np.ndarray | None = None
) -> tuple[float, float, float]:
    """Mean and 95% bootstrap interval; ``index`` (resamples x n) lets two readers share the same resamples."""
    index = rng.integers(0, len(values), size=(RESAMPLES, len(values))) if index is None else index
    means = values[index].mean(axis=1)
    return float(values.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def per_question(predicted: list[str], examples) -> tuple[np.ndarray, np.ndarray]:
    em = np.array([qa.exact_match(p, e.answer) for p, e in zip(predicted, examples, strict=True)])
    f1 = np.array([qa.answer_f1(p, e.answer) for p, e in zip(predicted, examples, strict=True)])
    return em, f1


def cell(stat: tuple[float, float, float]) -> str:
    mean, low, high = stat
    return f"{100 * mean:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def page_comparison(task_name: str, base):
    """What the page's Start button runs for ``task_name`` with "compare pre-trained and random" ticked and every
    other setting at its default, run to its end: (the finished job, its settings, its snapshot, its owner: the job
    holds the owner weakly, so the caller keeps it while it reads the job's models)."""
    defaults = {name: setting.default for name, setting in SETTINGS.items() if name.startswith("finetune_")}
    defaults["finetune_task"] = task_name
    settings = jobs.page_settings(defaults)
    owner = Owner()
    job = jobs.start(owner, base, task_name, settings, jobs.COMPARE, defaults["finetune_size"])
    job.wait(3_600)
    snapshot = job.snapshot()
    if snapshot.status != jobs.DONE:
        raise RuntimeError(f"{task_name}: the job ended {snapshot.status}: {snapshot.error}")
    return job, settings, snapshot, owner


def run_task(task_name: str, base) -> list[str]:
    started = time.time()
    job, settings, snapshot, _owner = page_comparison(task_name, base)
    task = load_task(task_name)
    lines = [
        f"### {task_name}: {settings.max_seconds:g} s per run, {snapshot.train_size:,} training questions, "
        f"{settings.max_length} tokens, top {settings.trained_layers} layers trained, lr {settings.lr:g} "
        f"(job: {time.time() - started:.0f} s)\n",
        "| reader | steps | held-out | exact match [95% CI] | F1 [95% CI] |",
        "|---|---|---|---|---|",
    ]
    rng = np.random.default_rng(0)
    paired = []
    for scope, examples in (("page's 200", task.heldout[: jobs.HELDOUT_LIMIT]), ("all", task.heldout)):
        readers = {
            name: qa.predicted_answers(job.trained_model(name), base.tokenizer, examples, settings.max_length)
            for name in snapshot.results
        }
        readers["word matcher"] = qa.alignment_answers(examples)
        readers["word matcher, question asked in place"] = qa.alignment_answers(
            [e._replace(question=e.cloze) for e in examples]
        )
        readers["longest name of the asked type"] = qa.longest_entity_answers(examples)
        index = rng.integers(0, len(examples), size=(RESAMPLES, len(examples)))
        scored = {name: per_question(answers, examples) for name, answers in readers.items()}
        for name, (em, f1) in scored.items():
            steps = snapshot.results[name].steps if name in snapshot.results else "–"
            lines.append(
                f"| {name} | {steps} | {scope} ({len(examples):,}) | {cell(interval(em, rng, index))} | "
                f"{cell(interval(f1, rng, index))} |"
            )
        train = qa.encode_spans(base.tokenizer, task.train[: snapshot.train_size], settings.max_length)
        random_start = qa.random_start_scores(
            base.tokenizer, examples, settings.max_length, qa.typical_answer_tokens(train)
        )
        lines.append(
            f"| random start (expectation) | – | {scope} ({len(examples):,}) | {100 * random_start.exact_match:.1f}% | "
            f"{100 * random_start.f1:.1f}% |"
        )
        for other in ("random", "word matcher"):
            difference = scored["pretrained"][0] - scored[other][0]
            paired.append(f"{scope}: pre-trained minus {other}, exact match {cell(interval(difference, rng, index))}")
    lines += ["", *(f"- {line}" for line in paired), ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="qa-zh,qa-en")
    parser.add_argument("--write", action="store_true", help=f"append the tables to {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args()
    base = load("embedded")
    out = [
        f"## {time.strftime('%Y-%m-%d')}: `bench/qa_finetune.py --tasks {args.tasks}` on {platform.machine()}, "
        f"the embedded model\n"
    ]
    print(out[0], flush=True)
    for task_name in args.tasks.split(","):
        lines = run_task(task_name, base)
        print("\n".join(lines), flush=True)
        out += lines
    if args.write:
        with RESULTS.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
