"""Resident memory of a long pre-training run (issue #41): the run the issue measured, in a child process whose
memory is sampled every few seconds from /proc.

    .venv/bin/python bench/pretrain_memory.py [--seconds 3600] [--threads 2] [--interval 5] [--repo PATH]
        [--label after] [--write] [--samples FILE.csv]
    .venv/bin/python bench/pretrain_memory.py --attach PID --log RUN.jsonl [--label ...] [--write]

The child is ``python -m model pretrain --init embedded --lr 5e-5 --zh-share 0.5 --source-weight tatoeba-en=10
--source-weight tatoeba-zh=8 --source-weight sotu=3 --source-weight email-en=3 --max-seconds SECONDS`` with
``--threads``, writing its checkpoints and exported model into a scratch folder (never model/embedded). It reads
the corpus cache (``python -m model corpus`` first). ``--repo`` runs another checkout's ``model`` package (the code
before a change, from a second git worktree) under the same sampler.

Reported: the peak (whole process: set-up, training, final evaluation and export), the resident memory 8 minutes
after the start and when training stopped, and the slope in MB per 10 minutes, fitted by least squares to the
samples of the second half of the training. The figures are VmRSS of the child and any processes it starts
(``--workers``), with the anonymous part (RssAnon: the heap, not the mapped libraries) beside them.
``--write`` appends the table, the command and the commit to bench/results/pretrain_memory.md; ``--samples``
writes every sample to a CSV file.

``--attach`` samples a ``python -m model pretrain --json`` already running (a long run started by hand, whose
stdout goes to ``--log``) until it exits, instead of starting the issue's run: the same figures for the run a
release is trained by. Steps logged before the sampler attached date from the ``seconds`` each line carries.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "pretrain_memory.md"
# The issue's run (#41), less --threads and --max-seconds, which the bench sets.
ISSUE_OPTIONS = [
    "--init", "embedded", "--lr", "5e-5", "--zh-share", "0.5",
    "--source-weight", "tatoeba-en=10", "--source-weight", "tatoeba-zh=8",
    "--source-weight", "sotu=3", "--source-weight", "email-en=3",
]  # fmt: skip


def tree_memory(pid: int) -> tuple[int, int] | None:
    """(VmRSS, RssAnon) in kB of ``pid`` and its descendants; None once it has exited."""
    rss = anon = 0
    todo, seen = [pid], False
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if "VmRSS" not in fields:  # a zombie: exited, not yet reaped
            continue
        rss += int(fields["VmRSS"].split()[0])
        anon += int(fields["RssAnon"].split()[0])
        seen = True
    return (rss, anon) if seen else None


def least_squares_slope(points: list[tuple[float, float]]) -> float:
    """Slope of y on x (per unit of x) fitted by least squares."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def run(seconds: float, threads: int, interval: float, repo: Path) -> dict:
    """Run the pre-training child and sample it; the samples and the times training started and stopped."""
    with tempfile.TemporaryDirectory(prefix="pretrain-memory-") as scratch:
        command = [
            sys.executable, "-m", "model", "pretrain", *ISSUE_OPTIONS,
            "--threads", str(threads), "--max-seconds", str(seconds),
            "--state-dir", f"{scratch}/state", "--out", f"{scratch}/out", "--json",
        ]  # fmt: skip
        started = time.monotonic()
        child = subprocess.Popen(command, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        steps: list[tuple[float, dict]] = []  # (seconds since start, the logged metrics)
        errors: list[str] = []

        def read(stream, into, parse):
            for line in stream:
                into.append(parse(line))

        def parse_step(line: str):
            try:
                return time.monotonic() - started, json.loads(line)
            except json.JSONDecodeError:
                return time.monotonic() - started, {"text": line.rstrip()}

        readers = [
            threading.Thread(target=read, args=(child.stdout, steps, parse_step), daemon=True),
            threading.Thread(target=read, args=(child.stderr, errors, str.rstrip), daemon=True),
        ]
        for reader in readers:
            reader.start()
        samples: list[tuple[float, int, int]] = []  # (seconds since start, VmRSS kB, RssAnon kB)
        while child.poll() is None:
            memory = tree_memory(child.pid)
            if memory is not None:
                samples.append((time.monotonic() - started, *memory))
            time.sleep(interval)
        for reader in readers:
            reader.join(timeout=10)
    if child.returncode != 0:
        raise SystemExit(f"the pre-training run failed ({child.returncode}):\n" + "\n".join(errors[-20:]))
    logged = [(t, m) for t, m in steps if "step" in m]
    if not logged:
        raise SystemExit("the run logged no step: is --seconds long enough for ten steps?")
    # The first logged line comes at step 10: take training to have started when step 1 would have.
    first_t, first = logged[0]
    last_t, last = logged[-1]
    per_step = (last_t - first_t) / max(1, last["step"] - first["step"])
    return {
        "command": command,
        "samples": samples,
        "train_start": first_t - per_step * (first["step"] - 1),
        "train_end": last_t,
        "steps": last["step"],
        "wall": time.monotonic() - started,
        "errors": errors,
    }


def attach(pid: int, log: Path, interval: float) -> dict:
    """Sample the running pre-training process ``pid`` until it exits; its steps are the JSON lines of ``log``."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    started = time.monotonic()
    samples: list[tuple[float, int, int]] = []
    while Path(f"/proc/{pid}").exists():
        memory = tree_memory(pid)
        if memory is not None:
            samples.append((time.monotonic() - started, *memory))
        time.sleep(interval)
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    logged = [m for m in logged if "step" in m and "seconds" in m]
    if not logged:
        raise SystemExit(f"{log}: no logged step")
    # The run's clock (its lines' ``seconds``) against the sampler's: the last line was written about when the
    # training stopped, shortly before the process (evaluation, export) ended.
    offset = samples[-1][0] - logged[-1]["seconds"] if samples else 0.0
    return {
        "command": [c.decode() for c in command if c],
        "samples": samples,
        "train_start": offset,
        "train_end": offset + logged[-1]["seconds"],
        "steps": logged[-1]["step"],
        "wall": time.monotonic() - started,
        "errors": [],
        "attached": True,
    }


def summarize(result: dict) -> dict:
    samples, start, end = result["samples"], result["train_start"], result["train_end"]
    mb = 1 / 1024

    def at(t: float) -> tuple[float, float] | None:
        before = [s for s in samples if s[0] <= t]
        return (before[-1][1] * mb, before[-1][2] * mb) if before and t <= samples[-1][0] else None

    half = [(t, rss * mb) for t, rss, _ in samples if start + (end - start) / 2 <= t <= end]
    half_anon = [(t, anon * mb) for t, _, anon in samples if start + (end - start) / 2 <= t <= end]
    peak = max(samples, key=lambda s: s[1])
    return {
        "peak": (peak[1] * mb, max(s[2] for s in samples) * mb),
        "peak_at": peak[0],
        "at_8_min": at(480.0),
        "at_end": at(end),
        "slope": least_squares_slope(half) * 600 if len(half) >= 2 else float("nan"),
        "slope_anon": least_squares_slope(half_anon) * 600 if len(half_anon) >= 2 else float("nan"),
        "samples_in_fit": len(half),
    }


def table(result: dict, summary: dict) -> str:
    def cell(value):
        return "n/a (run shorter)" if value is None else f"{value[0]:,.0f} ({value[1]:,.0f})"

    rows = [
        ("peak", cell(summary["peak"]) + f" at {summary['peak_at'] / 60:.1f} min"),
        (
            "8 min after the sampler attached" if result.get("attached") else "8 min after the start",
            cell(summary["at_8_min"]),
        ),
        (f"training stopped ({result['train_end'] / 60:.1f} min)", cell(summary["at_end"])),
        (
            "slope over the second half of training",
            f"{summary['slope']:+,.1f} ({summary['slope_anon']:+,.1f}) MB per 10 min, "
            f"{summary['samples_in_fit']} samples",
        ),
    ]
    return "\n".join(
        [
            "| resident memory | MB: VmRSS (RssAnon) |",
            "|---|---|",
            *(f"| {name} | {value} |" for name, value in rows),
            "",
            f"Training ran from {result['train_start'] / 60:.1f} to {result['train_end'] / 60:.1f} min "
            f"({result['steps']} steps); the process ended at {result['wall'] / 60:.1f} min.",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3600.0, help="training time (the run's --max-seconds)")
    parser.add_argument("--threads", type=int, default=2, help="the run's --threads (the issue's: 2)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose model package runs")
    parser.add_argument("--label", default="", help="names the run in the written section")
    parser.add_argument("--write", action="store_true", help=f"append the result to {RESULTS.relative_to(ROOT)}")
    parser.add_argument("--samples", type=Path, default=None, help="also write every sample here (CSV)")
    parser.add_argument("--attach", type=int, default=None, help="sample this running pre-training process instead")
    parser.add_argument("--log", type=Path, default=None, help="with --attach: the file its --json lines go to")
    args = parser.parse_args()
    repo = args.repo.resolve()
    if args.attach is not None:
        if args.log is None:
            parser.error("--attach needs --log")
        result = attach(args.attach, args.log, args.interval)
    else:
        result = run(args.seconds, args.threads, args.interval, repo)
    if args.samples:
        args.samples.write_text(
            "seconds,vmrss_kb,rssanon_kb\n" + "".join(f"{t:.1f},{rss},{anon}\n" for t, rss, anon in result["samples"])
        )
    summary = summarize(result)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", "model"], capture_output=True)
    load = os.getloadavg()
    text = "\n".join(
        [
            f"### {args.label or 'run'}: {datetime.date.today()}, commit {commit.stdout.strip()}"
            + (" (with uncommitted changes in model/)" if dirty.stdout.strip() else ""),
            "",
            f"`{shlex.join(['python', *sys.argv])}`",
            "",
            ("Attached to" if result.get("attached") else "Child")
            + f": `{shlex.join(['python', *result['command'][1:]])}`",
            "",
            table(result, summary),
            f"Load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}.",
            "",
        ]
    )
    print(text)
    if args.write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        with open(RESULTS, "a", encoding="utf-8") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
