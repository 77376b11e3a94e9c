"""Inside one prediction (issue 55): how long the logit lens, integrated gradients and causal tracing take on a
sentence, beside one fill-mask pass on the same sentence (the reference), median of repeated runs.

    .venv/bin/python bench/bench_inside_prediction.py [--model embedded] [--repeats 5]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from model import inference  # noqa: E402
from model.analysis.attribution import integrated_gradients  # noqa: E402
from model.analysis.tracing import causal_trace  # noqa: E402
from model.checkpoint import load  # noqa: E402

SENTENCES = {  # the page's kind of sentence, and one of 20 tokens (issue 55's size)
    "en": "I drink a cup of [MASK] every morning before I walk to the station with my sister.",
    "zh": "我们每天早上坐[MASK]铁去学校，下午再一起走回家。",
}


def median_seconds(work, repeats: int) -> float:
    work()  # the first run traces graphs and fills caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="embedded")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    bundle = load(args.model)
    print(f"{platform.machine()}, {torch.get_num_threads()} threads, model {args.model}")
    for lang, text in SENTENCES.items():
        tokens = len(bundle.tokenizer.encode(text).ids)
        views = {
            "fill-mask (reference)": lambda text=text: inference.fill_mask(bundle, text),
            "logit lens": lambda text=text: inference.logit_lens(bundle, text),
            "integrated gradients": lambda text=text: integrated_gradients(bundle, text),
            "causal tracing (3 kinds)": lambda text=text: causal_trace(bundle, text),
            "causal tracing (layer only)": lambda text=text: causal_trace(bundle, text, kinds=("layer",)),
        }
        reference = None
        for name, work in views.items():
            seconds = median_seconds(work, args.repeats)
            reference = reference or seconds
            print(f"{lang} ({tokens} tokens)  {name:28s} {seconds:7.3f} s  ({seconds / reference:6.1f}x fill-mask)")


if __name__ == "__main__":
    main()
