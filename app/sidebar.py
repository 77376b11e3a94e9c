"""The sidebar every page shares: language, model picker and the one input sentence."""

from __future__ import annotations

import streamlit as st

from model.modeling import count_parameters

from .i18n import t
from .masking_lab import escape_markdown
from .models import HUB_MODELS, available_folders, load_chosen_model, models_dir
from .state import DEFAULT_TEXT, bind, store
from .text import LANGUAGES

LANGUAGE_NAMES = {"zh": "中文", "en": "English"}
MAX_UNKNOWN_SHOWN = 8  # a text full of emoji lists a few, not a wall of them


def _on_language_change() -> None:
    old = st.session_state["lang"]
    store("lang")
    # The untouched default sentence follows the language; anything the user typed stays.
    if st.session_state["text"] == DEFAULT_TEXT.get(old):
        st.session_state["text"] = DEFAULT_TEXT[st.session_state["lang"]]


def render_sidebar():
    """Draw the shared controls and return the loaded model."""
    with st.sidebar:
        st.radio(
            t("common.language"),
            LANGUAGES,
            format_func=LANGUAGE_NAMES.get,
            horizontal=True,
            key=bind("lang"),
            on_change=_on_language_change,
        )
        classroom = models_dir() is not None
        choices = ["embedded", "folder"] + ([] if classroom else list(HUB_MODELS))
        if st.session_state["model_choice"] not in choices:
            st.session_state["model_choice"] = "embedded"
        labels = {"embedded": t("common.model_embedded"), "folder": t("common.model_folder")}
        labels.update({name: t("common.model_hub", name=name) for name in HUB_MODELS})
        st.selectbox(
            t("common.model"),
            choices,
            format_func=labels.get,
            key=bind("model_choice"),
            on_change=store,
            args=("model_choice",),
        )
        if st.session_state["model_choice"] == "folder":
            if classroom:
                folders = available_folders()
                if folders:
                    if st.session_state["model_folder"] not in folders:
                        st.session_state["model_folder"] = folders[0]
                    st.selectbox(
                        t("common.folder_choice"),
                        folders,
                        key=bind("model_folder"),
                        on_change=store,
                        args=("model_folder",),
                    )
                else:
                    st.info(t("common.no_models_in_folder"))
            else:
                st.text_input(
                    t("common.folder_path"), key=bind("model_folder"), on_change=store, args=("model_folder",)
                )
        elif st.session_state["model_choice"] in HUB_MODELS:
            st.caption(t("common.hub_note"))
        bundle = load_chosen_model()
        config = bundle.config
        st.caption(
            t(
                "common.model_summary",
                layers=config.num_hidden_layers,
                hidden=config.hidden_size,
                heads=config.num_attention_heads,
                params=f"{count_parameters(config)['total'] / 1e6:.1f}M",
                vocab=f"{bundle.tokenizer.vocab_size:,}",
            )
        )
        st.text_area(
            t("common.sentence"),
            key=bind("text"),
            on_change=store,
            args=("text",),
            help=t("common.sentence_help"),
            height=100,
            max_chars=None,
        )
        unknown = bundle.tokenizer.unknown_spans(st.session_state["text"])
        if unknown:
            shown = "  ".join(map(escape_markdown, unknown[:MAX_UNKNOWN_SHOWN]))
            shown += " …" if len(unknown) > MAX_UNKNOWN_SHOWN else ""
            st.caption(t("common.unknown_tokens", spans=shown))
        st.caption(t("common.share_hint"))
    return bundle
