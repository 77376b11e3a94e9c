"""The server: Streamlit's app for ``streamlit_app.py`` that loads the embedded model while it starts.

``streamlit run streamlit_app.py`` runs no code of ours before the first browser opens a page, so the first
visitor waited for torch to import and the model to load (about 4 s on two cores) before anything showed.
Started as ``streamlit run serve.py`` (the README's command), the server does that work as it starts, in the
background, so it answers its health check at once and a page opened meanwhile simply waits for the load.
"""

import contextlib
import threading

import streamlit as st


@contextlib.asynccontextmanager
async def load_in_background(_app):
    from app.models import warm_up  # imports torch and the model code: in the thread, not before serving

    threading.Thread(target=warm_up, name="bert-lab-warm-up", daemon=True).start()
    yield


app = st.App("streamlit_app.py", lifespan=load_in_background)
