"""Every page under concurrent sessions: does any run end in an exception?

A page's model work runs on models shared by all sessions of the server, so a function that changes a shared
model while it runs (a hook, a flag) breaks other sessions only when their runs overlap. One did: gradient x
input hooked the embedding lookup, and the head lab showed a traceback in one CI run out of many. This starts
the app as the README does and has N students (websocket clients, as in ``classroom_load.py``) open pages in
different orders, languages and sentences, hostile ones included, all at once; it prints how many runs
ended in an exception, and their messages.

    .venv/bin/python bench/concurrent_pages.py [--students 12] [--pages-each 10]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from classroom_load import StudentTab, running_server  # noqa: E402

from app.core.navigation import PAGE_FILES  # noqa: E402 - after the path is set

SENTENCES = [
    ("en", "She opened the [MASK] and walked into the room."),
    ("zh", "我去[MASK]场看电影，电影很好看。"),
    ("en", "The bank of the river was [MASK] after the rain."),
    ("zh", "他坐飞[MASK]去上海。"),
    ("en", "The dog [MASK] loudly at the stranger."),
    ("zh", "今天天气很[MASK]，我们去公园散步吧。"),
    ("en", "</script><script>alert(1)</script> **bold** [MASK]"),
    ("zh", ""),
]


async def student(port: int, index: int, pages_each: int, runs: list, failures: list) -> None:
    rng = random.Random(index)
    async with StudentTab(port) as tab:
        for step in range(pages_each):
            page = PAGE_FILES[(index * 5 + step) % len(PAGE_FILES)]
            lang, text = rng.choice(SENTENCES)
            run = await tab.run(page, urllib.parse.urlencode({"lang": lang, "text": text}))
            runs.append(run.seconds)
            if run.crashed:
                messages = [str(element)[:600] for kind, element in run.elements if kind == "exception"]
                failures.append(f"student {index}, {page} ({lang}, {text!r}): {messages}")


async def exercise(port: int, students: int, pages_each: int) -> tuple[list[float], list[str]]:
    """Every student's page runs at once on the server at ``port``: their seconds, and the runs that failed."""
    runs: list[float] = []
    failures: list[str] = []
    await asyncio.gather(*(student(port, i, pages_each, runs, failures) for i in range(students)))
    return runs, failures


async def run(args) -> None:
    with running_server() as (port, _):
        started = time.perf_counter()
        runs, failures = await exercise(port, args.students, args.pages_each)
    print(
        f"{args.students} students, {len(runs)} page runs in {time.perf_counter() - started:.0f} s; "
        f"runs that ended in an exception: {len(failures)}"
    )
    for failure in failures:
        print(" ", failure)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=12)
    parser.add_argument("--pages-each", type=int, default=10)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
