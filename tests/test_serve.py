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
from app import heads_lab, models
from app.text import LANGUAGES
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
    assert statistics == [("embedded", lang) for lang in LANGUAGES]
    bundle = models.get_model("embedded")
    assert set(inference._traced[bundle.model.bert]) == {inference._AttentionMaps, inference._MaskRows}
    # It loaded into the cache the pages read: a page run afterwards loads nothing.
    monkeypatch.setattr(models, "load", lambda *args, **kwargs: pytest.fail("the page loaded the model again"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/attention.py").run()
    assert not at.exception and at.get("echarts_chart")


FIRST_RUN_IMPORTS = ("pandas", "streamlit.emojis", "PIL.Image", "app.navigation", "app.sidebar", "app.charts.attention")


def test_the_warm_up_imports_what_a_first_page_run_would():
    """The first visitor's attention page took 0.6 s longer than the next one's, importing pandas (pyarrow loads
    it for a chart's first table), Streamlit's emoji pattern and the app's own modules: the warm-up does that."""
    code = (
        "import sys, serve; from app import heads_lab, models; "
        "models.warm_up = heads_lab.statistics = lambda *args: None; "
        "before = set(sys.modules); serve.warm_up(); "
        f"print(sorted(m for m in {FIRST_RUN_IMPORTS!r} if m in set(sys.modules) - before))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.splitlines()[-1] == str(sorted(FIRST_RUN_IMPORTS))
