"""Fill-mask over a few hundred texts through the CLI, against ``transformers.pipeline("fill-mask")`` on the
same weights, at BERT-Base size and at the embedded model's size.

Each side goes from the checkpoint folder to every answer: ours is ``python -m model fill-mask --json -``
(run in this process, the texts on its stdin, its JSON lines captured); the reference builds the pipeline
from the same folder and runs it over the same texts, once one text at a time (its default) and once with
its ``batch_size``. Our one-at-a-time loop over ``inference.fill_mask`` is timed too, to show what batching
buys. The implementations alternate round by round so that background load hits all alike; the ratio
(ours / reference, per text) is what matters: below 1.0 we are faster.

The texts are ``model/analysis/sentences_en.txt`` (held-out English sentences), each with its middle word
replaced by [MASK]. No BERT-Base weights can be downloaded here; the BERT-Base-shaped model has random
weights (``bench_model.write_bert_base``), which cost the same time as trained ones.

    .venv/bin/python bench/bench_fill_mask.py [--texts 300] [--repeats 3] [--pipeline-batches 1,32] [--threads 2]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_model import reference_pipeline, write_bert_base, write_embedded_fp32  # noqa: E402

from model import cli, inference  # noqa: E402
from model.checkpoint import load_folder  # noqa: E402

SENTENCES = Path(__file__).resolve().parents[1] / "model" / "analysis" / "sentences_en.txt"


def masked_texts(n: int) -> list[str]:
    """``n`` sentences (the file repeated if it is shorter), each with its middle word replaced by [MASK]."""
    lines = [line for line in SENTENCES.read_text(encoding="utf-8").splitlines() if len(line.split()) >= 3]
    texts = []
    for i in range(n):
        words = lines[i % len(lines)].split()
        words[len(words) // 2] = "[MASK]"
        texts.append(" ".join(words))
    return texts


def ours_cli(folder: Path, texts: list[str]) -> tuple[float, list[dict]]:
    """``python -m model fill-mask --json -`` with the texts on stdin: seconds and the JSON objects."""
    out = io.StringIO()
    stdin, sys.stdin = sys.stdin, io.StringIO("\n".join(texts) + "\n")
    try:
        start = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = cli.main(["fill-mask", "--model", str(folder), "--top-k", "5", "--json", "-"])
        seconds = time.perf_counter() - start
    finally:
        sys.stdin = stdin
    if code != 0:
        raise SystemExit(f"the CLI exited with {code}")
    return seconds, [json.loads(line) for line in out.getvalue().splitlines()]


def ours_one_at_a_time(folder: Path, texts: list[str]) -> tuple[float, list[dict]]:
    """What the CLI did before it batched: one forward pass per text."""
    start = time.perf_counter()
    bundle = load_folder(folder)
    results = [inference.fill_mask(bundle, text, top_k=5).to_json() for text in texts]
    return time.perf_counter() - start, results


def reference(folder: Path, texts: list[str], batch_size: int) -> tuple[float, list[list[dict]]]:
    start = time.perf_counter()
    pipe = reference_pipeline(folder)
    results = pipe(texts, batch_size=batch_size)
    return time.perf_counter() - start, results


def agreement(ours: list[dict], other: list[dict]) -> tuple[float, float]:
    """Share of texts with the same top-5 ids in the same order, and the largest probability difference."""
    same, worst = 0, 0.0
    for a, b in zip(ours, other, strict=True):
        pa, pb = a["masks"][0]["predictions"], b["masks"][0]["predictions"]
        same += [p["id"] for p in pa] == [p["id"] for p in pb]
        worst = max(worst, *(abs(x["prob"] - y["prob"]) for x, y in zip(pa, pb)))
    return same / len(ours), worst


def as_ours(pipeline_results: list[list[dict]]) -> list[dict]:
    """The pipeline's answers in our JSON's shape, for ``agreement``."""
    return [
        {"masks": [{"predictions": [{"id": r["token"], "prob": r["score"]} for r in answer]}]}
        for answer in pipeline_results
    ]


def measure(name: str, folder: Path, texts: list[str], repeats: int, batches: list[int], one_at_a_time: bool) -> dict:
    runs = {"ours: CLI": lambda: ours_cli(folder, texts)}
    if one_at_a_time:
        runs["ours: one at a time"] = lambda: ours_one_at_a_time(folder, texts)
    for b in batches:
        runs[f"pipeline, batch_size {b}"] = lambda b=b: reference(folder, texts, b)
    seconds = {key: [] for key in runs}
    answers = {}
    for _ in range(repeats):
        for key, run in runs.items():
            s, answers[key] = run()
            seconds[key].append(s)
    per_text = {key: statistics.median(s) / len(texts) * 1000 for key, s in seconds.items()}
    checks = {}
    if one_at_a_time:
        checks["CLI = one at a time"] = agreement(answers["ours: CLI"], answers["ours: one at a time"])
    for key in runs:
        if key.startswith("pipeline"):
            checks[f"CLI = {key}"] = agreement(answers["ours: CLI"], as_ours(answers[key]))
    return {"model": name, "ms_per_text": per_text, "checks": checks}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pipeline-batches", default="1,32", help="the reference's batch_size, one run for each")
    parser.add_argument("--no-one-at-a-time", action="store_true", help="skip our one-text-at-a-time loop")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", default="base,embedded", help="base, embedded or both (comma-separated)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # its load reports list the heads a masked-LM model does not use
    hf_logging.disable_progress_bar()
    texts = masked_texts(args.texts)
    batches = [int(b) for b in args.pipeline_batches.split(",")]
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {
            "base": lambda: ("BERT-Base (110M)", write_bert_base(Path(tmp) / "bert-base")),
            "embedded": lambda: ("embedded", write_embedded_fp32(Path(tmp) / "embedded-fp32")),
        }
        for size in args.sizes.split(","):
            name, folder = folders[size]()
            rows.append(measure(name, folder, texts, args.repeats, batches, not args.no_one_at_a_time))
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    print(
        f"threads={torch.get_num_threads()} texts={len(texts)} repeats={args.repeats}; "
        f"load average {' '.join(load_before)} before, {' '.join(load_after)} after "
        "(median ms per text, the model's load included)\n"
    )
    print("| model | run | ms per text | CLI / run |")
    print("|---|---|---|---|")
    for r in rows:
        ms = r["ms_per_text"]
        for key, value in ms.items():
            print(f"| {r['model']} | {key} | {value:.2f} | {ms['ours: CLI'] / value:.2f} |")
    print("\n| model | answers | same top-5 | largest probability difference |")
    print("|---|---|---|---|")
    for r in rows:
        for key, (same, diff) in r["checks"].items():
            print(f"| {r['model']} | {key} | {same:.0%} | {diff:.1e} |")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
