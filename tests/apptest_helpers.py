"""What the page tests share: opening a page through the entry script, and reading its charts and figures."""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from app.core.charts import Chart
from app.core.markup import CHART_TITLE_CLASS, FIGURE_CLASS
from app.core.ui import HTML_DOWNLOAD_PREFIX, PREFORMATTED_CLASS

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


def start_app_page(name: str, lang: str = "en", timeout: float = 120, **state) -> AppTest:
    """The app's first run, straight on page ``name`` (as a link to it opens), with ``state`` in the session (None
    values are left unset); ``timeout`` seconds for each run."""
    at = AppTest.from_file(APP, default_timeout=timeout)
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
            if child.type == "plotly_chart" and title is not None:
                titles[id(child)] = title
            found = _CHART_TITLE.match(child.proto.body) if child.type == "html" else None
            title = html.unescape(found.group(1)) if found else None
            walk(child)

    walk(getattr(at, "_tree", at))
    return titles


def chart_titles(at: AppTest) -> list[str]:
    """The texts of the page's chart titles (``app.core.ui.plot``), unescaped, in page order."""
    return list(_chart_titles(at).values())


def decoded(node):
    """A figure's JSON with every array plotly sent as its bytes ({"dtype", "bdata", "shape"}) as a numpy array;
    lists stay lists."""
    if isinstance(node, dict):
        if "bdata" in node and "dtype" in node:
            array = np.frombuffer(base64.b64decode(node["bdata"]), dtype=node["dtype"])
            shape = [int(n) for n in str(node.get("shape", len(array))).split(",")]
            return array.reshape(shape)
        return {key: decoded(value) for key, value in node.items()}
    if isinstance(node, list):
        return [decoded(item) for item in node]
    return node


def figure_of(chart: Chart) -> dict:
    """A builder's figure as plotly sends it to the browser ({"data": [...], "layout": {...}}), arrays decoded."""
    return decoded(json.loads(chart.figure.to_json()))


def charts(at: AppTest) -> list[dict]:
    """The page's charts as the browser receives them: each plotly figure ({"data", "layout"}, arrays decoded),
    with ``alt`` (its accessible name: titles and summary), ``config`` (the modebar) and ``chart_title`` (the text
    above it, None if it has none) added."""
    out = []
    titles = _chart_titles(at)
    for element in at.get("plotly_chart"):
        figure = decoded(json.loads(element.proto.spec))
        figure["alt"] = element.proto.alt
        figure["config"] = json.loads(element.proto.config or "{}")
        figure["selection_mode"] = list(element.proto.selection_mode)  # empty unless the chart is a widget
        figure["chart_title"] = titles.get(id(element))
        out.append(figure)
    return out


def traces(figure: dict, kind: str | None = None) -> list[dict]:
    """A figure's traces, or those of one type ("heatmap", "bar", "scatter"...)."""
    return [trace for trace in figure["data"] if kind is None or trace.get("type", "scatter") == kind]


def legend_names(figure: dict) -> list[str]:
    """The names the figure's legend shows, unescaped, in order (a trace shows in the legend unless it says not
    to; one name per legend group)."""
    names, groups = [], set()
    for trace in figure["data"]:
        if trace.get("showlegend") is False or (trace.get("legendgroup") in groups and "showlegend" not in trace):
            continue
        groups.add(trace.get("legendgroup"))
        names.append(html.unescape(trace["name"]))
    return names


def labels(values) -> list[str]:
    """Axis labels as a reader sees them: unescaped (plotly draws entities as characters), the zero-width spaces
    that keep equal tokens apart left on."""
    return [html.unescape(str(value)) for value in values]


def heatmap_matrix(figure: dict) -> np.ndarray:
    """A heatmap chart's values as the matrix it draws (rows the y axis's labels, columns the x axis's)."""
    (trace,) = traces(figure, "heatmap")
    return np.asarray(trace["z"], dtype=np.float64)


def panel_titles(figure: dict) -> list[str]:
    """The titles of a figure's panels (annotations named ``base.PANEL``), unescaped."""
    from app.core.charts import PANEL

    return [html.unescape(a["text"]) for a in figure["layout"].get("annotations", ()) if a.get("name") == PANEL]


def data_downloads(at) -> list:
    """The page's (or block's) download buttons for data (CSV, JSON, a model), not the charts' HTML ones."""
    return [b for b in at.get("download_button") if not (b.key or "").startswith(HTML_DOWNLOAD_PREFIX)]


def chart_downloads(at) -> list:
    """The page's (or block's) "Download as interactive HTML" buttons, one under each chart."""
    return [b for b in at.get("download_button") if (b.key or "").startswith(HTML_DOWNLOAD_PREFIX)]


_PREFORMATTED = re.compile(rf'^<pre class="{PREFORMATTED_CLASS}">(.*)</pre>$', re.DOTALL)


def static_figures(at: AppTest) -> list[str]:
    """The markup of the page's figures drawn in HTML (``app.core.ui.static_figure``), in page order."""
    return [e.proto.body for e in at.get("html") if f'<figure class="{FIGURE_CLASS}">' in e.proto.body]


def stage_rows(markup: str) -> list[tuple[str, list[str], str]]:
    """The rows of a pipeline figure (``markup.stages``) as a reader sees them: title, steps, note."""
    rows = re.findall(
        r'<div class="stage-head"><strong>(.*?)</strong><span>(.*?)</span></div><ol class="steps">(.*?)</ol>', markup
    )
    return [
        (
            html.unescape(title),
            [html.unescape(step) for step in re.findall(r'<div class="step">(.*?)</div>', steps)],
            html.unescape(note),
        )
        for title, note, steps in rows
    ]


def pipelines(at: AppTest) -> list[list[tuple[str, list[str], str]]]:
    """Every pipeline figure of the page (``app.core.ui.stages_figure``), each as its rows, in page order."""
    return [stage_rows(markup) for markup in static_figures(at) if 'class="stage-head"' in markup]


def written_stages(written: str) -> list[tuple[str, list[str], str]]:
    """What ``pipelines`` reads for a figure drawn from the string ``written``."""
    from app.core.markup import stages_from_text

    return stages_from_text(written)


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


def finished_live_experiment(experiment: str, lang: str, text: str | None = None, **budget):
    """A live pre-training ``experiment`` as a finished job's snapshot, each run really trained for ``budget`` (steps,
    eval_every, eval_batches: a few steps); ``text``: the sentence an ELECTRA run shows at its end."""
    from app.core import live_jobs as jobs
    from model.training.live import live_settings, run_live

    settings = {
        name: live_settings(lang, max_seconds=None, **budget, **changes)
        for name, changes in jobs.EXPERIMENTS[experiment]
    }
    return jobs.LiveSnapshot(
        id=experiment,
        status=jobs.DONE,
        lang=lang,
        experiment=experiment,
        runs=tuple(settings),
        current_run=None,
        budget=120.0,
        ahead=0,
        records={
            name: tuple(run_live(lang, s, downstream=experiment in jobs.DOWNSTREAM, text=text))
            for name, s in settings.items()
        },
        error=None,
        stop_reason=None,
        settings=settings,
    )


class FinishedJob:
    """A job that has ended with ``snapshot``, for a page to draw."""

    def __init__(self, snapshot):
        self._snapshot = snapshot

    def snapshot(self):
        return self._snapshot

    def stop(self):
        pass
