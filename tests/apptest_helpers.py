"""What the page tests share: opening a page through the entry script, and reading its charts and figures."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
from streamlit.testing.v1 import AppTest

from app.core.charts import matrix_of
from app.core.markup import CHART_TITLE_CLASS, FIGURE_CLASS
from app.core.ui import PREFORMATTED_CLASS

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")

HOSTILE_INPUTS = {
    "empty": "",
    "whitespace": "   \n\t ",
    "long": "the cinema was dark " * 500,  # 10,000 characters
    "emoji": "I love 🍿🎬 movies 😀",
    "html": "</script><script>alert(1)</script> **bold** <b>x</b>",
    "rtl": "مرحبا بالعالم שלום עולם",
    "only_mask": "[MASK] [MASK] [MASK]",
}


def start_app_page(name: str, lang: str = "en", **state) -> AppTest:
    """The app's first run, straight on page ``name`` (as a link to it opens), with ``state`` in the session (None
    values are left unset)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    for key, value in state.items():
        if value is not None:
            at.session_state[key] = value
    at.switch_page(f"pages/{name}.py")
    at.run()
    return at


def open_app_page(name: str, lang: str = "en", **state) -> AppTest:
    """``start_app_page``, which must raise nothing."""
    at = start_app_page(name, lang, **state)
    assert not at.exception, at.exception[0].message if at.exception else ""
    return at


_CHART_TITLE = re.compile(rf'^<p class="{CHART_TITLE_CLASS}">(.*)</p>$', re.DOTALL)


def _chart_titles(at) -> dict[int, str]:
    """The title above each chart that has one (``app.core.ui.plot``: the element just before the chart), by the id
    of the chart's element, in a page (an ``AppTest``) or in one of its blocks."""
    titles = {}

    def walk(node) -> None:
        title = None
        for child in getattr(node, "children", {}).values():  # in page order
            if child.type == "echarts_chart" and title is not None:
                titles[id(child)] = title
            found = _CHART_TITLE.match(child.proto.body) if child.type == "html" else None
            title = html.unescape(found.group(1)) if found else None
            walk(child)

    walk(getattr(at, "_tree", at))
    return titles


def chart_titles(at: AppTest) -> list[str]:
    """The texts of the page's chart titles (``app.core.ui.plot``), unescaped, in page order."""
    return list(_chart_titles(at).values())


def charts(at: AppTest) -> list[dict]:
    """The page's charts as the browser receives them: each ECharts option, its ``dataset.source`` (sent as Arrow
    beside the option) read back into a DataFrame, with ``alt`` (the chart's summary) and ``chart_title`` (the
    text above it, None if it has none) added."""
    out = []
    titles = _chart_titles(at)
    for element in at.get("echarts_chart"):
        option = json.loads(element.proto.spec)
        tables = {d.name: pa.ipc.open_stream(d.data.data).read_pandas() for d in element.proto.datasets}
        source = option.get("dataset", {}).get("source")
        if isinstance(source, dict) and source.get("name") in tables:
            option["dataset"]["source"] = tables[source["name"]]
        option["alt"] = element.proto.alt
        option["chart_title"] = titles.get(id(element))
        out.append(option)
    return out


def dataset(option: dict) -> pd.DataFrame:
    """A chart's dataset as a DataFrame, whether a builder made it (an Arrow table) or a page sent it."""
    source = option["dataset"]["source"]
    return source.to_pandas() if isinstance(source, pa.Table) else source


def heatmap_matrix(option: dict) -> np.ndarray:
    """A heatmap chart's values as the matrix it draws (rows the y axis's labels, columns the x axis's)."""
    return matrix_of(option["dataset"]["source"], option["xAxis"]["data"], option["yAxis"]["data"])


_PREFORMATTED = re.compile(rf'^<pre class="{PREFORMATTED_CLASS}">(.*)</pre>$', re.DOTALL)


def static_figures(at: AppTest) -> list[str]:
    """The markup of the page's figures drawn in HTML (``app.core.ui.static_figure``), in page order."""
    return [e.proto.body for e in at.get("html") if f'<figure class="{FIGURE_CLASS}">' in e.proto.body]


def preformatted(at: AppTest) -> list[str]:
    """The texts of the page's monospace blocks (``app.core.ui.preformatted``), unescaped, in page order."""
    found = (_PREFORMATTED.match(e.proto.body) for e in at.get("html"))
    return [html.unescape(m.group(1)) for m in found if m]


Box = tuple[str, str, str | None, list[str]]  # kind ("box" or "box key"), fill colour, tooltip, lines


def read_boxes(markup: str) -> list[Box]:
    """The boxes of a figure of token boxes (``markup.token_boxes``) as a reader sees them: unescaped, an empty
    line as ""."""
    found = re.findall(
        r'<li class="(box(?: key)?)" style="(?:--fill:)?([^"]*)"(?: title="([^"]*)")?>(.*?)</li>', markup
    )
    return [
        (
            kind,
            fill,
            html.unescape(tip) if tip else None,
            [html.unescape(cell).replace("\xa0", "") for _, cell in re.findall(r"<(span|small)>(.*?)</\1>", cells)],
        )
        for kind, fill, tip, cells in found
    ]


def read_legend(markup: str) -> list[tuple[str, str]]:
    """A figure's legend as (name, colour) pairs."""
    return [
        (html.unescape(name), colour)
        for colour, name in re.findall(r'<li><i(?: class=edge)? style="background:([^"]*)"></i>(.*?)</li>', markup)
    ]
