"""The server's CPU for one run of a page, one request at a time: what a class of thirty multiplies.

One websocket session (Streamlit's own protocol, as ``classroom_load.py``'s students) opens each page ``--runs``
times, a new sentence each time (nothing cached), on the app started as the README does, once it has finished
warming up. With ``--new-sessions`` every run is a new tab instead: a student's first page, which also pays for the
session's set-up (and Streamlit compiling the scripts again, which it does after every new connection).

    .venv/bin/python bench/page_cpu.py [--pages classroom,fill_mask,attention] [--runs 40] [--new-sessions]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import urllib.parse

from classroom_load import StudentTab, running_server, sentence, server_cpu, settled, student


async def measure(port: int, pid: int, page: str, runs: int, new_sessions: bool) -> tuple[float, float]:
    """Mean server CPU and wall-clock milliseconds of one run of ``page``."""
    tabs = [StudentTab(port) for _ in range(runs if new_sessions else 1)]
    for tab in tabs:  # connected before the clock starts: a connection is not a run
        await tab.__aenter__()
    cpu, start = sum(server_cpu(pid)), time.perf_counter()
    for i in range(runs):
        lang, text = sentence(1000 + i)  # beyond the class's sentences, and a new one each run
        run = await tabs[i % len(tabs)].run(page, urllib.parse.urlencode({"lang": lang, "text": text}))
        if run.crashed:
            raise SystemExit(f"an exception on {page}")
    cpu, wall = sum(server_cpu(pid)) - cpu, time.perf_counter() - start
    for tab in tabs:
        await tab.__aexit__()
    return 1000 * cpu / runs, 1000 * wall / runs


async def main(args) -> None:
    with running_server() as (port, server):
        await student(port, 0, {"fill_mask": [], "attention": []}, [])  # a teacher's first visit loads the model
        print(f"server settled {settled(server.pid):.1f} s after the first visit")
        kind = "a new session each run" if args.new_sessions else "one session"
        print(f"| page | server CPU per run, ms ({kind}) | wall per run, ms |\n|---|---|---|")
        for page in args.pages.split(","):
            await measure(port, server.pid, page, 3, args.new_sessions)  # the page's first visit in this process
            cpu, wall = await measure(port, server.pid, page, args.runs, args.new_sessions)
            print(f"| {page} | {cpu:.1f} | {wall:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", default="classroom,fill_mask,attention")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--new-sessions", action="store_true", help="a new tab for every run")
    asyncio.run(main(parser.parse_args()))
