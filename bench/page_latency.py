"""Server-side time of one page run, per page, on the embedded model (Streamlit's AppTest, no browser).

For each page: the first run of a new sentence (model cached, results not) and a rerun with nothing
changed (what a widget interaction costs when the results are cached). Median of several sentences.

    .venv/bin/python bench/page_latency.py [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SENTENCES = [
    "She opened the [MASK] and walked into the room.",
    "我去[MASK]场看电影，电影很好看。",
    "The capital of Germany is [MASK].",
    "今天天气很[MASK]，我们去公园散步吧。",
]


def main() -> None:
    import logging

    import streamlit as st
    import torch
    from streamlit.testing.v1 import AppTest

    logging.getLogger("streamlit").setLevel(logging.ERROR)

    from app.core import models
    from app.core.navigation import PAGE_FILES

    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"threads={torch.get_num_threads()}; median over {len(SENTENCES)} sentences, seconds\n")
    print("| page | new sentence | rerun |\n|---|---|---|")
    for name in PAGE_FILES:
        first, again = [], []
        for text in SENTENCES:
            at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
            at.session_state["text"] = text
            at.run()
            at.switch_page(f"pages/{name}.py")
            st.cache_data.clear()  # a sentence no page has seen yet (the model itself stays cached)
            models.RESULTS.clear()  # attention maps and embedding parts are shared, held by bytes
            start = time.perf_counter()
            at.run()
            first.append(time.perf_counter() - start)
            start = time.perf_counter()
            at.run()
            again.append(time.perf_counter() - start)
            assert not at.exception, (name, at.exception[0].message)
        print(f"| {name} | {statistics.median(first):.2f} | {statistics.median(again):.2f} |")


if __name__ == "__main__":
    main()
