"""Pre-training tokens per second on this CPU, option by option, against today's loop (issue 53's second item).

Every option trains the embedded model from the same weights by ``python -m model pretrain``'s own loop
(``model.training.pretrain.pretrain``) on batches of the continued runs' mix (``continued_pretraining.md``)
drawn under one seed, a fresh process each, so that each has its own peak memory; the first steps warm
up and are not timed. Reported per option: seconds per step (median), real tokens a second (padding left out),
how full the batches' token slots are (a batch is as long as its longest row), the ratio to today's loop, the last
losses (an option that keeps the arithmetic gives the same curve; one that changes the batches gives another of the
same level) and the peak resident memory (the corpus and the drawn batches included).

- ``today``: ``python -m model pretrain``'s step: 32 x 128 tokens, fp32 (what ``--precision auto`` takes on a CPU
  without bf16 units), AdamW with its default multi-tensor update.
- ``fused-adamw``: AdamW's fused CPU kernel.
- ``compile``: ``torch.compile`` of the model (the compilation's seconds are reported apart, as ``first_s``).
- ``seq64``: 64 x 64 tokens, the same slots a step, nearer the short modern sentences' length.
- ``buckets8``: pairs drawn for 8 batches at once and batched by length (``--length-buckets 8``), so a batch of
  short pairs is cut short instead of padded to a long neighbour; ``seq64-buckets8`` both.
- ``bf16``: bf16 autocast (it pays only where the CPU has bf16 units: AMX or AVX512-BF16; the CPU's flags are
  printed).
- ``threads2``: two torch threads instead of one (meaningful only with both cores idle).

    .venv/bin/python bench/pretrain_throughput.py [--options today,fused-adamw,...] [--steps 14] [--warmup 4]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OPTIONS = {
    "today": {},
    "fused-adamw": {"fused": True},
    "compile": {"compiled": True},
    "seq64": {"seq_len": 64, "batch_size": 64},
    "buckets8": {"length_buckets": 8},
    "seq64-buckets8": {"seq_len": 64, "batch_size": 64, "length_buckets": 8},
    "bf16": {"bf16": True},
    "threads2": {"threads": 2},
}
MIX = {"tatoeba-en": 24, "tatoeba-zh": 14, "sotu": 4, "email-en": 4, "libreoffice-help-en": 4}
ZH_SHARE = 0.45
SEED = 7


def cpu_flags() -> str:
    wanted = ("avx2", "avx512f", "avx512_bf16", "amx_bf16")
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return "unknown"
    present = set(flags.split(":", 1)[1].split())
    return " ".join(f for f in wanted if f in present) or "none of " + " ".join(wanted)


def one(name: str, steps: int, warmup: int) -> dict:
    """Train ``steps`` steps with option ``name`` in this process, by ``python -m model pretrain``'s own loop
    (``model.training.pretrain.pretrain``); the figures of the steps after ``warmup``."""
    import torch

    from model.checkpoint import EMBEDDED_DIR
    from model.data.fetch import default_cache_dir
    from model.data.sources import STANDALONE_SOURCES
    from model.tokenization import BertTokenizer
    from model.training import pretrain as pt
    from model.training.batching import batches, tokenize_corpus
    from model.training.starting_model import init_from_folder

    option = {"seq_len": 128, "batch_size": 32, "length_buckets": 1, "fused": False, "compiled": False, "bf16": False}
    option["threads"] = 1
    option.update(OPTIONS[name])
    torch.set_num_threads(option["threads"])
    vocab = (EMBEDDED_DIR / "vocab.txt").read_text(encoding="utf-8").splitlines()
    tokenizer = BertTokenizer.from_vocab(vocab, lowercase=True)
    corpus = tokenize_corpus(default_cache_dir() / "corpus" / "train.jsonl", tokenizer, MIX, STANDALONE_SOURCES)
    settings = replace(
        pt.PretrainSettings(),
        steps=steps,
        lr=1e-4,
        warmup_steps=0,
        seq_len=option["seq_len"],
        batch_size=option["batch_size"],
        length_buckets=option["length_buckets"],
        source_weights=MIX,
        zh_share=ZH_SHARE,
        bf16=option["bf16"],
    )
    stream = batches(corpus, tokenizer, settings, seed=SEED)
    data = [next(stream) for _ in range(steps)]
    if option["fused"]:
        plain = pt.make_optimizer
        pt.make_optimizer = lambda model, lr, decay: torch.optim.AdamW(
            plain(model, lr, decay).param_groups, betas=(0.9, 0.999), eps=1e-6, fused=True
        )
    torch.manual_seed(0)
    model = init_from_folder(EMBEDDED_DIR, dropout=0.0)
    ends, losses = [time.perf_counter()], []

    def on_step(step: int, metrics: dict) -> None:
        ends.append(time.perf_counter())
        losses.append(round(metrics["loss"], 4))

    pt.pretrain(torch.compile(model) if option["compiled"] else model, iter(data), settings, on_step=on_step)
    seconds = [b - a for a, b in zip(ends, ends[1:])]
    timed, counted = seconds[warmup:], data[warmup:]
    real = sum(int(batch["attention_mask"].sum()) for batch in counted)
    slots = sum(batch["attention_mask"].numel() for batch in counted)  # a batch is cut to its longest row
    return {
        "option": name,
        "s_per_step": round(statistics.median(timed), 3),
        "real_tokens_per_s": round(real / sum(timed)),
        "fill": round(real / slots, 3),
        "first_s": round(seconds[0], 1),
        "last_losses": losses[-3:],
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--options", default=",".join(OPTIONS))
    parser.add_argument("--steps", type=int, default=14)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process's option
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.steps, args.warmup)))
        return
    import torch

    print(
        f"torch {torch.__version__}, CPU flags: {cpu_flags()}, load average {' '.join(map(str, __import__('os').getloadavg()))}"
    )
    rows = []
    for name in args.options.split(","):
        if name not in OPTIONS:
            raise SystemExit(f"unknown option {name!r}: one of {', '.join(OPTIONS)}")
        command = [sys.executable, __file__, "--one", name, "--steps", str(args.steps), "--warmup", str(args.warmup)]
        result = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
        rows.append(json.loads(result.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    base = next((r for r in rows if r["option"] == "today"), rows[0])
    print("\n| option | s / step | real tokens / s | x today | slots filled | first step s | last losses | peak MB |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r["real_tokens_per_s"] / base["real_tokens_per_s"]
        losses = ", ".join(f"{x:.3f}" for x in r["last_losses"])
        print(
            f"| {r['option']} | {r['s_per_step']} | {r['real_tokens_per_s']:,} | {ratio:.2f} | {r['fill']:.0%} | "
            f"{r['first_s']} | {losses} | {r['peak_mb']:,} |"
        )


if __name__ == "__main__":
    main()
