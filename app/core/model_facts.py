"""What a page says about the model it runs, in plain words: its size (from its config), how much text it
pre-trained on (from the model card's records, ``runs.json``) against BERT-Base's 3.3 billion words, and which
bigger BERT the reader can switch to in one click.

The facts and the switches are plain functions (unit-tested); ``show`` draws them on a page.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from babel.numbers import format_compact_decimal

from app.core import models
from app.core.i18n import LANGUAGES_INFO, reads, t
from app.core.numbers import parameter_count
from model.checkpoint import EMBEDDED_DIR, CheckpointError, LoadedBert, read_config
from model.modeling import BertConfig, bert_base, count_parameters
from model.training.card import read_runs

# Devlin et al. 2019, section 3.1: BooksCorpus (800M words) and English Wikipedia (2,500M words).
BERT_BASE_WORDS = 3_300_000_000
# The hub model a page offers, by the page's language.
HUB_FOR_LANG = {"en": "bert-base-uncased", "zh": "bert-base-chinese"}


@dataclass(frozen=True)
class ModelFacts:
    layers: int
    hidden: int
    heads: int
    parameters: int
    corpus_tokens: dict[str, int]  # per language: the corpus the last recorded run drew from; {} without records

    @property
    def corpus_total(self) -> int:
        return sum(self.corpus_tokens.values())

    @property
    def bert_base_ratio(self) -> float:
        """How many times more text BERT-Base read (its words against this corpus's tokens: a word is one token
        or more, so the true ratio in words is larger still)."""
        return BERT_BASE_WORDS / self.corpus_total if self.corpus_total else float("nan")


def model_facts(config: BertConfig, runs: list[dict], parameters: int | None = None) -> ModelFacts:
    """The facts of a model of ``config`` (``parameters``: a loaded checkpoint's own count, else the config's)."""
    last = runs[-1] if runs else {}
    return ModelFacts(
        layers=config.num_hidden_layers,
        hidden=config.hidden_size,
        heads=config.num_attention_heads,
        parameters=count_parameters(config)["total"] if parameters is None else parameters,
        corpus_tokens=dict(last.get("train_tokens", {})),
    )


def training_records(bundle: LoadedBert) -> list[dict]:
    """The pre-training runs recorded beside a model's weights (``runs.json``); none for a hub model."""
    if bundle.name == "embedded":
        return read_runs(EMBEDDED_DIR)
    folder = Path(bundle.name)
    try:
        return read_runs(folder) if folder.is_dir() else []
    except (OSError, ValueError):  # a folder we may not read, or a runs.json that is not JSON: no records
        return []


@dataclass(frozen=True)
class Switch:
    """A bigger BERT the sidebar's model picker can load: ``choice`` is its ``model_choice`` value (a hub id or
    "folder"), ``folder`` the ``model_folder`` value for a folder."""

    choice: str
    folder: str
    name: str
    layers: int
    hidden: int
    parameters: int


def _switch(choice: str, folder: str, name: str, config: BertConfig) -> Switch:
    return Switch(choice, folder, name, config.num_hidden_layers, config.hidden_size, count_parameters(config)["total"])


def bigger_models(parameters: int, *, lang: str, folders: dict[str, BertConfig], hub_available: bool) -> list[Switch]:
    """The models the reader could switch to that are bigger than one of ``parameters``: local folders
    (``model_folder`` value → config) and, where the hub can be reached, BERT-Base in the page's language
    (its size from the paper's configuration)."""
    options = [_switch("folder", folder, Path(folder).name, config) for folder, config in folders.items()]
    if hub_available:
        options.append(_switch(HUB_FOR_LANG[lang], "", HUB_FOR_LANG[lang], bert_base()))
    return sorted((o for o in options if o.parameters > parameters), key=lambda o: -o.parameters)


# Where the bigger models are ---------------------------------------------------------------------------------


