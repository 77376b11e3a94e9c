"""Session state, created in one place, and mirrored in the URL so a teacher can share a view.

``SETTINGS`` lists every value a widget keeps when the reader changes page: its default, the values it may
take, and whether a shared link carries it. The URL always carries the language, the sentence, the layer
and the head (the page is the URL's path), and every other shared setting that differs from its default.
Values read from the URL are validated: a hand-edited link can never crash a page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import streamlit as st

from app.core.i18n import LANGUAGES
from app.core.jobs import Owner
from app.finetune.jobs import INITS
from model.analysis import lab as layers
from model.analysis.data import PROBE_TASKS
from model.checkpoint import LoadedBert
from model.data.tasks import TASKS
from model.training.finetune import DEMO_TRAIN_SIZE, demo_settings

DEFAULT_TEXT = {
    "zh": "我去电影院看电影，电影很好看。",
    "en": "She opened the door and walked into the room.",
}
MAX_URL_TEXT = 2000  # characters of the sentence kept in a shared link
ALWAYS_IN_URL = ("lang", "text", "layer", "head")


@dataclass(frozen=True)
class Setting:
    """One remembered value. A link may set it to one of ``options``, or a whole number in ``low..high``."""

    default: Any
    options: tuple = ()
    low: int = 0
    high: int = 0
    # "one" value, a "flag", a "pair" of numbers, a "list" of numbers, "text" (high: its length), or "heads":
    # attention heads named "layer.head" (a link may name heads this model lacks: the page drops those)
    kind: str = "one"
    shared: bool = True  # carried by a shared link

    def parse(self, raw: str) -> Any:
        """The value a URL's ``raw`` string stands for; ``ValueError`` when a link may not set it."""
        if self.kind == "flag":
            if raw not in ("0", "1"):
                raise ValueError(raw)
            return raw == "1"
        if self.kind == "heads":
            names = [part for part in raw.split(",") if part]
            if len(names) > self.high or any(not re.fullmatch(r"\d{1,4}\.\d{1,4}", n) for n in names):
                raise ValueError(raw)
            return sorted(set(names))
        if self.kind == "text":
            if not raw.strip():
                raise ValueError(raw)
            return raw.strip()[: self.high]
        if self.options:
            by_text = {url_value(option): option for option in self.options}
            if raw not in by_text:
                raise ValueError(raw)
            return by_text[raw]
        numbers = [int(part) for part in raw.split(",")] if raw else []
        if any(not self.low <= n <= self.high for n in numbers):
            raise ValueError(raw)
        if self.kind == "pair":
            if len(numbers) != 2 or numbers[0] > numbers[1]:
                raise ValueError(raw)
            return tuple(numbers)
        if self.kind == "list":
            return sorted(set(numbers))
        if len(numbers) != 1:
            raise ValueError(raw)
        return numbers[0]


def url_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple | list):
        return ",".join(map(str, value))
    return str(value)


_FINETUNE = demo_settings()
MAX_LAYERS = 1024  # bounds a hand-edited link; the sidebar clamps to the loaded model's layers and heads

