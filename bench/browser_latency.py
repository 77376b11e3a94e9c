"""What one user waits for in Chromium: the first page on a freshly started server, every page by its address and
by its sidebar link, a change of layer and of head on the attention page and of its section, a 5,000-character
sentence's maps, and a fill-mask edit.
Each interaction also reports the server's CPU time (the Streamlit process) and Chromium's main-thread busy time
(CDP ``TaskDuration``), which say where the time went far more steadily than the wall clock does on shared cores.

    .venv/bin/python bench/browser_latency.py [--changes 6] [--new-browsers 3]

Everything after the first page waits until the server has finished warming up (as a class finds it; the first
page on a fresh server is the one measurement of a server still starting). The first page is split into its steps:
the browser's own start (Streamlit's scripts and websocket), the script runs on the server (on a fresh server the
first runs the page alone, which imports torch, and reruns through the entry script, which loads the model), and
the drawing of the first chart after the script has finished.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

# bench/ is the script's folder: the benchmarks start the app one way
from classroom_load import ROOT, free_port, settled, start_server

sys.path.insert(0, str(ROOT))
from app.core.i18n import strings_of  # noqa: E402
from app.core.navigation import PAGE_FILES  # noqa: E402 - after the path is set

ATTENTION = strings_of("attention")

CHROMIUM = "/usr/bin/chromium"
RUNNING = '[data-testid="stApp"][data-test-script-state="running"]'
READY = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
# A chart drawn: plotly has made its SVG in the chart's element.
CHART = '[data-testid="stPlotlyChart"] .main-svg'
# After a run has finished, a chart or a table is still a skeleton until its code has loaded (plotly's module on a
# new document): a page is drawn when nothing is a skeleton and every chart has drawn.
DRAWN = """() => !document.querySelector('[data-testid="stSkeleton"]')
  && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => c.querySelector('.main-svg'))"""
# Steps of the first page, recorded by the page itself from its first script on.
TIMELINE = """
window.__steps = [];
const mark = (what) => window.__steps.push([what, performance.now()]);
new MutationObserver(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (app && !window.__watched) {
    window.__watched = true;
    new MutationObserver(() => mark(app.getAttribute('data-test-connection-state') + ' '
      + app.getAttribute('data-test-script-state'))).observe(app, {attributes: true});
  }
  const drawn = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
    .filter((chart) => chart.querySelector('.main-svg')).length;
  if (drawn > (window.__charts || 0)) {
    window.__charts = drawn; mark(drawn === 1 ? 'first chart drawn' : `${drawn} charts drawn`);
  }
}).observe(document, {subtree: true, childList: true});
"""
BERTVIZ_LAYER = """() => {
  const frame = document.querySelector('[data-testid="stIFrame"]');
  const select = frame && frame.contentDocument && frame.contentDocument.querySelector("#layer");
  return select && frame.contentDocument.querySelector("svg text") ? select.value : null;
}"""


def wait_ready(tab, timeout: float = 60_000) -> None:
    """Until the page's run has ended."""
    tab.wait_for_selector(READY, timeout=timeout)
    # A session's first run can end in a second one (the first visit reruns once the model is at hand): the moment
    # of "notRunning" between the two is not the end of the page.
    tab.wait_for_timeout(300)
    tab.wait_for_selector(READY, timeout=timeout)


