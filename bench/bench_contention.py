"""One attention forward pass while other Python threads keep the interpreter busy, as thirty students' page
runs do on one Streamlit server: the module run operator by operator (eager) against the traced graph that
``model.inference`` runs, side by side in one process, alone and beside N busy threads.

Eager PyTorch lets go of the interpreter lock for every operator and must take it back after; while other
threads hold it, each take-back waits up to the switch interval (the app sets 1 ms, ``app/__init__.py``). A traced
graph takes it back once per call.

    .venv/bin/python bench/bench_contention.py [--busy 4] [--repeats 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model import inference
from model.checkpoint import load

TEXT = "Student 7 opened the [MASK] and walked in."


def median_ms(work, repeats: int) -> float:
    work()  # the first call of a graph or a process allocates
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", type=int, default=4, help="busy Python threads beside the forward pass")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    sys.setswitchinterval(0.001)  # as the app sets it
    torch.set_num_threads(1)  # as the server runs (OMP_NUM_THREADS=1 per page thread)
    bundle = load("embedded")
    enc = inference.encode(bundle, TEXT)
    ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
    causal = torch.tensor([False])

    def eager():
        with torch.inference_mode():
            bundle.model.bert(ids, types, causal=causal, output_attentions=True)

    def traced():
        inference.attention_maps(bundle, TEXT)

    stop = threading.Event()

    def busy() -> None:
        total = 0
        while not stop.is_set():
            for i in range(1000):
                total += i

    rows = [("alone", median_ms(eager, args.repeats), median_ms(traced, args.repeats))]
    threads = [threading.Thread(target=busy, daemon=True) for _ in range(args.busy)]
    for thread in threads:
        thread.start()
    try:
        rows.append(
            (f"beside {args.busy} busy threads", median_ms(eager, args.repeats), median_ms(traced, args.repeats))
        )
    finally:
        stop.set()
    print(f"embedded model, {len(enc.ids)} tokens, one torch thread, switch interval 1 ms; median of {args.repeats}\n")
    print("| | eager ms | traced ms | traced / eager |\n|---|---|---|---|")
    for name, eager_ms, traced_ms in rows:
        print(f"| {name} | {eager_ms:.1f} | {traced_ms:.1f} | {traced_ms / eager_ms:.2f} |")


if __name__ == "__main__":
    main()
