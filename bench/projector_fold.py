"""Where each page's first live figure starts on a projector (issue 59): presenter mode at 800 x 600, both languages.

    python bench/projector_fold.py [--url http://127.0.0.1:8501] [--pages attention,nsp] [--langs en,zh]

Against a running app (the README's command). A live figure is a chart (plotly), a bertviz frame or an HTML figure
the page draws (the overview's); its top is measured from the top of the page, after the page has run and drawn.
A page whose first figure needs an action first (a button: lessons, Watch BERT learn, class mode) has none.
Also counted, over every chart the page drew: axis labels that run into their neighbours at presenter mode's size.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from browser_latency import DRAWN, READY  # noqa: E402

from app.core.navigation import PAGE_FILES  # noqa: E402

FIGURES = '[data-testid="stPlotlyChart"], iframe, [data-testid="stHtml"] figure'
FIRST_TOP = f"""() => {{
  const tops = [...document.querySelectorAll('{FIGURES}')]
    .map(e => e.getBoundingClientRect()).filter(r => r.height > 40).map(r => r.top + window.scrollY);
  return tops.length ? Math.min(...tops) : null;
}}"""
FOLD = 600
# Axis labels of one chart that run together: two neighbours whose anchors are closer, across their slant, than a
# line of their text (lying flat on the x axis: than half their widths). Plotly draws each tick label as a text in
# a group of its own, placed by its transform.
CROWDED_LABELS = """(chart) => {
  const crowded = (axis) => {
    const labels = [...chart.querySelectorAll(`g.${axis}tick > text`)].map(t => {
      const place = /translate\\(([-\\d.]+)(?:[ ,]+([-\\d.]+))?/.exec(t.getAttribute('transform') || '');
      const turn = /rotate\\(([-\\d.]+)/.exec(t.getAttribute('transform') || '');
      return {at: place ? +(axis === 'x' ? place[1] : place[2] || 0) : 0, size: parseFloat(t.style.fontSize),
              slant: Math.abs(Math.sin((turn ? +turn[1] : 0) * Math.PI / 180)), width: t.getBBox().width};
    }).sort((a, b) => a.at - b.at);
    return labels.slice(1).filter((b, i) => {
      const a = labels[i], gap = b.at - a.at;
      if (axis === 'y') return gap < 0.9 * a.size;
      return a.slant > 0.1 ? gap * a.slant < a.size : gap < (a.width + b.width) / 2;
    }).length;
  };
  return crowded('x') + crowded('y');
}"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8501")
    parser.add_argument("--pages", default=",".join(PAGE_FILES))
    parser.add_argument("--langs", default="en,zh")
    args = parser.parse_args()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 800, "height": 600})
        page.set_default_timeout(180_000)
        for name in args.pages.split(","):
            row = []
            for lang in args.langs.split(","):
                path = "" if name == PAGE_FILES[0] else name
                page.goto(f"{args.url}/{path}?lang={lang}&presenter=1")
                page.wait_for_selector(READY)
                page.wait_for_timeout(500)
                page.wait_for_selector(READY)
                page.wait_for_function(DRAWN)
                page.wait_for_timeout(500)
                top = page.evaluate(FIRST_TOP)
                shown = "none" if top is None else f"{top:.0f}{' above' if top < FOLD else ''}"
                charts = page.locator('[data-testid="stPlotlyChart"]')
                crowded = sum(charts.nth(i).evaluate(CROWDED_LABELS) for i in range(charts.count()))
                row.append(f"{lang} {shown}, {crowded} crowded labels")
            print(f"{name:18s} " + "   ".join(row), flush=True)
        browser.close()


if __name__ == "__main__":
    main()
