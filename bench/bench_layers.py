"""The layers lab's speed: feature extraction against transformers on the same weights, and the default run.

1. Feature extraction: every layer's vectors at the first piece of each word of the default English probe
   sentences, by ``model.analysis.features.extract`` and by a plain ``transformers.BertModel`` forward
   (``output_hidden_states=True``) over the very same padded batches, gathering the same positions. Rounds
   alternate between the two so background load hits both alike; tokens per second of each and the ratio of
   times (ours / reference: below 1.0 we are faster).
2. The default probe run, as the page does it with its default settings: features of the pre-trained and the
   random-initialised model, the task probes on both and the control probes on the pre-trained one; the time
   of each part. The corpus is loaded (and cached in the process) before the clock starts.

    .venv/bin/python bench/bench_layers.py [--repeats 3] [--threads 2] [--task pos-en]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.analysis import data, features, lab
from model.checkpoint import EMBEDDED_DIR, load_folder


def reference_extract(ref, tokenizer, sentences, batch_tokens: int = 4096) -> int:
    """What ``features.extract`` does, with transformers' BertModel for the forward pass; returns the words."""
    cache: dict = {}
    encoded = [features.encode_words(tokenizer, s, tokenizer.max_length, cache) for s in sentences]
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    kept, start = 0, 0
    while start < len(order):
        size = max(1, batch_tokens // len(encoded[order[start]][0]))
        batch = order[start : start + size]
        longest = max(len(encoded[i][0]) for i in batch)
        ids = torch.full((len(batch), longest), tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(batch), longest), dtype=torch.long)
        for row, i in enumerate(batch):
            ids[row, : len(encoded[i][0])] = torch.tensor(encoded[i][0])
            mask[row, : len(encoded[i][0])] = 1
        out = ref(input_ids=ids, attention_mask=mask, output_hidden_states=True)
        hidden = torch.stack(out.hidden_states)  # (L + 1, B, T, H)
        for row, i in enumerate(batch):
            at = [p for p in encoded[i][1] if p >= 0]
            hidden[:, row, at].float().numpy()
            kept += len(at)
        start += len(batch)
    return kept


def bench_extraction(bundle, task: str, repeats: int) -> None:
    from transformers import BertModel

    # The shipped weights are stored in float16, and transformers 5 keeps a checkpoint's dtype; ours computes in
    # float32, so the reference must too (float16 matrix products on a CPU are several times slower).
    ref = BertModel.from_pretrained(EMBEDDED_DIR, dtype=torch.float32).eval()
    probe = data.load_probe_data(task)
    train, test = data.split_sentences_for_probe(probe, lab.TRAIN_SENTENCES, lab.TEST_SENTENCES)
    sentences = [s.words for s in train + test]
    ours_fn = lambda: features.extract(bundle.model.bert, bundle.tokenizer, sentences)  # noqa: E731
    ref_fn = lambda: reference_extract(ref, bundle.tokenizer, sentences)  # noqa: E731
    with torch.inference_mode():
        tokens = ours_fn().tokens
        ref_fn()
        ours, theirs = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            ours_fn()
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            ref_fn()
            theirs.append(time.perf_counter() - start)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"\n1. feature extraction, {task}: {len(sentences)} sentences, {tokens} word-pieces, all layers")
    print(f"{'':<14}{'seconds':>9}{'tokens/s':>10}")
    print(f"{'ours':<14}{a:>9.2f}{tokens / a:>10.0f}")
    print(f"{'transformers':<14}{b:>9.2f}{tokens / b:>10.0f}")
    print(f"ratio (ours / transformers): {a / b:.2f}")


def bench_default_run(bundle, task: str) -> None:
    data.load_probe_data(task)  # the corpus parse is cached per process; the page's first visit pays it once
    times: dict[str, float] = {}
    start = time.perf_counter()
    feats = {}
    for init in features.INITS:
        t = time.perf_counter()
        feats[init] = lab.probe_features(bundle, task, init)
        times[f"features ({init})"] = time.perf_counter() - t
    t = time.perf_counter()
    report = lab.run_probes(feats["pretrained"], control=True)
    times["probes + control (pretrained)"] = time.perf_counter() - t
    t = time.perf_counter()
    lab.run_probes(feats["random"])
    times["probes (random)"] = time.perf_counter() - t
    total = time.perf_counter() - start
    print(
        f"\n2. default probe run, {task}: {lab.TRAIN_SENTENCES} train + {lab.TEST_SENTENCES} test sentences, "
        f"{report.train_words} + {report.test_words} words, {feats['pretrained'].tokens} word-pieces per model"
    )
    for name, seconds in times.items():
        print(f"  {name:<32}{seconds:>7.2f} s")
    print(f"  {'total':<32}{total:>7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--task", default="pos-en", choices=data.PROBE_TASKS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    bundle = load_folder(EMBEDDED_DIR, name="embedded")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average {load:.1f} at the start")
    bench_extraction(bundle, args.task, args.repeats)
    bench_default_run(bundle, args.task)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nload average {load:.1f} at the end")


if __name__ == "__main__":
    main()
