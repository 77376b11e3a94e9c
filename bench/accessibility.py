"""axe-core (WCAG 2.1 A and AA rules) on every page in both languages, in Chromium: the serious and critical nodes
each page has, by rule, with a few of the elements named (issue #42). The browser tests hold the count at 0
(``tests/test_browser.py``); this prints what a change would have to fix.

    .venv/bin/python bench/accessibility.py [--langs en,zh] [--pages attention,...] [--width 1400]
"""

from __future__ import annotations

import argparse
import collections
import sys

from classroom_load import ROOT, free_port, start_server

sys.path.insert(0, str(ROOT))
from app.core.navigation import PAGE_FILES  # noqa: E402 - after the path is set
from tests.accessibility import audit  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
READY = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--pages", default=",".join(PAGE_FILES))
    parser.add_argument("--width", type=int, default=1400)
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    total = collections.Counter()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_context(viewport={"width": args.width, "height": 900}).new_page()
            for lang in args.langs.split(","):
                for name in args.pages.split(","):
                    path = "" if name == PAGE_FILES[0] else name
                    page.goto(f"http://127.0.0.1:{port}/{path}?lang={lang}")
                    page.wait_for_selector(READY, timeout=180_000)
                    page.wait_for_timeout(1500)
                    found = audit(page)
                    count = sum(len(v["nodes"]) for v in found)
                    total[lang] += count
                    print(f"{name} ({lang}): {count} serious or critical nodes")
                    for v in found:
                        targets = [" ".join(n["target"]) for n in v["nodes"][:3]]
                        print(f"  {v['impact']:<8} {v['id']:<28} {len(v['nodes']):>3}  e.g. {targets}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"\ntotal: {dict(total)}")


if __name__ == "__main__":
    main()
