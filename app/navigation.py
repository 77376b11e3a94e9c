"""The list of pages, in teaching order: the entry file routes over it."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from .i18n import t

PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"
PAGE_FILES = ("overview", "masking", "nsp", "embeddings", "attention", "fill_mask", "gpt_vs_bert", "finetune")
ICONS = {
    "overview": ":material/school:",
    "masking": ":material/theater_comedy:",
    "nsp": ":material/link:",
    "embeddings": ":material/add_circle:",
    "attention": ":material/visibility:",
    "fill_mask": ":material/edit_note:",
    "gpt_vs_bert": ":material/compare_arrows:",
    "finetune": ":material/model_training:",
}


def pages() -> list:
    """The pages that exist, titled in the session's language."""
    return [
        st.Page(PAGES_DIR / f"{name}.py", title=t(f"nav.{name}"), icon=ICONS[name], url_path=name, default=name == "overview")
        for name in PAGE_FILES
        if (PAGES_DIR / f"{name}.py").exists()
    ]
