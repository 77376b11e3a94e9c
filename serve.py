"""The server: Streamlit's app for ``streamlit_app.py`` that loads the embedded model while it starts.

``streamlit run streamlit_app.py`` runs no code of ours before the first browser opens a page, so the first
visitor waited for torch to import and the model to load (about 4 s on two cores) before anything showed, and
the first visitor of the head lab for its statistics over the held-out sample (about 10 s per language).
Started as ``streamlit run serve.py`` (the README's command), the server does that work as it starts, in a
background thread, so it answers at once; a page opened meanwhile waits only for what is still missing. It also
writes into each page opened by its address where the server is (``ServerAddressInPage``).
"""

import contextlib
import importlib
import json
import os
import pkgutil
import sys
import threading
from pathlib import Path

import starlette.middleware
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
    from app.core import models
    from app.core.i18n import TEXT_LANGUAGES
    from app.heads import logic as heads_lab

    models.warm_up("embedded")
    for lang in TEXT_LANGUAGES:
        heads_lab.statistics("embedded", lang)


@contextlib.asynccontextmanager
async def load_in_background(_app):
    threading.Thread(target=warm_up, name="bert-lab-warm-up", daemon=True).start()
    yield


# The pages' addresses: each page lives at /<its file's name> (app.core.navigation), under the server's base path.
PAGE_PATHS = sorted(path.stem for path in (Path(__file__).resolve().parent / "pages").glob("*.py"))
# Streamlit's page looks for its server first at the address it was opened at: a page opened by its address
# (/attention) asked /attention/_stcore/health, got a 404 and only then asked /_stcore/health, and took 0.12-0.13 s
# from its start to its websocket. Told where the server is (Streamlit's window.__streamlit.BACKEND_BASE_URL, read
# as its scripts start), it asks there at once: 0.02-0.04 s. Any other address is left to Streamlit's own search.
BASE_URL_SCRIPT = (
    "<script>(() => {"
    f"const pages = {json.dumps(PAGE_PATHS)}; "
    "const parts = location.pathname.replace(/\\/+$/, '').split('/'); "
    "if (pages.includes(parts.at(-1))) { parts.pop(); "
    "window.__streamlit = {BACKEND_BASE_URL: location.origin + parts.join('/') + '/'}; }"
    "})();</script>"
)


class ServerAddressInPage:
    """ASGI middleware: a page opened by its address gets ``BASE_URL_SCRIPT`` at the top of its ``<head>``."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "").rstrip("/")
        if scope["type"] != "http" or scope.get("method") != "GET" or path.rsplit("/", 1)[-1] not in PAGE_PATHS:
            await self.app(scope, receive, send)
            return
        # The page itself as plain text (8 KB), so that the script can go in.
        request_headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"accept-encoding"]
        start, body = {}, []

        async def add_script(message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page, headers = b"".join(body), start.get("headers", [])
            if start.get("status") == 200 and (b"content-type", b"text/html") in [
                (name.lower(), value.split(b";")[0]) for name, value in headers
            ]:
                page = page.replace(b"<head>", b"<head>" + BASE_URL_SCRIPT.encode(), 1)
                headers = [(name, value) for name, value in headers if name.lower() != b"content-length"]
                headers.append((b"content-length", str(len(page)).encode()))
            await send(start | {"headers": headers})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope | {"headers": request_headers}, receive, add_script)


app = st.App(
    "streamlit_app.py", lifespan=load_in_background, middleware=[starlette.middleware.Middleware(ServerAddressInPage)]
)
