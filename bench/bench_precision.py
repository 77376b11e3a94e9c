"""bf16 autocast against fp32 in our three training loops, on this machine's CPU: steps per second and what the
same steps learn. ``model.training.pretrain.use_bf16`` turns bf16 on by itself where it pays; this is the
measurement behind it.

1. ``pretrain``: the embedded model, continued pre-training batches of 32 x 128 tokens from the everyday
   sentences (``model.training.pretrain.pretrain``, the loop ``python -m model pretrain`` runs).
2. ``finetune``: the fine-tuning page's recipe on sentiment-zh (``demo_settings``: top 3 layers, 16 x 64 tokens),
   one pass over the same first examples, then held-out accuracy (``model.training.finetune.finetune``).
3. ``live``: the live pre-training page's tiny model from scratch (``live_settings``), a fixed step budget, then
   held-out [MASK] top-1 (``run_live``).

Each loop runs in fp32 and in bf16 alternately, ``--repeats`` times, in this process, so a busy machine slows
both alike; medians are compared. The load average is printed with the numbers.

    .venv/bin/python bench/bench_precision.py [--sections pretrain,finetune,live] [--threads 2] [--repeats 2]
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

from model.checkpoint import load
from model.training import batching, live, starting_model
from model.training import finetune as ft
from model.training import pretrain as pt

PRECISIONS = {"fp32": False, "bf16": True}


def loadavg() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def pretrain_run(bf16: bool, steps: int) -> dict:
    base = load("embedded")
    model = starting_model.init_from_folder(base.path, dropout=0.0)
    settings = pt.PretrainSettings(steps=steps, batch_size=32, seq_len=128, lr=2e-5, warmup_steps=0, bf16=bf16)
    en, zh = (live.encode(live.documents(lang), base.tokenizer, lang) for lang in ("en", "zh"))
    corpus = batching.TokenizedCorpus([*en.documents, *zh.documents], en.languages + zh.languages)
    batch_list = [next(batching.batches(corpus, base.tokenizer, settings, seed=i)) for i in range(steps)]
    started = time.perf_counter()
    metrics = pt.pretrain(model, iter(batch_list), settings)
    seconds = time.perf_counter() - started
    return {"seconds_per_step": seconds / steps, "last_loss": metrics["loss"]}


def finetune_run(bf16: bool, examples: int) -> dict:
    from model.data.tasks import load_task

    base = load("embedded")
    task = load_task("sentiment-zh")
    settings = ft.demo_settings(epochs=1, max_seconds=None, bf16=bf16)
    train = ft.encode_examples(base.tokenizer, task.kind, task.train[:examples], settings.max_length)
    heldout = ft.encode_examples(base.tokenizer, task.kind, task.heldout[: ft.DEMO_HELDOUT_SIZE], settings.max_length)
    model = ft.build_task_model(base, task.labels, task.kind, "pretrained", seed=0)
    result = ft.finetune(model, train, settings, labels=task.labels, heldout=heldout)
    return {"seconds_per_step": result.seconds / result.steps, "heldout_accuracy": result.evaluation.accuracy}


def live_run(bf16: bool, steps: int, lang: str) -> dict:
    settings = live.live_settings(lang, steps=steps, max_seconds=None, eval_every=steps, bf16=bf16)
    started = time.perf_counter()
    records = live.run_live(lang, settings)
    seconds = time.perf_counter() - started
    return {"seconds_per_step": seconds / steps, "heldout_top1": records[-1]["heldout_top1"]}


def compare(name: str, run, repeats: int) -> None:
    results: dict[str, list[dict]] = {p: [] for p in PRECISIONS}
    before = loadavg()
    for _ in range(repeats):
        for precision, bf16 in PRECISIONS.items():
            results[precision].append(run(bf16))
    print(f"\n## {name} (load average {before} -> {loadavg()}, {torch.get_num_threads()} thread(s))")
    keys = list(results["fp32"][0])
    print("| precision | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    medians = {}
    for precision, runs in results.items():
        medians[precision] = {k: statistics.median(r[k] for r in runs) for k in keys}
        print(f"| {precision} | " + " | ".join(f"{medians[precision][k]:.4g}" for k in keys) + " |")
    ratio = medians["fp32"]["seconds_per_step"] / medians["bf16"]["seconds_per_step"]
    print(f"bf16 steps per second over fp32's: {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default="pretrain,finetune,live")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--pretrain-steps", type=int, default=8)
    parser.add_argument("--finetune-examples", type=int, default=640)
    parser.add_argument("--live-steps", type=int, default=300)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    amx = getattr(torch.cpu, "_is_amx_tile_supported", lambda: False)()
    print(f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}, AMX: {amx}")
    print(f"use_bf16('cpu') chooses: {'bf16' if pt.use_bf16('cpu') else 'fp32'}")
    sections = args.sections.split(",")
    if "pretrain" in sections:
        compare("pretrain: embedded model, 32 x 128", lambda b: pretrain_run(b, args.pretrain_steps), args.repeats)
    if "finetune" in sections:
        compare("finetune: sentiment-zh, page recipe", lambda b: finetune_run(b, args.finetune_examples), args.repeats)
    if "live" in sections:
        for lang in ("en", "zh"):
            compare(f"live: {lang}", lambda b, lang=lang: live_run(b, args.live_steps, lang), args.repeats)


if __name__ == "__main__":
    main()
