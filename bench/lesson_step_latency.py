"""How long a lesson's step change takes in Chromium: the app started here, each lesson started from the overview
page, then Next clicked through all its steps, twice by default (the second pass finds the pages' results cached).
Per step: until the card shows the new step and the script run has
finished (what the reader waits for before reading the step), and until every chart of the new page is drawn.

    .venv/bin/python bench/lesson_step_latency.py [--lang en] [--passes 2] [--shots screenshots/lessons]

With ``--shots``, a 1400 x 3000 screenshot of each step (the card and the outlined part, with the answer revealed on
the first step) goes to that folder, in the run's language.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# bench/ is the script's folder: the benchmarks start the app one way
from browser_latency import CHROMIUM, DRAWN, READY
from classroom_load import ROOT, free_port, settled, start_server

sys.path.insert(0, str(ROOT))
from app.core.i18n import strings_of  # noqa: E402
from app.lessons.data import lessons  # noqa: E402 - after the path is set

TEXT = strings_of("lessons")

CARD = ".st-key-lessons_card"
SHOWS_STEP = "([selector, text]) => (document.querySelector(selector)?.innerText || '').includes(text)"


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="en", choices=("en", "zh"))
    parser.add_argument("--shots", type=Path, help="a folder for a screenshot of each step")
    parser.add_argument("--passes", type=int, default=2, help="times through each lesson (later ones: cached results)")
    args = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port)
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            height = 3000 if args.shots else 1000
            tab = browser.new_context(viewport={"width": 1400, "height": height}).new_page()
            tab.set_default_timeout(120_000)
            tab.goto(f"{url}/?lang={args.lang}")
            tab.wait_for_selector(READY)
            print(f"server settled {settled(server.pid):.1f} s after the first page")
            for run, (name, lesson) in [(r, item) for r in range(1, args.passes + 1) for item in lessons().items()]:
                n = len(lesson.steps)
                tab.goto(f"{url}/?lang={args.lang}")
                tab.wait_for_selector(READY)
                tab.wait_for_function(DRAWN)
                for k in range(1, n + 1):
                    tab.wait_for_timeout(500)
                    start = time.perf_counter()
                    button = f".st-key-lessons_start_{name} button" if k == 1 else ".st-key-lessons_next button"
                    tab.locator(button).first.click()
                    step_text = TEXT["step_of"][args.lang].format(k=k, n=n)
                    tab.wait_for_function(SHOWS_STEP, arg=[CARD, step_text])
                    tab.wait_for_selector(READY)
                    shown = time.perf_counter() - start
                    tab.wait_for_function(DRAWN)
                    drawn = time.perf_counter() - start
                    assert tab.locator('[data-testid="stException"]').count() == 0, (name, k)
                    rows.append((run, name, k, lesson.steps[k - 1].page, shown, drawn))
                    if args.shots and run == 1:
                        if k == 1:  # answer and reveal, to show a revealed card
                            tab.locator(f"{CARD} [role='radiogroup'] label").nth(1).click()
                            tab.locator(".st-key-lessons_reveal button:not([disabled])").first.click()
                            tab.wait_for_function(
                                "(s) => document.querySelector(s)?.querySelector('[data-testid=\"stAlert\"]')",
                                arg=CARD,
                            )
                            tab.wait_for_selector(READY)
                        args.shots.mkdir(parents=True, exist_ok=True)
                        tab.screenshot(path=str(args.shots / f"{name}_{k}_{args.lang}.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"{'pass':>4} {'lesson':30} {'step':>4} {'page':14} {'step shown (s)':>15} {'page drawn (s)':>15}")
    for run, name, k, page, shown, drawn in rows:
        print(f"{run:4d} {name:30} {k:4d} {page:14} {shown:15.2f} {drawn:15.2f}")
    for run in range(1, args.passes + 1):
        shown_all = [r[4] for r in rows if r[0] == run]
        drawn_all = [r[5] for r in rows if r[0] == run]
        print(
            f"pass {run}: step shown median {statistics.median(shown_all):.2f} s, max {max(shown_all):.2f} s; "
            f"page drawn median {statistics.median(drawn_all):.2f} s, max {max(drawn_all):.2f} s"
        )


if __name__ == "__main__":
    main()
