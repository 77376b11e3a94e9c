"""Session state, created in one place, and mirrored in the URL so a teacher can share a view.

``SETTINGS`` lists every value a widget keeps when the reader changes page: its default, the values it may
take, and whether a shared link carries it; ``SESSION`` every other value a session keeps. Core declares its own
here, each concept in its ``settings.py`` (``app.core.settings``). The URL always carries the language, the
sentence, the layer and the head (the page is the URL's path), and every other shared setting that differs from
its default. Values read from the URL are validated: a hand-edited link can never crash a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from app.core.i18n import LANGUAGES, STRINGS, language_for_locale, reads
from app.core.jobs import Owner
from app.core.registry import concept_modules
from app.core.settings import MAX_LAYERS, Setting, url_value
from model.checkpoint import LoadedBert

DEFAULT_TEXT = {lang: STRINGS["common.default_text"][lang] for lang in LANGUAGES}  # the sentence every page opens on
MAX_URL_TEXT = 2000  # characters of the sentence kept in a shared link
ALWAYS_IN_URL = ("lang", "text", "layer", "head")


CORE_SETTINGS: dict[str, Setting] = {
    "lang": Setting(LANGUAGES[0], options=LANGUAGES),
    "layer": Setting(0, low=0, high=MAX_LAYERS - 1),
    "head": Setting(0, low=0, high=MAX_LAYERS - 1),
    "model_choice": Setting("embedded", shared=False),  # a server path or download is no one else's business
    "model_folder": Setting("", shared=False),
    # Presenter mode (larger type, high contrast, sidebar folded): a teacher's link can turn it on.
    "presenter": Setting(False, kind="flag"),
}
CORE_SESSION: dict[str, str] = {
    "text": "the shared sentence every page reads (a link carries it too, cut to MAX_URL_TEXT)",
    "_initialised": "whether init_state has filled this session",
    "job_owner": "the session's token for its background jobs: a job lives only as long as the session holds it",
    "session_models": "this session's own trained models (app.core.models.SessionModels): the fine-tuning lab's job",
    "_finetuned_bundles": "this session's fine-tuned models, loaded for the model picker",
    "_entry_ran": "the run's PageContext, from the entry script to the page (app.core.navigation)",
    "_pages": "this session's st.Page list and the language it is titled in (app.core.navigation)",
    "model_failed": "the hub model the picker last failed to load, whose error and retry the sidebar shows",
    "live_run_charts": "a live pre-training job's charts, rebuilt only when a new evaluation came in (app.core.live_view)",
}
# Keys made from a name: a widget's own copy of a setting (``keep``), a page's first visit (``start_in_language``).
DERIVED_KEYS = (r"w_(?P<setting>\w+)", r"_(?P<page>\w+)_visited")


def _gathered(name: str, core: dict) -> dict:
    """Core's declarations and every concept's, in one dict; a name declared twice is a mistake."""
    merged = dict(core)
    for concept, module in concept_modules("settings").items():
        for key, value in getattr(module, name).items():
            if key in merged:
                raise ValueError(f"app/{concept}/settings.py declares {key!r}, which is declared already")
            merged[key] = value
    return merged


SETTINGS: dict[str, Setting] = _gathered("SETTINGS", CORE_SETTINGS)
SESSION: dict[str, str] = _gathered("SESSION", CORE_SESSION)


@dataclass(frozen=True)
class PageContext:
    """What the sidebar settles for one run and every page reads: the model, its spec, the sentence, the language."""

    bundle: LoadedBert
    spec: str  # the model really loaded: the chosen one, or "embedded" when that failed
    text: str
    lang: str  # the interface's language

    @property
    def reads(self) -> str:
        """The language of the text the page gives the model (its samples, examples, tasks): "zh" or "en"."""
        return reads(self.lang)


def _linked_value(setting: Setting, raw: str | None) -> Any:
    """The value a link's ``raw`` string gives ``setting``: its default when the link says nothing, may not set
    it, or says something it may not take."""
    if raw is None or not setting.shared:
        return setting.default
    try:
        return setting.parse(raw)
    except ValueError:
        return setting.default


def init_state() -> None:
    """Fill session state on a session's first run: from the URL where it says something, else defaults; a first
    visit without a language in its link follows the browser's (its Accept-Language) until the reader chooses."""
    if st.session_state.get("_initialised"):
        return
    if "lang" not in st.query_params and (lang := language_for_locale(st.context.locale)):
        st.session_state.setdefault("lang", lang)
    for name, setting in SETTINGS.items():
        st.session_state.setdefault(name, _linked_value(setting, st.query_params.get(name)))
    text = st.query_params.get("text")
    st.session_state.setdefault("text", text[:MAX_URL_TEXT] if text else DEFAULT_TEXT[st.session_state["lang"]])
    # The session's token for its fine-tuning jobs: a job lives only as long as the session holds it.
    st.session_state.setdefault("job_owner", Owner())
    st.session_state["_initialised"] = True


