"""The server: Streamlit's app for ``streamlit_app.py`` that loads the embedded model while it starts.

``streamlit run streamlit_app.py`` runs no code of ours before the first browser opens a page, so the first
visitor waited for torch to import and the model to load (about 4 s on two cores) before anything showed, and
the first visitor of the head lab for its statistics over the held-out sample (about 10 s per language).
Started as ``streamlit run serve.py`` (the README's command), the server does that work as it starts, in a
background thread, so it answers at once; a page opened meanwhile waits only for what is still missing.
"""

import contextlib
import importlib
import os
import pkgutil
import sys
import threading

import streamlit as st


def warm_up() -> None:
    """Load the embedded model, trace its forward passes and compute the head lab's statistics in both languages,
    into the caches every session reads; before that, import what a page run imports, which the first visitor's
    run did (0.6 s of its attention page): the app's modules, pandas (which pyarrow loads the first time a chart's
    table is made), Streamlit's emoji pattern (compiled the first time a page's icon is checked) and PIL (the
    page icon)."""
    if sys.platform.startswith("linux"):  # this thread only (Linux gives threads their own niceness): pages first
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    import pandas  # noqa: F401 - each imported for its side effect: loaded once, here
    import PIL.Image  # noqa: F401
    import streamlit.emojis  # noqa: F401

    import app

    for module in pkgutil.walk_packages(app.__path__, "app."):
        importlib.import_module(module.name)
    from app import heads_lab, models
    from app.text import LANGUAGES

    models.warm_up("embedded")
    for lang in LANGUAGES:
        heads_lab.statistics("embedded", lang)


@contextlib.asynccontextmanager
async def load_in_background(_app):
    threading.Thread(target=warm_up, name="bert-lab-warm-up", daemon=True).start()
    yield


app = st.App("streamlit_app.py", lifespan=load_in_background)
