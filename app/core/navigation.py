"""The list of pages, in teaching order: the entry file routes over it."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app.core.i18n import lang, t
from app.core.state import PageContext

PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"
# The page registry, in teaching order: a page's name is its concept folder (``app/<name>/``), its router
# (``pages/<name>.py``) and its strings' prefix in the locale files, where ``<name>.nav`` titles it in the
# navigation and ``<name>.guide`` says what it shows in the overview's guide. Navigation, the overview, lessons
# and the tests all read this table; adding a page is its folder, its router, its strings and a line here.
# Emoji rather than Material icons: Streamlit fetches Material icons from a font CDN, which an offline
# classroom cannot reach.
PAGES = {
    "overview": "🧭",
    "lessons": "📚",
    "masking": "🎭",
    "nsp": "🔗",
    "embeddings": "➕",
    "attention": "👀",
    "heads": "🔬",
    "layers": "🧅",
    "fill_mask": "✍️",
    "gpt_vs_bert": "⚖️",
    "pretrain_live": "🌱",
    "family": "🧬",
    "finetune": "🏋️",
    "sentence_vectors": "🧲",
    "classroom": "🎓",
}
PAGE_FILES = tuple(PAGES)


ENTRY_MARK = "_entry_ran"
PAGES_KEY = "_pages"


def mark_entry(context: PageContext) -> None:
    """Called by the entry script just before it runs the page, with what its sidebar settled."""
    st.session_state[ENTRY_MARK] = context


def require_entry() -> PageContext:
    """First line of every page: the run's context (model, spec, sentence, language) from the entry script.

    Streamlit treats an app with a ``pages/`` folder as a legacy multipage app until ``st.navigation``
    is first called, and in that mode a link straight to ``/attention`` on a freshly started server (or
    an AppTest ``switch_page``) runs the page file alone. Calling ``st.navigation`` leaves that mode for
    good; the rerun then goes through the entry script to the same page.
    """
    context = st.session_state.pop(ENTRY_MARK, None)
    if context is not None:
        return context
    st.navigation(pages(), position="hidden")
    st.rerun()


def pages() -> list:
    """The pages that exist, titled in the session's language.

    Kept per session: building the list checks every page file on disk, about a fifth of a cached page's
    server time, which a class of 60 following its teacher pays 60 times at once. Not shared between sessions:
    ``st.navigation`` and ``Page.run`` mark the objects for one run at a time."""
    language = lang()
    kept = st.session_state.get(PAGES_KEY)
    if kept is not None and kept[0] == language:
        return kept[1]
    built = [
        # The first page is the default: it lives at "/" (Streamlit ignores its url_path).
        st.Page(
            PAGES_DIR / f"{name}.py",
            title=t(f"{name}.nav"),
            icon=PAGES[name],
            url_path=name,
            default=name == PAGE_FILES[0],
        )
        for name in PAGE_FILES
        if (PAGES_DIR / f"{name}.py").exists()
    ]
    st.session_state[PAGES_KEY] = (language, built)
    return built
