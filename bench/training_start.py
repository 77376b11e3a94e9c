"""How long a training run takes to start (issue 54's test time, issue 59's thirty trainings at once): from the
request to the first step's report, for a run forked from the fork server (``app.core.training_process``) — the
first run after a server starts (which waits for the fork server's own imports) and the runs after it — beside
what each run used to pay before its first step: a fresh interpreter importing the training code and
torch._dynamo (which building an optimizer imports).

    python bench/training_start.py [--runs 5]

Wall seconds and the CPU seconds the children used (``resource.getrusage``), median over ``--runs``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere

from app.core import training_process as tp  # noqa: E402
from model.checkpoint import load  # noqa: E402
from model.training.finetune import build_task_model, demo_settings, encode_examples  # noqa: E402

LABELS = ["negative", "positive"]
TEXTS = [("这本书很好看。", 1), ("服务太差了。", 0)] * 8


def first_step_seconds(bundle) -> float:
    """Seconds from a fine-tuning request to its first step's report, the run then stopped."""
    data = encode_examples(bundle.tokenizer, "sequence", TEXTS, 16)
    request = tp.Request(
        build_task_model(bundle, LABELS, "sequence"), data, data, LABELS, demo_settings(max_length=16), threads=1
    )
    start = time.perf_counter()
    child, to_child, from_child = tp.start_child()
    try:
        tp.send_pickled(to_child, request)
        assert tp.receive_pickled(from_child)[0] == "step"
        return time.perf_counter() - start
    finally:
        child.kill()
        child.join()
        for connection in (to_child, from_child):
            connection.close()


def cold_import_seconds() -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh interpreter importing what a run needs before its first step."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import app.core.training_process, torch._dynamo"], cwd=ROOT, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    bundle = load("embedded")
    first = first_step_seconds(bundle)
    later = [first_step_seconds(bundle) for _ in range(args.runs)]
    cold = [cold_import_seconds() for _ in range(args.runs)]
    print(f"fork server, first run after start: {first:.2f} s to the first step (the fork server's imports, once)")
    print(
        f"fork server, later runs:            {statistics.median(later):.2f} s to the first step (median of {args.runs})"
    )
    print(
        f"a fresh interpreter's imports alone: {statistics.median(w for w, _ in cold):.2f} s wall, "
        f"{statistics.median(c for _, c in cold):.2f} s CPU (median of {args.runs}): what each run paid before"
    )


if __name__ == "__main__":
    main()
