"""What the chart library costs a student's first page: a new browser opening a page with the attention page's two
maps (the app's own builder, ``app.attention.charts.paired_maps``, drawn by ECharts as the app draws them), and
the same page without charts (the floor).

Why ECharts: before the app moved to it, this benchmark also drew the same two maps with plotly, which Streamlit
loads as a 4.7 MB module; medians of six new browsers on the 2-core machine: plotly 2.11-2.17 s, ECharts
1.38 s, no chart 0.96-0.97 s (plotly's variant ran with the app's plotly builders of commit 4a33648).

Each page is its own small Streamlit app on loopback; the browsers open them in turn, each a new browser context
(nothing cached), and the time runs from navigation until both maps are drawn (plotly's SVG, ECharts' canvas).
Prints the medians and one JSON line.

    .venv/bin/python bench/chart_library.py [--browsers 6]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from classroom_load import ROOT, free_port

CHROMIUM = "/usr/bin/chromium"
COMMON = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
import streamlit as st
tokens = "[CLS] the cat sat on the mat because it was warm and soft . [SEP]".split()
logits = np.random.default_rng(0).normal(size=(len(tokens), len(tokens))) * 2
both = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
causal = np.where(np.tril(np.ones_like(both)) > 0, np.exp(logits), 0)
causal = causal / causal.sum(axis=1, keepdims=True)
st.title("Attention")
"""
PAGES = {
    "echarts": """
from app.attention.charts import paired_maps
for key, chart in zip("ab", paired_maps(both, causal, tokens, titles=("bidirectional", "causal"))):
    st.echarts_chart(chart.option, key=key, height=chart.height)
""",
    "none": """
st.write("no chart")
""",
}
DRAWN = {
    "echarts": "() => document.querySelectorAll('[data-testid=\"stEChartsChart\"] canvas').length >= 2",
    "none": "() => document.body.innerText.includes('no chart')",
}


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--browsers", type=int, default=6, help="new browsers per page")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    servers, urls = [], {}
    try:
        for name, body in PAGES.items():
            (folder / f"{name}.py").write_text(COMMON + body)
            port = free_port()
            servers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "streamlit",
                        "run",
                        str(folder / f"{name}.py"),
                        "--server.headless=true",
                        f"--server.port={port}",
                        "--browser.gatherUsageStats=false",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            urls[name] = f"http://127.0.0.1:{port}/"
        for url in urls.values():  # each server healthy before the first browser
            for _ in range(120):
                try:
                    urllib.request.urlopen(f"{url}_stcore/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.5)
        times: dict[str, list[float]] = {name: [] for name in PAGES}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            for round_ in range(args.browsers + 1):  # the first round starts each server's script: not counted
                for name, url in urls.items():
                    context = browser.new_context(viewport={"width": 1400, "height": 1000})
                    tab = context.new_page()
                    tab.set_default_timeout(120_000)
                    start = time.perf_counter()
                    tab.goto(url)
                    tab.wait_for_function(DRAWN[name])
                    if round_:
                        times[name].append(time.perf_counter() - start)
                    context.close()
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, values in times.items():
            print(f"{name:8s} median {medians[name]:.2f} s  ({', '.join(f'{v:.2f}' for v in values)})")
        print(json.dumps({"browsers": args.browsers, **{f"{k}_median_s": round(v, 3) for k, v in medians.items()}}))
    finally:
        for server in servers:
            server.terminate()


if __name__ == "__main__":
    main()
