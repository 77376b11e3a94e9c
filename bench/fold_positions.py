"""Where each page's first live figure starts, in Chromium, at the sizes a class uses (issue #42: show before
telling): a laptop (1280 x 720), a desktop (1400 x 900), a projector in presenter mode (800 x 600, sidebar
folded) and a phone (400 x 800). The first live figure is the first chart, token strip, bar figure, marked passage or bertviz frame drawn
from the page's input; the overview has none, so its paradigm diagram counts, and where a figure waits for a button
(the layers lab's probes, live pre-training) the place it will appear counts. "Above the fold" means its first
100 px are on the screen without scrolling. Also reported: where the main column starts (x), which presenter mode
should bring to the left edge.

    .venv/bin/python bench/fold_positions.py [--langs en,zh] [--pages attention,...] [--shots DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from classroom_load import ROOT, free_port, start_server

sys.path.insert(0, str(ROOT))
from app.core.navigation import PAGE_FILES  # noqa: E402 - after the path is set

CHROMIUM = "/usr/bin/chromium"
READY = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
LIVE = ", ".join(
    [
        '[data-testid="stPlotlyChart"]',
        "figure.bert-lab-figure:has(.boxes)",
        "figure.bert-lab-figure:has(.bars)",
        "figure.bert-lab-figure:has(.passage)",
        '[data-testid="stIFrame"]',
    ]
)
DIAGRAM = "figure.bert-lab-figure"
# Where a page draws its figure only once asked (a run of half a minute or more): the place it will appear.
PLACEHOLDER = {
    "layers": ".st-key-layers_run_probe",
    "pretrain_live": ".st-key-pretrain_live_view",
    "lessons": ".st-key-lessons_picker",  # a list of lessons, no figure: the list is what must show
}
SIZES = {
    "1280x720": (1280, 720, False),
    "1400x900": (1400, 900, False),
    "800x600 presenter": (800, 600, True),
    "400x800 phone": (400, 800, False),
}
VISIBLE = 100  # px of the figure that must show


def measure(page, url: str, name: str) -> dict:
    live = DIAGRAM if name == "overview" else PLACEHOLDER.get(name, LIVE)
    page.goto(url)
    page.wait_for_selector(READY, timeout=180_000)
    page.wait_for_timeout(1500)  # charts draw after the run ends
    return page.evaluate(
        """([live, diagram]) => {
          const found = document.querySelector(live) || document.querySelector(diagram);
          const main = document.querySelector('[data-testid="stMainBlockContainer"]');
          const scroller = document.querySelector('[data-testid="stMain"]');
          return {
            top: found ? found.getBoundingClientRect().top + (scroller ? scroller.scrollTop : 0) : null,
            kind: found ? (found.getAttribute('data-testid') || found.className) : null,
            main_left: main ? main.getBoundingClientRect().left : null,
          };
        }""",
        [live, DIAGRAM],
    )


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--pages", default=",".join(p for p in PAGE_FILES if p != "classroom"))
    parser.add_argument("--shots", type=Path, default=None, help="save a screenshot of each view here")
    parser.add_argument("--sizes", default=",".join(SIZES), help="of " + ", ".join(SIZES))
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            for size in args.sizes.split(","):
                width, height, presenter = SIZES[size]
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                for lang in args.langs.split(","):
                    for name in args.pages.split(","):
                        path = "" if name == "overview" else name
                        url = f"http://127.0.0.1:{port}/{path}?lang={lang}" + ("&presenter=1" if presenter else "")
                        m = measure(page, url, name)
                        if args.shots:
                            args.shots.mkdir(parents=True, exist_ok=True)
                            page.screenshot(path=str(args.shots / f"{name}_{lang}_{size.split()[0]}.png"))
                        top = m["top"]
                        shown = top is not None and top + VISIBLE <= height
                        rows.append((name, lang, size, top, shown, m["main_left"]))
                        print(
                            f"| {name} | {lang} | {size} | {'-' if top is None else f'{top:.0f}'} | "
                            f"{'yes' if shown else 'NO'} | {m['main_left']:.0f} |",
                            flush=True,
                        )
                context.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    above = sum(r[4] for r in rows)
    print(f"\n{above} of {len(rows)} views show their first live figure without scrolling")


if __name__ == "__main__":
    print("| page | language | size | first figure's top (px) | above the fold | main column's left (px) |")
    print("|---|---|---|---|---|---|")
    main()
