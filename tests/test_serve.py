"""serve.py, the README's command: Streamlit's server for streamlit_app.py that loads the model as it starts."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import streamlit as st
from apptest_helpers import APP
from streamlit.testing.v1 import AppTest

import serve
from app.core import models
from app.core.i18n import TEXT_LANGUAGES
from app.core.navigation import PAGE_FILES
from app.heads import logic as heads_lab
from model import inference

ROOT = Path(__file__).resolve().parents[1]


def test_serve_is_an_app_of_the_entry_script_that_warms_the_model_as_it_starts(monkeypatch):
    assert isinstance(serve.app, st.App)
    started = []

    async def start_and_stop():
        async with serve.load_in_background(serve.app):
            pass

    with monkeypatch.context() as patch:
        patch.setattr(threading.Thread, "start", lambda thread: started.append(thread))
        asyncio.run(start_and_stop())
    [thread] = started  # the server answers at once; the loading runs beside it
    assert thread.daemon and thread._target is serve.warm_up
    statistics = []
    monkeypatch.setattr(heads_lab, "statistics", lambda spec, lang: statistics.append((spec, lang)))
    thread.run()  # what the thread does: load the model, trace its two forward passes, the head lab's statistics
    assert statistics == [("embedded", lang) for lang in TEXT_LANGUAGES]
    bundle = models.get_model("embedded")
    assert set(inference._traced[bundle.model.bert]) == {inference._AttentionMaps, inference._MaskRows}
    # It loaded into the cache the pages read: a page run afterwards loads nothing.
    monkeypatch.setattr(models, "load", lambda *args, **kwargs: pytest.fail("the page loaded the model again"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/attention.py").run()
    assert not at.exception and at.get("plotly_chart")


FIRST_RUN_IMPORTS = (
    "pandas",
    "streamlit.emojis",
    "PIL.Image",
    "app.core.navigation",
    "app.core.sidebar",
    "app.attention.charts",
)


def test_the_warm_up_imports_what_a_first_page_run_would():
    """The first visitor's attention page took 0.6 s longer than the next one's, importing pandas (pyarrow loads
    it for a chart's first table), Streamlit's emoji pattern and the app's own modules: the warm-up does that."""
    code = (
        "import sys, serve; from app.core import models; from app.heads import logic as heads_lab; "
        "models.warm_up = heads_lab.statistics = lambda *args: None; "
        "before = set(sys.modules); serve.warm_up(); "
        f"print(sorted(m for m in {FIRST_RUN_IMPORTS!r} if m in set(sys.modules) - before))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.splitlines()[-1] == str(sorted(FIRST_RUN_IMPORTS))


def test_every_page_address_is_known_to_the_server():
    assert serve.PAGE_PATHS == sorted(PAGE_FILES)


def served(path: str, status: int = 200, content_type: bytes = b"text/html; charset=utf-8", method: str = "GET"):
    """What ``serve.ServerAddressInPage`` sends for ``path`` over an app that answers with a small page, and the
    request headers that app saw."""
    page = b"<!doctype html><html><head><title>x</title></head><body></body></html>"
    seen, sent = {}, []

    async def inner(scope, receive, send):
        seen["headers"] = dict(scope["headers"])
        headers = [(b"content-type", content_type), (b"content-length", str(len(page)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": page[:20], "more_body": True})
        await send({"type": "http.response.body", "body": page[20:]})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": [(b"accept-encoding", b"gzip")]}
    asyncio.run(serve.ServerAddressInPage(inner)(scope, None, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0], body, seen["headers"]


@pytest.mark.parametrize("path", ["/attention", "/fill_mask/", "/lab/heads"])
def test_a_page_opened_by_its_address_is_told_where_the_server_is(path):
    """Streamlit's page looked for its server at /attention/_stcore/health first (a 404, then /_stcore/health):
    told the address, it asks the right one at once."""
    start, body, request_headers = served(path)
    assert body.startswith(b"<!doctype html><html><head>" + serve.BASE_URL_SCRIPT.encode() + b"<title>x</title>")
    assert dict(start["headers"])[b"content-length"] == str(len(body)).encode()
    assert b"accept-encoding" not in request_headers  # the page comes back as text, so the script can go in


@pytest.mark.parametrize(
    "path, status, content_type, method",
    [
        ("/", 200, b"text/html", "GET"),  # the root's server is the root: nothing to search
        ("/nonexistent", 200, b"text/html", "GET"),  # Streamlit's own search, then its "page not found"
        ("/_stcore/health", 200, b"text/plain", "GET"),
        ("/attention", 304, b"text/html", "GET"),  # the browser's copy, which had the script, is still good
        ("/attention", 200, b"text/html", "HEAD"),
    ],
)
def test_anything_else_passes_through_unchanged(path, status, content_type, method):
    start, body, _ = served(path, status, content_type, method)
    assert serve.BASE_URL_SCRIPT.encode() not in body
    assert dict(start["headers"])[b"content-length"] == str(len(body)).encode()