def local_folders() -> dict[str, BertConfig]:
    """Checkpoint folders the sidebar can load: the class's models folder (classroom mode), or else the folder the
    reader typed into the sidebar's picker. Value: what ``model_folder`` holds → the folder's config."""
    if models.models_dir() is not None:
        names = models.available_folders()
    elif not models.any_model_allowed():
        names = []
    else:
        typed = str(st.session_state.get("model_folder", "")).strip()
        names = [typed] if typed else []
    found = {}
    for name in names:
        folder = models.models_dir() / name if models.models_dir() is not None else Path(name)
        try:
            found[name] = read_config(folder)
        except (CheckpointError, OSError, ValueError):  # not a checkpoint: nothing to offer
            continue
    return found


def hub_available(repo_id: str) -> bool:
    """Whether the sidebar could load ``repo_id`` from the hub: only where it takes hub ids at all
    (``models.any_model_allowed``: never in classroom mode); then when it is in the
    local hub cache or the hub answers."""
    if not models.any_model_allowed():
        return False
    try:
        from huggingface_hub import try_to_load_from_cache

        if isinstance(try_to_load_from_cache(repo_id, "config.json"), str):
            return True
    except ImportError:  # pragma: no cover - it is in requirements.txt
        return False
    return hub_online()


@st.cache_data(ttl=600, show_spinner=False)
def hub_online() -> bool:
    """One short connection attempt, remembered for ten minutes: a page must not wait on an offline network."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes"):
        return False
    try:
        with socket.create_connection(("huggingface.co", 443), timeout=1.5):
            return True
    except OSError:
        return False


# On a page -----------------------------------------------------------------------------------------------------


def _amount(n: float, lang: str) -> str:
    """A count of tokens or words as a reader of ``lang`` says it (CLDR's long compact form): "8.8 million",
    "880万", "33億"."""
    return format_compact_decimal(n, locale=LANGUAGES_INFO[lang].babel, format_type="long", fraction_digits=1)


def _choose(switch: Switch) -> None:
    st.session_state["model_choice"] = switch.choice
    if switch.folder:
        st.session_state["model_folder"] = switch.folder


def show(bundle: LoadedBert, lang: str, key: str) -> None:
    """The model's size and reading, and a button for each bigger BERT the reader can switch to."""
    facts = model_facts(bundle.config, training_records(bundle), bundle.parameter_parts()["total"])
    base = bert_base()
    lines = [
        t(
            "model_facts.size",
            name=models.display_name(bundle),
            layers=facts.layers,
            hidden=facts.hidden,
            heads=facts.heads,
            params=parameter_count(facts.parameters),
            base_layers=base.num_hidden_layers,
            base_hidden=base.hidden_size,
            base_heads=base.num_attention_heads,
            base_params=f"{count_parameters(base)['total'] / 1e6:.0f}M",
        )
    ]
    family = models.family_key(bundle)
    if family != "bert":  # what the family changed, so the reader does not take it for BERT itself
        config = bundle.config
        lines.append(
            t(
                f"model_facts.family_{family}",
                embedding=config.embedding_width,
                hidden=config.hidden_size,
                layers=config.num_hidden_layers,
            )
        )
    if facts.corpus_total:
        by_lang = ", ".join(
            t(f"model_facts.tokens_{code}", n=_amount(n, lang)) for code, n in sorted(facts.corpus_tokens.items())
        )
        lines.append(
            t(
                "model_facts.reading",
                tokens=_amount(facts.corpus_total, lang),
                by_lang=by_lang,
                words=_amount(BERT_BASE_WORDS, lang),
                ratio=f"{facts.bert_base_ratio:,.0f}",
            )
        )
    else:
        lines.append(t("model_facts.no_records"))
    st.info("\n\n".join(lines), icon=":material/info:")
    hub = HUB_FOR_LANG[reads(lang)]
    switches = bigger_models(
        facts.parameters, lang=reads(lang), folders=local_folders(), hub_available=hub_available(hub)
    )
    for switch in switches:
        label = t(
            "model_facts.switch",
            name=switch.name,
            layers=switch.layers,
            hidden=switch.hidden,
            params=f"{switch.parameters / 1e6:.0f}M",
        )
        st.button(label, on_click=_choose, args=(switch,), key=f"{key}_switch_{switch.choice}_{switch.folder}")
    if switches and any(s.choice == hub for s in switches):
        st.caption(t("model_facts.hub_note"))
