"""What the page tests share: opening a page through the entry script, and reading plotly figures."""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from app.charts.overview import FIGURE_CLASS
from app.ui import PREFORMATTED_CLASS

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


def figures(at: AppTest) -> list[dict]:
    """Plotly charts arrive in AppTest as their figure JSON."""
    return [json.loads(e.proto.spec) for e in at.get("plotly_chart")]


def plot_array(value) -> np.ndarray:
    """Plotly sends numpy arrays base64-encoded, lists as they are."""
    if isinstance(value, dict):
        shape = [int(n) for n in str(value["shape"]).split(",")]
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).reshape(shape)
    return np.array(value, dtype=float)


_PREFORMATTED = re.compile(rf'^<pre class="{PREFORMATTED_CLASS}">(.*)</pre>$', re.DOTALL)


def static_figures(at: AppTest) -> list[str]:
    """The markup of the page's figures drawn in HTML (``app.ui.static_figure``), in page order."""
    return [e.proto.body for e in at.get("html") if f'<figure class="{FIGURE_CLASS}">' in e.proto.body]


def preformatted(at: AppTest) -> list[str]:
    """The texts of the page's monospace blocks (``app.ui.preformatted``), unescaped, in page order."""
    found = (_PREFORMATTED.match(e.proto.body) for e in at.get("html"))
    return [html.unescape(m.group(1)) for m in found if m]
