"""A whole classroom at once, on loopback only: N browser sessions against one app server.

Phase 1: N sessions (Playwright contexts in Debian's Chromium) each open the fill-mask page with their own
sentence, then the attention page; we record how long each takes until its answer is on screen, and the
server's peak memory. Phase 2: three sessions start fine-tuning at the same moment (the server allows
``BERT_LAB_MAX_TRAININGS=2`` at once, so one must queue visibly) while ten more keep using fill-mask; all
three must finish. Phase 3: sessions open and close in waves; the server's memory afterwards shows whether
closed sessions are freed. Bounded in time; every request goes to 127.0.0.1.

    .venv/bin/python bench/classroom_load.py [--sessions 30] [--waves 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
READY = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
SENTENCES = [
    "She opened the [MASK] and walked in.", "我去[MASK]场看电影。", "The capital of France is [MASK].",
    "今天天气很[MASK]。", "He drank a cup of [MASK].", "我们明天去北[MASK]开会。",
]


def rss_mb(pid: int) -> tuple[float, float]:
    """Current and peak resident memory of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def start_server(port: int) -> subprocess.Popen:
    env = {**os.environ, "HOME": tempfile.mkdtemp(), "HF_HUB_OFFLINE": "1", "BERT_LAB_MAX_TRAININGS": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the app did not start")


async def one_session(browser, base: str, i: int, timings: dict, errors: list) -> None:
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    page = await context.new_page()
    await page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    try:
        text = urllib.parse.quote(SENTENCES[i % len(SENTENCES)])
        for name in ("fill_mask", "attention"):
            start = time.perf_counter()
            await page.goto(f"{base}/{name}?lang={'zh' if i % 2 else 'en'}&text={text}", timeout=180_000)
            await page.wait_for_selector(READY, timeout=180_000)
            await page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=180_000)
            timings[name].append(time.perf_counter() - start)
            if await page.get_by_test_id("stException").count():
                errors.append(f"session {i}: exception on {name}")
    except Exception as e:  # a session that fails is a finding to report, not a crash of the benchmark
        errors.append(f"session {i}: {type(e).__name__}: {str(e).splitlines()[0]}")
    finally:
        await context.close()


async def fine_tune_session(browser, base: str, i: int, outcome: dict) -> None:
    """Start the default fine-tuning run and wait until the page reports its held-out result."""
    from app.text.finetune import TEXT

    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    page = await context.new_page()
    await page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    try:
        await page.goto(f"{base}/finetune?lang=en", timeout=180_000)
        await page.wait_for_selector(READY, timeout=180_000)
        start = time.perf_counter()
        await page.get_by_role("button", name=TEXT["start"]["en"]).click()
        queued_text = TEXT["queued"]["en"].split("{")[0].strip()
        deadline = time.perf_counter() + 600
        while time.perf_counter() < deadline:
            if queued_text and await page.get_by_text(queued_text).count():
                outcome.setdefault("queued", set()).add(i)
            if await page.get_by_text(TEXT["results_header"]["en"]).count():
                outcome.setdefault("finished", {})[i] = time.perf_counter() - start
                break
            await asyncio.sleep(1.0)
        if await page.get_by_test_id("stException").count():
            outcome.setdefault("errors", []).append(f"fine-tuning session {i}: exception")
    except Exception as e:  # reported, not raised: the benchmark's job is to say what happened
        outcome.setdefault("errors", []).append(f"fine-tuning session {i}: {type(e).__name__}: {str(e).splitlines()[0]}")
    finally:
        await context.close()


def percentiles(values: list[float]) -> tuple[float, float, float]:
    values = sorted(values)
    p95 = values[max(0, int(round(0.95 * len(values))) - 1)]
    return statistics.median(values), p95, values[-1]


async def run(args) -> None:
    from playwright.async_api import async_playwright

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            # Warm-up: the first visit loads the model into the server's cache, as a teacher's would.
            await one_session(browser, base, 0, {"fill_mask": [], "attention": []}, [])
            idle, _ = rss_mb(server.pid)
            timings: dict[str, list[float]] = {"fill_mask": [], "attention": []}
            errors: list[str] = []
            start = time.perf_counter()
            await asyncio.wait_for(asyncio.gather(*(one_session(browser, base, i, timings, errors) for i in range(args.sessions))),
                                   timeout=args.timeout)
            wall = time.perf_counter() - start
            now, peak = rss_mb(server.pid)
            print(f"## {args.sessions} concurrent sessions (fill-mask, then attention), embedded model\n")
            print("| page | answered | p50 s | p95 s | max s |\n|---|---|---|---|---|")
            for name, values in timings.items():
                p50, p95, worst = percentiles(values)
                print(f"| {name} | {len(values)}/{args.sessions} | {p50:.2f} | {p95:.2f} | {worst:.2f} |")
            print(f"\nwall {wall:.1f} s; server memory: idle {idle:.0f} MB, after {now:.0f} MB, peak {peak:.0f} MB")
            print(f"errors: {errors or 'none'}")

            outcome: dict = {}
            others: dict[str, list[float]] = {"fill_mask": [], "attention": []}
            other_errors: list[str] = []
            start = time.perf_counter()
            await asyncio.wait_for(asyncio.gather(
                *(fine_tune_session(browser, base, i, outcome) for i in range(3)),
                *(one_session(browser, base, 100 + i, others, other_errors) for i in range(10)),
            ), timeout=args.timeout)
            _, peak = rss_mb(server.pid)
            finished = outcome.get("finished", {})
            print("\n## 3 fine-tuning runs at once (limit 2) while 10 sessions use fill-mask and attention\n")
            print(f"finished {len(finished)}/3 in {', '.join(f'{v:.0f} s' for v in sorted(finished.values()))}; "
                  f"queued visibly: {len(outcome.get('queued', ()))}; errors: {outcome.get('errors') or 'none'}")
            if others["fill_mask"]:
                p50, p95, worst = percentiles(others["fill_mask"])
                print(f"fill-mask meanwhile: {len(others['fill_mask'])}/10 answered, p50 {p50:.2f} s, p95 {p95:.2f} s, "
                      f"max {worst:.2f} s; errors: {other_errors or 'none'}")
            print(f"server peak memory {peak:.0f} MB; phase wall {time.perf_counter() - start:.0f} s")

            before, _ = rss_mb(server.pid)
            for _ in range(args.waves):
                await asyncio.gather(*(one_session(browser, base, i, {"fill_mask": [], "attention": []}, errors)
                                       for i in range(10)))
            await asyncio.sleep(5)  # let the server notice the closed websockets
            after, peak = rss_mb(server.pid)
            print(f"\n## {args.waves * 10} sessions opened and closed in waves of 10\n")
            print(f"server memory before {before:.0f} MB, after {after:.0f} MB (peak {peak:.0f} MB)")
            await browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--waves", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=900)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
