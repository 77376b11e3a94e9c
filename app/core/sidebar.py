"""The sidebar every page shares: language, model picker and the one input sentence."""

from __future__ import annotations

import streamlit as st

from app.core.errors import explain
from app.core.i18n import LANGUAGES, LANGUAGES_INFO, STRINGS, t
from app.core.models import (
    HUB_MODELS,
    available_folders,
    choices,
    family_key,
    finetuned_choices,
    hub_failure,
    load_chosen_model,
    models_dir,
    try_hub_model,
)
from app.core.numbers import parameter_count
from app.core.state import DEFAULT_TEXT, MAX_URL_TEXT, PageContext, keep
from app.core.tokens import escape_markdown, isolated, missing_scripts

MAX_UNKNOWN_SHOWN = 8  # a text full of emoji lists a few, not a wall of them


def _follow_language() -> None:
    # The untouched default sentence follows the language; anything the user typed stays.
    if st.session_state["text"] in DEFAULT_TEXT.values():
        st.session_state["text"] = DEFAULT_TEXT[st.session_state["lang"]]


def _script_name(code: str) -> str:
    """A writing system as the reader calls it: Japanese's two kana scripts are one name, listed once."""
    key = f"common.script_{code}"
    return t(key) if key in STRINGS else code.title()


def _pick_model(spec: str | None = None) -> None:
    """A hub model is loaded as it is picked (or retried: ``spec``). If it cannot be, the picker goes back to the
    embedded model, the one that answers, and the sidebar says why, with a retry."""
    if spec is not None:
        st.session_state["model_choice"] = spec
    choice = st.session_state["model_choice"]
    st.session_state["model_failed"] = None
    if choice in HUB_MODELS and try_hub_model(choice, again=spec is not None) is not None:
        st.session_state["model_choice"] = "embedded"
        st.session_state["model_failed"] = choice


def _hub_failed_notice() -> None:
    failed = st.session_state.get("model_failed")
    error = hub_failure(failed) if failed else None
    if error is None:
        return
    st.error(t("common.model_failed", error=explain(error)))
    st.button(t("common.model_retry", name=failed), on_click=_pick_model, args=(failed,), key="model_retry")


def render_sidebar() -> PageContext:
    """Draw the shared controls; return what the page needs (the model loaded once for this run)."""
    with st.sidebar:
        st.radio(
            t("common.language"),
            LANGUAGES,
            format_func=lambda code: LANGUAGES_INFO[code].name,
            horizontal=True,
            **keep("lang", on_change=_follow_language),
        )
        st.toggle(t("common.presenter"), help=t("common.presenter_help"), **keep("presenter"))
        classroom = models_dir() is not None
        # This session's fine-tuned models, once a job has finished (a newer job replaces them).
        finetuned = finetuned_choices()
        offered = choices()
        if st.session_state["model_choice"] not in offered:
            st.session_state["model_choice"] = "embedded"
        labels = {"embedded": t("common.model_embedded"), "folder": t("common.model_folder")}
        labels.update({name: t("common.model_hub", name=name) for name in HUB_MODELS})
        labels.update(finetuned)
        st.selectbox(
            t("common.model"),
            offered,
            format_func=labels.get,
            **keep("model_choice", on_change=_pick_model),
        )
        _hub_failed_notice()
        if st.session_state["model_choice"] == "folder":
            if classroom:
                folders = available_folders()
                if folders:
                    if st.session_state["model_folder"] not in folders:
                        st.session_state["model_folder"] = folders[0]
                    st.selectbox(t("common.folder_choice"), folders, **keep("model_folder"))
                else:
                    st.info(t("common.no_models_in_folder"))
            else:
                st.text_input(t("common.folder_path"), **keep("model_folder"))
        elif st.session_state["model_choice"] in HUB_MODELS:
            st.caption(t("common.hub_note"))
        elif st.session_state["model_choice"] in finetuned:
            st.caption(t("common.finetuned_note"))
        bundle, spec = load_chosen_model()
        config = bundle.config
        # A shared link or another model may name a layer or head this model does not have.
        st.session_state["layer"] = min(st.session_state["layer"], config.num_hidden_layers - 1)
        st.session_state["head"] = min(st.session_state["head"], config.num_attention_heads - 1)
        st.caption(model_summary(bundle))
        st.text_area(
            t("common.sentence"),
            **keep("text"),
            help=t("common.sentence_help"),
            height=100,
            max_chars=None,
        )
        text = st.session_state["text"]
        unknown = bundle.tokenizer.unknown_spans(text)
        if unknown:
            shown = "  ".join(isolated(escape_markdown(span)) for span in unknown[:MAX_UNKNOWN_SHOWN])
            shown += " …" if len(unknown) > MAX_UNKNOWN_SHOWN else ""
            st.caption(t("common.unknown_tokens", spans=shown))
        codes = missing_scripts(text, bundle.tokenizer.encode(text), bundle.tokenizer.unk_token_id)
        scripts = list(dict.fromkeys(map(_script_name, codes)))
        if scripts:
            st.warning(t("common.unknown_script", scripts=t("common.list_separator").join(scripts)))
        st.caption(t("common.share_hint"))
        if len(text) > MAX_URL_TEXT:
            st.caption(t("common.url_text_cut", limit=MAX_URL_TEXT, n=len(text)))
    return PageContext(bundle, spec, text, st.session_state["lang"])


PHONE_SENTENCE_KEY = "phone_sentence"


def model_summary(bundle) -> str:
    """The model's family and shape, and where its parameters are: the embeddings, ALBERT's and ELECTRA's
    projection from E to H, the layers (ALBERT's one shared layer counted once) and the heads."""
    config = bundle.config
    parts = bundle.parameter_parts()
    family = family_key(bundle)
    shape = t(
        "common.model_summary",
        family=t(f"common.family_{family}"),
        layers=config.num_hidden_layers,
        hidden=config.hidden_size,
        heads=config.num_attention_heads,
        params=parameter_count(parts["total"]),
        vocab=bundle.tokenizer.vocab_size,
    )
    where = [t("common.part_embeddings", n=parameter_count(parts["embeddings"]), width=config.embedding_width)]
    if parts["factorization"]:
        where.append(
            t("common.part_factorization", n=parameter_count(parts["factorization"]), width=config.hidden_size)
        )
    encoder = "common.part_encoder_shared" if config.share_layers else "common.part_encoder"
    where.append(t(encoder, n=parameter_count(parts["encoder"]), layers=config.num_hidden_layers))
    where.append(t("common.part_heads", n=parameter_count(parts["pooler"] + parts["heads"])))
    return shape + "  \n" + t("common.parameters_in", parts=" · ".join(where))


def phone_sentence() -> None:
    """The shared sentence in the page itself, for a phone: there the sidebar is folded behind a button, and a reader
    would not find the box every page reads. Drawn on every screen, shown only on a narrow one (``PHONE_CSS``)."""
    with st.container(key=PHONE_SENTENCE_KEY):
        st.text_area(
            t("common.sentence"),
            **keep("text", copy="_phone"),
            help=t("common.sentence_help"),
            height=80,
            max_chars=None,
        )
