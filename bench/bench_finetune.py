"""Fine-tuning on 2 CPU cores: what 60 seconds buy, and our loop's speed against a plain transformers loop.

1. sentiment-zh on the embedded model, pretrained start versus random start, the same data, settings and
   time budget; held-out accuracy of each.
   For scale, a bag-of-characters logistic regression on the same held-out reviews, trained on the same
   training set and on all of it: how far characters alone get on this (noisy) data. With ``--full-epoch``,
   also one epoch over every training review at 128 tokens with no time limit (about 12 minutes on 2 cores):
   what the model reaches when compute is not the limit.
2. Training throughput on the same weights and batches: ``model.training.finetune.finetune``'s model step against
   a plain ``transformers`` BertForSequenceClassification step, alternating, so background load hits both.

    .venv/bin/python bench/bench_finetune.py [--seconds 60] [--threads 2] [--full-epoch]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.checkpoint import load
from model.data.tasks import load_task
from model.training import finetune as ft
from model.training.baselines import bag_of_characters_accuracy
from model.training.pretrain import make_optimizer

LR = 2e-4  # the same for both starts; the schedule warms up and decays within the time budget


def budget_run(
    base,
    task,
    init: str,
    seconds: float | None,
    train_size: int,
    heldout_size: int,
    *,
    epochs: int = 10,
    max_length: int = 64,
) -> dict:
    settings = ft.FinetuneSettings(
        epochs=epochs, batch_size=32, lr=LR, max_length=max_length, max_seconds=seconds, seed=0
    )
    train = ft.encode_examples(base.tokenizer, task.kind, task.train[:train_size], settings.max_length)
    heldout = ft.encode_examples(base.tokenizer, task.kind, task.heldout[:heldout_size], settings.max_length)
    model = ft.build_task_model(base, task.labels, task.kind, init, seed=0)
    result = ft.finetune(model, train, settings, labels=task.labels, heldout=heldout)
    return {
        "init": init,
        "steps": result.steps,
        "seconds": result.seconds,
        "examples": result.steps * settings.batch_size,
        "accuracy": result.evaluation.accuracy,
    }


def bag_of_characters(task, train_size: int, heldout_size: int) -> float:
    """Held-out accuracy of a logistic regression on which characters a review contains (the page's baseline)."""
    return bag_of_characters_accuracy(task.train[:train_size], task.heldout[:heldout_size], len(task.labels))


def throughput(base, task, steps: int) -> tuple[float, float]:
    """Median seconds per training step, ours and transformers', on identical weights and batches."""
    from transformers import BertForSequenceClassification
    from transformers.utils import logging as hf_logging

    from model.checkpoint import save_folder

    hf_logging.set_verbosity_error()
    ours = ft.build_task_model(base, task.labels, task.kind, "pretrained", seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        save_folder(ours, base.tokenizer, tmp)
        reference = BertForSequenceClassification.from_pretrained(tmp, num_labels=len(task.labels))
    data = ft.encode_examples(base.tokenizer, task.kind, task.train[: 32 * steps], 64)
    ours.train()
    reference.train()
    opt_ours = make_optimizer(ours, 5e-5, 0.01)
    opt_ref = torch.optim.AdamW(reference.parameters(), lr=5e-5, weight_decay=0.01)

    def step_ours(b):
        out = ours(b.input_ids, b.token_type_ids, b.attention_mask, labels=b.labels)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
        opt_ours.step()
        opt_ours.zero_grad(set_to_none=True)

    def step_ref(b):
        out = reference(
            input_ids=b.input_ids, token_type_ids=b.token_type_ids, attention_mask=b.attention_mask, labels=b.labels
        )
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(reference.parameters(), 1.0)
        opt_ref.step()
        opt_ref.zero_grad(set_to_none=True)

    a, r = [], []
    for i in range(steps):
        b = data.batch(torch.arange(32 * i, 32 * (i + 1)))
        for fn, times in ((step_ours, a), (step_ref, r)):
            start = time.perf_counter()
            fn(b)
            times.append(time.perf_counter() - start)
    return statistics.median(a[1:]), statistics.median(r[1:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-size", type=int, default=2000)
    parser.add_argument("--heldout-size", type=int, default=None, help="default: the whole held-out split")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument(
        "--full-epoch", action="store_true", help="also one epoch on every training review, no time limit"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    base = load("embedded")
    task = load_task("sentiment-zh")
    heldout_size = args.heldout_size or len(task.heldout)
    print(
        f"threads={torch.get_num_threads()}, sentiment-zh, {args.train_size} training / {heldout_size} held-out "
        f"reviews, batch 32 x 64 tokens, lr {LR:g}, budget {args.seconds:.0f} s\n"
    )
    print("| start | steps | examples seen | seconds | held-out accuracy |\n|---|---|---|---|---|")
    for init in ("pretrained", "random"):
        r = budget_run(base, task, init, args.seconds, args.train_size, heldout_size)
        print(f"| {r['init']} | {r['steps']} | {r['examples']} | {r['seconds']:.1f} | {r['accuracy']:.1%} |")
    if args.full_epoch:
        tokens = 128
        r = budget_run(base, task, "pretrained", None, len(task.train), heldout_size, epochs=1, max_length=tokens)
        print(
            f"| pretrained, all {len(task.train)} reviews, 1 epoch, {tokens} tokens, no time limit | {r['steps']} | "
            f"{r['examples']} | {r['seconds']:.1f} | {r['accuracy']:.1%} |"
        )
    for size in (args.train_size, len(task.train)):
        print(
            f"| bag of characters, {size} reviews, no time limit | - | - | - | "
            f"{bag_of_characters(task, size, heldout_size):.1%} |"
        )
    ours, ref = throughput(base, task, args.steps)
    print("\n| training step (batch 32 x 64) | ours s | transformers s | ratio |\n|---|---|---|---|")
    print(f"| median of {args.steps - 1} | {ours:.3f} | {ref:.3f} | {ours / ref:.2f} |")


if __name__ == "__main__":
    main()
