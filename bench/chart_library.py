"""What the chart library costs: a new browser opening a page with the attention page's two maps, drawn by plotly
as the app draws them (the app's own builder, ``app.core.shared_charts.paired_maps``, and ``app.core.ui``'s modebar), drawn
by ECharts as the app drew them before it came back to plotly (the builders of commit ``ECHARTS_COMMIT``, read from
git into a temporary package), and the same page without charts (the floor); and, with ``--build``, the server's
side alone: building the two maps with each, in this process, no browser.

History: the app moved from plotly to ECharts when this benchmark measured, on the 2-core machine, medians of six
new browsers of plotly 2.11-2.17 s, ECharts 1.38 s, no chart 0.96-0.97 s (plotly's variant ran with the plotly
builders of commit 4a33648); it came back to plotly for what plotly gives (zoom and pan, 3-D, interactive HTML
downloads) and for the project's named stack.

Each page is its own small Streamlit app on loopback; the browsers open them in turn, each a new browser context
(nothing cached), and the time runs from navigation until both maps are drawn (plotly's SVG, ECharts' canvas).
Prints the medians and one JSON line.

    .venv/bin/python bench/chart_library.py [--browsers 6]
    .venv/bin/python bench/chart_library.py --build [--repeat 50]   # the server's build alone, cheap
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
ECHARTS_COMMIT = "b04c7cb"  # the last commit whose charts were ECharts options
ECHARTS_FILES = ("__init__.py", "base.py", "palette.py", "attention.py")
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
    "plotly": """
from app.core.shared_charts import paired_maps
from app.core.ui import ZOOM_CONFIG
for key, chart in zip("ab", paired_maps(both, causal, tokens, titles=("bidirectional", "causal"))):
    st.plotly_chart(chart.figure, key=key, config=ZOOM_CONFIG, alt=chart.title)
""",
    "echarts": """
sys.path.insert(0, {folder!r})
from previous_charts.attention import paired_maps
for key, chart in zip("ab", paired_maps(both, causal, tokens, titles=("bidirectional", "causal"))):
    st.echarts_chart(chart.option, key=key, height=chart.height)
""",
    "none": """
st.write("no chart")
""",
}
DRAWN = {
    "plotly": "() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .main-svg').length >= 2",
    "echarts": "() => document.querySelectorAll('[data-testid=\"stEChartsChart\"] canvas').length >= 2",
    "none": "() => document.body.innerText.includes('no chart')",
}


def previous_charts(folder: Path) -> Path:
    """The ECharts builders of ``ECHARTS_COMMIT`` as a package ``previous_charts`` in ``folder``."""
    package = folder / "previous_charts"
    package.mkdir(exist_ok=True)
    for name in ECHARTS_FILES:
        source = subprocess.run(
            ["git", "show", f"{ECHARTS_COMMIT}:app/charts/{name}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        (package / name).write_text(source, encoding="utf-8")
    return folder


def plotly_sent(chart) -> None:
    """What Streamlit does with a figure before it sends it: a dict of it (arrays as base64), then its JSON."""
    import plotly.io

    plotly.io.to_json(chart.figure.to_dict(), validate=False)


def echarts_sent(chart) -> None:
    """What Streamlit did with an ECharts option: its JSON, and its dataset as an Arrow stream beside it."""
    import pyarrow as pa

    json.dumps({key: value for key, value in chart.option.items() if key != "dataset"})
    table = chart.option["dataset"]["source"]
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)


def build_times(folder: Path, repeat: int) -> dict[str, float]:
    """Median milliseconds to build the two maps and serialise them as Streamlit does, per library and size."""
    import numpy as np

    sys.path[:0] = [str(ROOT), str(folder)]
    from previous_charts.attention import paired_maps as echarts_maps

    from app.core.shared_charts import paired_maps as plotly_maps

    rng = np.random.default_rng(0)
    out = {}
    for n in (14, 128, 512):
        tokens = [f"t{i}" for i in range(n)]
        both = rng.dirichlet(np.ones(n), size=n)
        causal = np.tril(both) / np.tril(both).sum(axis=1, keepdims=True)
        for name, build, send in (("plotly", plotly_maps, plotly_sent), ("echarts", echarts_maps, echarts_sent)):
            build(both, causal, tokens, titles=("a", "b"))  # imports and first-use costs: not counted
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                for chart in build(both, causal, tokens, titles=("a", "b")):
                    send(chart)
                times.append(time.perf_counter() - start)
            out[f"{name}_{n}_tokens_ms"] = round(1000 * statistics.median(times), 2)
    return out


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--browsers", type=int, default=6, help="new browsers per page")
    parser.add_argument("--build", action="store_true", help="time the server's build alone, no browser")
    parser.add_argument("--repeat", type=int, default=50, help="builds per library and size, with --build")
    args = parser.parse_args()
    folder = previous_charts(Path(tempfile.mkdtemp()))
    if args.build:
        times = build_times(folder, args.repeat)
        for key, value in times.items():
            print(f"{key:28s} {value:8.2f}")
        print(json.dumps({"repeat": args.repeat, **times}))
        return
    servers, urls = [], {}
    try:
        for name, body in PAGES.items():
            (folder / f"{name}.py").write_text(COMMON + body.format(folder=str(folder)))
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