SETTINGS: dict[str, Setting] = {
    "lang": Setting(LANGUAGES[0], options=LANGUAGES),
    "layer": Setting(0, low=0, high=MAX_LAYERS - 1),
    "head": Setting(0, low=0, high=MAX_LAYERS - 1),
    "model_choice": Setting("embedded", shared=False),  # a server path or download is no one else's business
    "model_folder": Setting("", shared=False),
    # Presenter mode (larger type, high contrast, sidebar folded): a teacher's link can turn it on.
    "presenter": Setting(False, kind="flag"),
    "fill_mask_top_k": Setting(5, low=1, high=20),
    "fill_mask_decode": Setting("independent", options=("independent", "iterative")),
    # Candidate sentences to score: a reader's own text, not something to put in a link.
    "fill_mask_candidates": Setting("", high=4000, kind="text", shared=False),
    "masking_rate": Setting(15, low=1, high=100),
    "masking_split": Setting((80, 90), low=0, high=100, kind="pair"),
    "masking_whole_word": Setting(False, kind="flag"),
    "masking_seed": Setting(3, low=0, high=2**31 - 1),
    "nsp_mode": Setting("sample", options=("sample", "type")),
    "nsp_draw": Setting(0, low=0, high=10**6),
    # The attention page shows one section at a time: the two maps, every head's statistics, or bertviz.
    "attention_section": Setting("maps", options=("maps", "heads", "bertviz")),
    "attention_average": Setting(False, kind="flag"),
    "attention_hide": Setting(False, kind="flag"),
    "attention_renormalize": Setting(True, kind="flag"),
    "attention_bertviz_view": Setting("head", options=("head", "model")),
    "attention_bertviz_mask": Setting("bidirectional", options=("bidirectional", "causal")),
    # None: the layer chosen above; an empty list is a reader's choice and stays empty.
    "attention_bertviz_layers": Setting(None, low=0, high=MAX_LAYERS - 1, kind="list"),
    "finetune_task": Setting(next(iter(TASKS)), options=tuple(TASKS)),
    "finetune_size": Setting(DEMO_TRAIN_SIZE, low=100, high=2000),
    "finetune_epochs": Setting(_FINETUNE.epochs, low=1, high=5),
    "finetune_lr": Setting(_FINETUNE.lr, options=(2e-5, 3e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3)),
    "finetune_batch": Setting(_FINETUNE.batch_size, options=(8, 16, 32)),
    "finetune_max_length": Setting(_FINETUNE.max_length, options=(32, 64, 128)),
    "finetune_budget": Setting(int(_FINETUNE.max_seconds), options=(30, 60, 120, 300)),
    "finetune_freeze": Setting(_FINETUNE.freeze_encoder, kind="flag"),
    # The page clamps it to the loaded model's layer count (that many trains everything, the embeddings too).
    "finetune_layers": Setting(_FINETUNE.trained_layers, low=1, high=MAX_LAYERS),
    "finetune_compare": Setting(False, kind="flag"),
    "finetune_compare_frozen": Setting(False, kind="flag"),
    "finetune_init": Setting(INITS[0], options=INITS),
    # The head lab: which heads are switched off, and the sample's language (it follows the page's at first).
    "heads_off": Setting([], high=MAX_LAYERS, kind="heads"),
    "heads_lang": Setting(LANGUAGES[0], options=LANGUAGES),
    "heads_step": Setting(1, options=(1, 2, 3, 4)),  # the head lab shows one of its four steps at a time
    # Watch BERT learn (live pre-training): an experiment from app.pretrain_live.jobs.EXPERIMENTS, seconds per run.
    "pretrain_live_experiment": Setting("single", options=("single", "mask_rate", "mask_mix", "nsp")),
    "pretrain_live_budget": Setting(120, options=(30, 60, 120, 300)),
    # The layers lab; its task and word follow the page's language until a reader or a link sets them.
    "layers_task": Setting(PROBE_TASKS[0], options=PROBE_TASKS),
    "layers_train": Setting(layers.TRAIN_SENTENCES, low=20, high=400),
    "layers_test": Setting(layers.TEST_SENTENCES, low=20, high=200),
    "layers_word": Setting(layers.DEFAULT_WORDS["en"][0], high=20, kind="text"),
    "layers_contexts": Setting(layers.CONTEXTS, low=5, high=100),
    "layers_probe_ran": Setting(False, kind="flag"),
    "layers_geometry_ran": Setting(False, kind="flag"),
}


@dataclass(frozen=True)
class PageContext:
    """What the sidebar settles for one run and every page reads: the model, its spec, the sentence, the language."""

    bundle: LoadedBert
    spec: str  # the model really loaded: the chosen one, or "embedded" when that failed
    text: str
    lang: str


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
    """Fill session state on a session's first run: from the URL where it says something, else defaults."""
    if st.session_state.get("_initialised"):
        return
    for name, setting in SETTINGS.items():
        st.session_state.setdefault(name, _linked_value(setting, st.query_params.get(name)))
    text = st.query_params.get("text")
    st.session_state.setdefault("text", text[:MAX_URL_TEXT] if text else DEFAULT_TEXT[st.session_state["lang"]])
    # The session's token for its fine-tuning jobs: a job lives only as long as the session holds it.
    st.session_state.setdefault("finetune_owner", Owner())
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


def keep(name: str, on_change=None) -> dict:
    """Keyword arguments for a widget whose value must outlive the page that shows it.

    Streamlit forgets a widget's state when its page is left; the value itself lives under ``name`` and
    the widget under ``w_<name>``, refreshed from it on every run. ``on_change`` runs after the value is
    stored. Use as ``st.slider(label, 1, 20, **keep("fill_mask_top_k"))``.
    """
    widget_key = f"w_{name}"
    st.session_state[widget_key] = st.session_state[name]
    return {"key": widget_key, "on_change": _store, "args": (name, on_change)}


def _store(name: str, then=None) -> None:
    st.session_state[name] = st.session_state[f"w_{name}"]
    if then is not None:
        then()
