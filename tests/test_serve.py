"""serve.py, the README's command: Streamlit's server for streamlit_app.py that loads the model as it starts."""

from __future__ import annotations

import asyncio
import threading

import pytest
import streamlit as st
from apptest_helpers import APP
from streamlit.testing.v1 import AppTest

import serve
from app import heads_lab, models
from app.text import LANGUAGES
from model import inference


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
