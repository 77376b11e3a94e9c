"""Inside one prediction (issue 55): how long the logit lens, integrated gradients (at a [MASK] and for a
classifier's label) and causal tracing take on a sentence, beside one fill-mask pass on the same sentence (the
reference), median of repeated runs.

    .venv/bin/python bench/bench_inside_prediction.py [--model embedded] [--size base] [--threads 2] [--repeats 5]

``--size base`` times a randomly initialised model of BERT-Base's shape (12 layers, 768 wide, 12 heads) with the
model's vocabulary: the time, not the answers, is what it measures.
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
from model.analysis.attribution import classifier_integrated_gradients, integrated_gradients  # noqa: E402
from model.analysis.tracing import causal_trace  # noqa: E402
from model.checkpoint import LoadedBert, load  # noqa: E402
from model.modeling import BertForPreTraining  # noqa: E402
from model.task_heads import BertForTaskHead  # noqa: E402

SIZES = {"base": {"num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072}}

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
    parser.add_argument("--size", choices=sorted(SIZES), help="a random model of this shape, the model's vocabulary")
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's, one a core)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    bundle = load(args.model)
    if args.size:
        torch.manual_seed(0)
        config = bundle.config.from_dict({**bundle.config.to_dict(), **SIZES[args.size]})
        bundle = LoadedBert(BertForPreTraining(config).eval(), bundle.tokenizer, f"random {args.size}", None)
    classifier = BertForTaskHead(bundle.config.from_dict({**bundle.config.to_dict(), "num_labels": 2}), per_token=False)
    classifier.bert.load_state_dict(bundle.model.bert.state_dict())
    classifier.eval()
    shape = f"{bundle.config.num_hidden_layers} layers x {bundle.config.hidden_size}"
    print(f"{platform.machine()}, {torch.get_num_threads()} threads, model {bundle.name} ({shape})")
    for lang, text in SENTENCES.items():
        tokens = len(bundle.tokenizer.encode(text).ids)
        views = {
            "fill-mask (reference)": lambda text=text: inference.fill_mask(bundle, text),
            "logit lens": lambda text=text: inference.logit_lens(bundle, text),
            "integrated gradients": lambda text=text: integrated_gradients(bundle, text),
            "integrated gradients, classifier": lambda text=text: classifier_integrated_gradients(
                classifier, bundle.tokenizer, text.replace("[MASK]", "tea"), ["no", "yes"]
            ),
            "causal tracing (3 kinds)": lambda text=text: causal_trace(bundle, text),
            # What the page draws first: every kind on the first noise draw, before the mean over them all.
            "causal tracing, first draw": lambda text=text: causal_trace(bundle, text, draws=range(1)),
            "causal tracing (layer only)": lambda text=text: causal_trace(bundle, text, kinds=("layer",)),
        }
        reference = None
        for name, work in views.items():
            seconds = median_seconds(work, args.repeats)
            reference = reference or seconds
            print(f"{lang} ({tokens} tokens)  {name:34s} {seconds:7.3f} s  ({seconds / reference:6.1f}x fill-mask)")


if __name__ == "__main__":
    main()