def wait_drawn(tab) -> None:
    tab.wait_for_selector(READY)
    tab.wait_for_function(DRAWN)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--changes", type=int, default=6, help="layer changes and head changes, each")
    parser.add_argument("--new-browsers", type=int, default=3, help="new browsers opening each first page")
    args = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port)
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_init_script(TIMELINE)
            page = context.new_page()
            page.set_default_timeout(180_000)
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")

            def busy() -> float:
                return next(
                    m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration"
                )

            def first_page(tab) -> float:
                """Seconds from opening the attention page at layer 2 to its maps drawn."""
                start = time.perf_counter()
                tab.goto(f"{url}/attention?lang=en&layer=2")
                tab.locator(CHART).first.wait_for()
                tab.locator(CHART).nth(1).wait_for()
                return time.perf_counter() - start

            rows.append(("first page on a fresh server: both maps drawn", first_page(page), None, None))
            page.wait_for_selector(READY)
            steps, last = page.evaluate("() => window.__steps"), None
            print("first page, step by step (seconds from navigation):")
            for what, at in steps:
                if what != last:
                    print(f"  {at / 1000:6.2f}  {what}")
                last = what

            # Another student's first visit, once the server has warmed up (serve.py's background work done, as a
            # class finds it): a browser with nothing cached.
            print(f"server settled {settled(server.pid):.1f} s after the first page")
            # The page a class opens first (the app's address, or a room's link): new browsers, one after another.
            for _ in range(args.new_browsers):
                fresh = browser.new_context(viewport={"width": 1400, "height": 1000})
                tab = fresh.new_page()
                tab.set_default_timeout(180_000)
                start = time.perf_counter()
                tab.goto(f"{url}/?lang=en")
                wait_drawn(tab)
                rows.append(
                    ("first page of a new browser: the overview drawn", time.perf_counter() - start, None, None)
                )
                fresh.close()
            # A page with charts (the attention page's two maps), each in a browser of its own; the last one stays.
            other = None
            for _ in range(args.new_browsers):
                if other is not None:
                    other.close()
                other = browser.new_context(viewport={"width": 1400, "height": 1000})
                other.add_init_script(TIMELINE)
                newcomer = other.new_page()
                newcomer.set_default_timeout(180_000)
                rows.append(("first page of a new browser: both maps drawn", first_page(newcomer), None, None))
                # The same by the page's own clock, from its navigation: the wall clock above also counts the new
                # tab's own start, which moves by more than a change in the page does.
                steps = dict(reversed(newcomer.evaluate("() => window.__steps")))  # each step's first time
                for step, what in (("CONNECTED running", "its script run starts"), ("2 charts drawn", "maps drawn")):
                    rows.append((f"  ...by the page's clock: {what}", steps[step] / 1000, None, None))
            # Every page opened by its address in that browser: its run finished and everything in it drawn.
            for name in PAGE_FILES:
                newcomer.wait_for_timeout(500)
                start = time.perf_counter()
                newcomer.goto(f"{url}/{name}?lang=en")
                wait_drawn(newcomer)
                rows.append((f"open a page by its address ({name})", time.perf_counter() - start, None, None))
            # Every page again by its sidebar link, as a student moves through the app (the same document, so
            # Streamlit's scripts and plotly are loaded already): until its run finished and everything in it drawn.
            for name in PAGE_FILES[1:]:  # the first page's link is "/", the page the loop above ended away from
                newcomer.wait_for_timeout(500)
                start = time.perf_counter()
                newcomer.locator(f'[data-testid="stSidebarNav"] a[href$="/{name}"]').first.click()
                newcomer.wait_for_function(f"() => location.pathname.endsWith('/{name}')")
                wait_drawn(newcomer)
                rows.append((f"open a page by the sidebar ({name})", time.perf_counter() - start, None, None))
            other.close()

            def interact(name: str, act, done) -> None:
                page.wait_for_timeout(1000)
                server_before, browser_before, start = cpu_seconds(server.pid), busy(), time.perf_counter()
                act()
                done()
                shown = time.perf_counter() - start
                page.wait_for_selector(READY)
                page.wait_for_timeout(1000)  # the drawing after the run
                rows.append((name, shown, cpu_seconds(server.pid) - server_before, busy() - browser_before))

            def choose(selector: str, value: int):
                def act():
                    page.get_by_test_id("stSelectbox").filter(has_text=selector).first.click()
                    page.get_by_role("option", name=str(value), exact=True).click()

                return act

            def map_shows(text: str):
                """The first map's accessible name (its title, then its finding) holds ``text``: it is drawn."""
                return lambda: page.locator(
                    f'[data-testid="stPlotlyChart"][aria-label*="{text}"] .main-svg'
                ).first.wait_for()

            for i in range(args.changes):
                layer, head = (3 + i) % 6, i + 1
                interact(f"layer change: map drawn (to {layer})", choose("Layer", layer), map_shows(f"L{layer} H"))
                interact(f"head change: map drawn (to {head})", choose("Head", head), map_shows(f"L{layer} H{head}"))

            def section(name: str):
                return lambda: page.get_by_role("radio", name=ATTENTION[f"section_{name}"]["en"]).click()

            grid = f'[data-testid="stPlotlyChart"][aria-label*="{ATTENTION["stat_entropy"]["en"]}"] .main-svg'
            for _ in range(3):
                interact(
                    "attention section: every head, grid drawn", section("heads"), lambda: page.wait_for_selector(grid)
                )
                interact(
                    "attention section: bertviz, its layer drawn",
                    section("bertviz"),
                    lambda: page.wait_for_function(f"() => ({BERTVIZ_LAYER})() !== null"),
                )
                interact("attention section: the two maps drawn", section("maps"), map_shows(" H"))

            # A long text (the hostile-input case of issue 44): 5,000 characters, cut to the model's 512 tokens.
            box = page.locator('[data-testid="stSidebar"] textarea').first
            for word in ("students", "teachers", "readers"):
                box.fill((f"The {word} opened their books and read about attention in a transformer. " * 80)[:5000])
                interact(
                    "a 5,000-character sentence: both maps drawn",
                    lambda: box.press("Control+Enter"),
                    lambda: (page.wait_for_selector(RUNNING), wait_drawn(page)),
                )

            def fill_mask_shown():
                page.wait_for_function("() => location.pathname.endsWith('/fill_mask')")
                wait_drawn(page)

            interact(
                "change of page to fill-mask: drawn",
                lambda: page.locator('[data-testid="stSidebarNav"] a[href$="/fill_mask"]').click(),
                fill_mask_shown,
            )
            box = page.locator('[data-testid="stSidebar"] textarea').first
            box.fill("The capital of Germany is [MASK].")  # the shared sentence had none: the page masked its last word
            box.press("Control+Enter")
            page.locator(CHART).first.wait_for()
            page.wait_for_selector(READY)
            for sentence in ("我去[MASK]场看电影", "He went to the [MASK] to swim.", "今天天气很[MASK]。"):
                before = page.locator('[data-testid="stPlotlyChart"]').first.get_attribute("aria-label")
                box.fill(sentence)
                interact(
                    "fill-mask edit: new predictions drawn",
                    lambda: box.press("Control+Enter"),
                    lambda before=before: page.wait_for_function(
                        "(b) => { const c = document.querySelector('[data-testid=\"stPlotlyChart\"]');"
                        " return c && c.getAttribute('aria-label') !== b && c.querySelector('.main-svg'); }",
                        arg=before,
                    ),
                )
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"\nload average at the end: {Path('/proc/loadavg').read_text().split()[:3]}")
    print(f"{'interaction':55s} {'shown (s)':>10s} {'server CPU':>11s} {'browser busy':>13s}")
    by_kind: dict[str, list] = {}
    for name, shown, server_cpu, browser_busy in rows:
        by_kind.setdefault(name.split(" (")[0], []).append((shown, server_cpu, browser_busy))
    for name, values in by_kind.items():
        median = [statistics.median(v[k] for v in values) if values[0][k] is not None else None for k in range(3)]
        cells = [f"{m:.2f}" if m is not None else "-" for m in median]
        slowest = max(values)
        worst = f", slowest {slowest[0]:.2f}" if len(values) > 1 else ""
        print(f"{name:55s} {cells[0]:>10s} {cells[1]:>11s} {cells[2]:>13s}   (median of {len(values)}{worst})")
    for name, shown, _, _ in rows:
        if name.startswith("open a page"):
            print(f"  {name}: {shown:.2f} s")


if __name__ == "__main__":
    main()
