"""Thirty fine-tuning runs at once, on loopback only (issue 59): the students of a class press Start within a few
seconds on one server that allows ``BERT_LAB_MAX_TRAININGS`` (2) trainings at a time.

Each student is a tab as ``classroom_load.py`` speaks to the server (Streamlit's websocket protocol, no browser).
Every student must be told its place in the queue; every third closes its tab while queued (its run must then be
cancelled, never started); ten others keep using fill-mask and attention meanwhile, their p95 set against the serial
floor as ``classroom_load.py`` defines it (those ten requests' model work one after another, in this process, without
Streamlit). Afterwards, past the session TTL: the server's processes and threads counted again, and a new Start must
train at once (the queue is empty).

    .venv/bin/python bench/classroom_flood.py [--trainers 30] [--start-within 5] [--max-trainings 2] [--timeout 1800]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from classroom_load import (  # noqa: E402
    FINETUNE_QUERY,
    FINETUNE_TEXT,
    QUEUED_TEXT,
    PageRun,
    StudentTab,
    fine_tuner,
    model_floor,
    p95,
    percentiles,
    phase,
    press_start,
    running_server,
    settled,
    student,
)


def children_of(pid: int) -> dict[int, list[int]]:
    """The server's processes below it, by parent: the fork server and multiprocessing's resource tracker (started
    with the first training and kept for the next), and the training processes the fork server forks."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
    tree, frontier = {}, [pid]
    while frontier:
        for parent in frontier:
            tree[parent] = [child for child, of in parents.items() if of == parent]
        frontier = [child for parent in frontier for child in tree[parent]]
    return tree


def trainings(pid: int) -> int:
    """The training processes: the children of the server's children (a fork server's forks)."""
    tree = children_of(pid)
    return sum(len(tree.get(child, [])) for child in tree[pid])


def helpers(pid: int) -> int:
    """The server's own child processes: the fork server and the resource tracker, once a training has run."""
    return len(children_of(pid)[pid])


def threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1])


async def flood(port: int, pid: int, args, floor: dict[str, float]) -> None:
    """``args.trainers`` students press Start within ``args.start_within`` seconds; every third closes its
    tab once the page has told it its place in the queue; ten others keep using fill-mask and attention until every
    training has ended. Then, after the session TTL: the training processes left (none should be), the server's
    threads against their count before, and whether a new Start trains at once (the queue emptied, the closed tabs'
    runs cancelled)."""
    thread_count = threads(pid)
    outcome: dict = {}
    others: dict[str, list[float]] = {"fill_mask": [], "attention": []}
    other_errors: list[str] = []
    deadline = time.perf_counter() + args.timeout
    rng = random.Random(0)
    delays = [rng.uniform(0, args.start_within) for _ in range(args.trainers)]

    def ended() -> int:
        return len(outcome.get("finished", {})) + len(outcome.get("errors", [])) + len(outcome.get("left", ()))

    async def keep_using(i: int) -> None:
        while time.perf_counter() < deadline and ended() < args.trainers:
            await student(port, 2000 + i * 1000 + len(others["fill_mask"]), others, other_errors)
            await asyncio.sleep(2)

    wall, peak = await phase(
        pid,
        *(
            fine_tuner(port, i, outcome, deadline, delays[i], leave_when_queued=i % 3 == 2)
            for i in range(args.trainers)
        ),
        *(keep_using(i) for i in range(10)),
    )
    during = trainings(pid)
    await asyncio.sleep(args.session_ttl + 5)
    await student(port, 9500, {"fill_mask": [], "attention": []}, other_errors)  # a session event: expired ones go
    async with StudentTab(port) as tab:
        status = (await press_start(tab)).text()
        await tab.run("finetune", FINETUNE_QUERY, press=_stop_button(await tab.run("finetune", FINETUNE_QUERY)))
    for _ in range(30):  # the stopped run's process ends with its last step
        await asyncio.sleep(1)
        if trainings(pid) == 0:
            break
    finished, waited, places = outcome.get("finished", {}), outcome.get("waited", {}), outcome.get("place", {})
    print(
        f"## {args.trainers} students press Start within {args.start_within:.0f} s (limit {args.max_trainings}); "
        f"every third closes its tab once queued; 10 others use fill-mask and attention meanwhile\n"
    )
    print(
        f"told their place: {len(places)}/{args.trainers} (places {min(places.values(), default='-')}.."
        f"{max(places.values(), default='-')}); closed their tab while queued: {len(outcome.get('left', ()))}; "
        f"finished {len(finished)}; errors: {outcome.get('errors') or 'none'}\n"
    )
    print("| | n | p50 s | p95 s | max s |\n|---|---|---|---|---|")
    print(f"| queued, until training started | {len(waited)} | {percentiles(list(waited.values()))} |")
    print(f"| Start to results | {len(finished)} | {percentiles(list(finished.values()))} |")
    for name, values in others.items():
        ratio = f" = {p95(values) / floor[name]:.1f}x the floor" if values else ""
        print(f"| {name} meanwhile{ratio} | {len(values)} | {percentiles(values)} |")
    print(
        f"\nfloor (the ten others' requests' model work one after another, no Streamlit): fill-mask "
        f"{floor['fill_mask']:.2f} s, attention {floor['attention']:.2f} s. wall {wall:.0f} s; server peak {peak:.0f} MB; "
        f"training processes at the end of the flood {during}, after the last Stop {trainings(pid)}; fork server "
        f"and resource tracker {helpers(pid)}; server threads before {thread_count}, after "
        f"{threads(pid)}; a new Start afterwards {'QUEUED' if QUEUED_TEXT in status else 'trained at once'}; "
        f"errors of the others: {other_errors or 'none'}\n"
    )


def _stop_button(page: PageRun) -> str:
    return next((b.id for b in page.of_type("button") if b.label == FINETUNE_TEXT["stop"]["en"]), "")


async def run(args) -> None:
    floor = model_floor(10, first=2000)  # the serial floor, as classroom_load's phase 1 defines it
    with running_server(max_trainings=args.max_trainings, session_ttl=args.session_ttl) as (port, server):
        await student(port, 0, {"fill_mask": [], "attention": []}, [])  # a teacher's first visit loads the model
        print(f"server settled {settled(server.pid):.1f} s after the first visit\n")
        await flood(port, server.pid, args, floor)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainers", type=int, default=30, help="students who press Start")
    parser.add_argument("--start-within", type=float, default=5.0, help="seconds over which they press it")
    parser.add_argument("--max-trainings", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--session-ttl", type=int, default=20, help="seconds the server keeps a closed tab's session")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