def url_params() -> dict[str, str]:
    """The shareable part of the state, as the address bar spells it."""
    wanted = {"text": st.session_state["text"][:MAX_URL_TEXT]}
    for name, setting in SETTINGS.items():
        value = st.session_state[name]
        if setting.shared and (name in ALWAYS_IN_URL or value != setting.default):
            wanted[name] = url_value(value)
    if st.session_state.get("class_room") and not st.session_state.get("class_token"):
        # A student's address bar keeps the class (app.classroom): a reload rejoins it. Never the teacher's: the
        # view it publishes is this dict, and the room is not part of what the class sees.
        wanted["room"] = st.session_state["class_room"]
    return wanted


def apply_params(params: dict[str, str]) -> None:
    """Set the session to a view that ``url_params`` spelled (a teacher's, in class mode). Values are checked
    like a link's; a shared setting the view leaves out is at its default (``url_params`` omits defaults)."""
    for name, setting in SETTINGS.items():
        if setting.shared:
            st.session_state[name] = _linked_value(setting, params.get(name))
    text = params.get("text")
    if text:
        st.session_state["text"] = text[:MAX_URL_TEXT]


def sentence_now() -> str:
    """The session's sentence at this moment, for a widget's callback: callbacks run before the entry script
    builds the run's context, so the ``context.text`` they could see is the previous run's."""
    return st.session_state["text"]


def url_is_stale() -> bool:
    """True when the address bar no longer shows the state: a fragment that changed a shared setting then asks
    for a full run, whose entry script writes the URL."""
    return st.query_params.to_dict() != url_params()


def sync_url() -> None:
    """Write the shareable part of the state into the address bar (the entry script calls this once a run)."""
    wanted = url_params()
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def start_in_language(page: str, values: dict[str, Any]) -> None:
    """On a session's first visit of ``page``, set each setting to its value for the page's language, unless a
    shared link chose it: some defaults (a task, a word, a sample) depend on the reader's language."""
    visited = f"_{page}_visited"
    if st.session_state.get(visited):
        return
    st.session_state[visited] = True
    for name, value in values.items():
        if name not in st.query_params:
            st.session_state[name] = value


def keep(name: str, on_change=None, *, copy: str = "") -> dict:
    """Keyword arguments for a widget whose value must outlive the page that shows it.

    Streamlit forgets a widget's state when its page is left; the value itself lives under ``name`` and
    the widget under ``w_<name>``, refreshed from it on every run. ``on_change`` runs after the value is
    stored. Use as ``st.slider(label, 1, 20, **keep("fill_mask_top_k"))``. A second widget for the same value
    (the phone's sentence box beside the sidebar's) names itself by ``copy``: both show the value, either sets it.
    """
    widget_key = f"w_{name}{copy}"
    st.session_state[widget_key] = st.session_state[name]
    return {"key": widget_key, "on_change": _store, "args": (name, on_change, widget_key)}


def _store(name: str, then=None, widget_key: str | None = None) -> None:
    st.session_state[name] = st.session_state[widget_key or f"w_{name}"]
    if then is not None:
        then()
