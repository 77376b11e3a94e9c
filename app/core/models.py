"""Models are loaded once per process (``st.cache_resource``), frozen in eval mode, shared by every session.

Per-sentence results are cached with ``st.cache_data`` keyed by the model spec and the inputs. Pages call
the functions here, never the model directly, so no page can change the shared weights.

A session's own fine-tuned model is chosen by a spec ``finetuned:<job id>:<run>`` and resolved from that
session's state only (``SESSION_MODELS``, which the fine-tuning lab fills; core knows the shape, not the lab), never from a process-wide table: another session cannot load it,
and a cached result keyed by the spec is reachable only through the job's random 128-bit id, which never
leaves the session (the choice is not written into shared links).

Classroom mode: with ``BERT_LAB_MODELS_DIR`` set, only the embedded model and the folders inside that
directory can be chosen: no other server paths, and no hub downloads.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import streamlit as st
import torch

from app.core import attention_stats
from app.core.errors import explain
from app.core.i18n import t
from app.core.result_cache import CACHE_TTL, ByteBoundedCache
from model import inference, results
from model.analysis import attribution, tracing
from model.analysis.neuron_view import NeuronView
from model.analysis.neuron_view import neuron_view as compute_neuron_view
from model.checkpoint import CheckpointError, LoadedBert, load
from model.data import sentence_index
from model.tokenization import BertTokenizer

HUB_MODELS = ("bert-base-uncased", "bert-base-chinese")
FINETUNED_PREFIX = "finetuned:"
SESSION_MODELS = "session_models"  # where a session keeps its own trained models: a ``SessionModels``


class SessionModels(Protocol):
    """A session's own trained models, as the page that trains them keeps them (``app.finetune.jobs.Job``)."""

    id: str  # random and never shown: it makes the models' specs
    tokenizer: BertTokenizer
    base_spec: str  # the model they were trained from: their "before"

    def runs(self) -> dict[str, str]:
        """The finished runs, each with its name on a page."""

    def trained_model(self, run: str) -> torch.nn.Module | None: ...

    def from_pretrained(self, run: str) -> bool:
        """Whether the run started from pre-trained weights (a run from random ones has no "before" worth seeing)."""


def models_dir() -> Path | None:
    value = os.environ.get("BERT_LAB_MODELS_DIR")
    return Path(value) if value else None


ANY_MODEL_SETTING = "BERT_LAB_ANY_MODEL"  # "1": a typed server path or hub id even where others can reach the server
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def any_model_allowed() -> bool:
    """Whether the sidebar takes a typed server path or hub id: only for the person at the machine (the server
    listens on loopback, this app's default), or where ``BERT_LAB_ANY_MODEL=1`` says so; never in classroom mode.
    Anyone who can reach a server on the school network could otherwise probe its folders, or make it download."""
    if models_dir() is not None:
        return False
    if os.environ.get(ANY_MODEL_SETTING, "").strip() == "1":
        return True
    return str(st.get_option("server.address") or "").strip() in LOOPBACK


def choices() -> list[str]:
    """What the sidebar's model picker offers: the embedded model, a folder (the models folder's entries in
    classroom mode, a typed path where ``any_model_allowed``), BERT from the hub where typed ids are allowed, and
    this session's fine-tuned models."""
    folder = ["folder"] if models_dir() is not None or any_model_allowed() else []
    hub = list(HUB_MODELS) if any_model_allowed() else []
    return ["embedded", *folder, *hub, *finetuned_choices()]


def get_model(spec: str) -> LoadedBert:
    """The model a spec names: a shared one (loaded once per process), or this session's fine-tuned one."""
    if spec.startswith(FINETUNED_PREFIX):
        return _session_finetuned(spec)
    return _shared_model(spec)


@st.cache_resource(max_entries=4, show_spinner=False)
def _shared_model(spec: str) -> LoadedBert:
    """Load once per process; the weights are frozen so no page or session can change them."""
    bundle = load(spec, models_dir=models_dir())
    # What a student types in Traditional characters reaches the model in the Simplified form it learned.
    bundle.tokenizer.fold_traditional(sentence_index.read_as_simplified(bundle.path))
    bundle.model.eval()
    bundle.model.requires_grad_(False)
    _LOADED_ONCE.add(spec)
    return bundle


def warm_up(spec: str = "embedded") -> None:
    """Load ``spec`` into the shared cache and run each kind of forward pass once (tracing its graph), as the
    server starts (serve.py): the first visitor then waits for neither. Pages and AppTests load on demand."""
    bundle = get_model(spec)
    inference.attention_maps_both(bundle, "warm up")
    inference.fill_mask(bundle, "warm [MASK]")


# Specs this process has loaded: the sidebar shows its "loading" spinner only before the first load. A spinner
# starts a timer thread on every run, and with a class's thirty script threads holding the GIL, starting a
# thread waits its turn several times over.
_LOADED_ONCE: set[str] = set()


def finetuned_spec(job_id: str, init: str) -> str:
    return f"{FINETUNED_PREFIX}{job_id}:{init}"


def finetuned_choices() -> dict[str, str]:
    """This session's finished fine-tuned models, spec → its name on a page, in the runs' order."""
    source: SessionModels | None = st.session_state.get(SESSION_MODELS)
    if source is None:
        return {}
    return {finetuned_spec(source.id, run): label for run, label in source.runs().items()}


def _session_finetuned(spec: str) -> LoadedBert:
    """A fine-tuned model of THIS session's job, frozen like the shared ones; a ``CheckpointError`` when the
    session has no such model (a newer job replaced it, or the spec came from somewhere else)."""
    job_id, _, init = spec.removeprefix(FINETUNED_PREFIX).partition(":")
    job: SessionModels | None = st.session_state.get(SESSION_MODELS)
    model = job.trained_model(init) if job is not None and job.id == job_id else None
    if model is None:
        raise CheckpointError(f"{spec}: no such fine-tuned model in this session", "finetuned_gone")
    bundles = st.session_state.setdefault("_finetuned_bundles", {})
    if spec not in bundles:
        bundles.clear()  # only the current job's runs are kept
    if spec not in bundles:
        model.eval()
        model.requires_grad_(False)
        bundles[spec] = LoadedBert(model, job.tokenizer, spec, None)
    return bundles[spec]


def before_after_pairs(spec: str) -> dict[str, str]:
    """This session's fine-tuned models that started from pre-trained weights, each with the spec of the model
    it was fine-tuned from (its "before"); the sidebar's model ``spec`` first when it is one of them. A run from
    random weights has no "before" worth comparing: it did not start from the pre-trained maps."""
    source: SessionModels | None = st.session_state.get(SESSION_MODELS)
    if source is None:
        return {}
    tuned = [finetuned_spec(source.id, run) for run in source.runs() if source.from_pretrained(run)]
    tuned.sort(key=lambda name: name != spec)
    return {name: source.base_spec for name in tuned}


def chosen_spec() -> str:
    """What the sidebar asks for (it may fail to load); only what ``choices`` offers, whatever the state holds."""
    choice = st.session_state.get("model_choice", "embedded")
    if choice not in choices():
        return "embedded"
    if choice == "folder":
        return st.session_state.get("model_folder", "").strip() or "embedded"
    return choice


def display_name(bundle: LoadedBert) -> str:
    """What a page calls the model: the embedded one by its name in the session's language, a folder by its
    own name (not the server's path to it)."""
    if bundle.name == "embedded":
        return t("common.model_embedded_name")
    if bundle.name.startswith(FINETUNED_PREFIX):
        return finetuned_choices().get(bundle.name, "?")
    return Path(bundle.name).name


def spec_display_name(spec: str) -> str:
    """``display_name`` of the model a spec names (a page's own model is in its context; this is for another)."""
    return display_name(get_model(spec))


# Hub models that failed to load in this process, with why. Offline, every try cost the hub client's 28 s of
# retries, on every run of every page; a failed one is not asked for again until a reader presses Retry.
_HUB_FAILED: dict[str, CheckpointError] = {}


def hub_failure(spec: str) -> CheckpointError | None:
    return _HUB_FAILED.get(spec)


def try_hub_model(spec: str, *, again: bool = False) -> CheckpointError | None:
    """Load a hub model now (once per process), or the error that stops it, remembered; ``again``: forget an
    earlier failure and ask the network once more."""
    if again:
        _HUB_FAILED.pop(spec, None)
    if spec not in _HUB_FAILED:
        try:
            get_model(spec)
        except CheckpointError as e:
            _HUB_FAILED[spec] = e
    return _HUB_FAILED.get(spec)


def load_chosen_model() -> tuple[LoadedBert, str]:
    """The model the sidebar chose and its spec; falls back to the embedded one with a message if that fails.

    The sidebar calls this once per run, before the page, and hands both to the page in its ``PageContext``.
    """
    spec = chosen_spec()
    if hub_failure(spec) is not None:  # the sidebar says why, with a retry; the network is not asked again
        return get_model("embedded"), "embedded"
    try:
        if spec in _LOADED_ONCE:
            bundle = get_model(spec)
        else:
            with st.spinner(t("common.loading_model")):
                bundle = get_model(spec)
        return bundle, spec
    except CheckpointError as e:
        if spec == "embedded":
            st.error(t("common.model_failed", error=explain(e)))
            st.stop()
        st.sidebar.error(t("common.model_failed", error=explain(e)))
        st.sidebar.info(t("common.using_fallback"))
        return get_model("embedded"), "embedded"


def has_mlm_head(bundle: LoadedBert) -> bool:
    """A fine-tuned classifier has no vocabulary head (nor the NSP head beside it): it cannot fill in a [MASK]; nor
    has ELECTRA's discriminator, whose head says which tokens were replaced."""
    return hasattr(bundle.model, "cls")


# What ``family_key`` returns: the strings ``common.family_<key>`` and ``model_facts.family_<key>`` name each.
FAMILY_KEYS = ("bert", "roberta", "distilbert", "albert", "electra_generator", "electra_discriminator")


def family_key(bundle: LoadedBert) -> str:
    """Which of BERT's family the model is, as the pages name it (``common.family_<key>``); ELECTRA's two networks
    are told apart, since one fills in [MASK]s and the other spots replaced tokens."""
    family = bundle.config.extra.get("family", "bert")
    if family == "electra":
        return "electra_discriminator" if bundle.is_discriminator else "electra_generator"
    return family


def available_folders() -> list[str]:
    root = models_dir()
    if root is None or not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / "config.json").exists())


# Cached per-sentence results. The model is looked up by spec inside, so only strings are hashed. Entries are kept
# at most an hour; the small ones (top-k predictions, statistics, encodings) by count, the large ones by bytes
# (``RESULTS`` below: both readings' maps are layers x heads x T x T floats x 2, 151 MB for the embedded model at
# 512 tokens and 302 MB for BERT-Base). A class of thirty at short sentences costs a recomputation of about 0.1 s
# when an entry was evicted.


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def fill_mask(spec: str, text: str, top_k: int = 5, causal: bool = False) -> results.FillMaskResult:
    return inference.fill_mask(get_model(spec), text, top_k=top_k, causal=causal)


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def fill_mask_iterative(spec: str, text: str, top_k: int = 5) -> results.IterativeFillResult:
    return inference.fill_mask_iterative(get_model(spec), text, top_k=top_k)


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def logit_lens(spec: str, text: str, word: str = "") -> results.LogitLensResult:
    return inference.logit_lens(get_model(spec), text, top_k=3, word=word or None)


@st.cache_data(max_entries=256, ttl=CACHE_TTL, show_spinner=False)
def neuron_view(spec: str, text: str, pair: str | None, layer: int, head: int, row: int) -> NeuronView:
    return compute_neuron_view(get_model(spec), text, layer, head, row, pair)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def causal_trace(
    spec: str, text: str, corrupt: tuple[int, ...] | None = None, draws: range | None = None
) -> tracing.TraceResult:
    return tracing.causal_trace(get_model(spec), text, list(corrupt) if corrupt else None, draws=draws)


@st.cache_data(max_entries=256, ttl=CACHE_TTL, show_spinner=False)
def integrated_gradients(spec: str, text: str) -> results.TokenAttributions:
    return attribution.integrated_gradients(get_model(spec), text)


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def pseudo_log_likelihood(spec: str, text: str) -> results.PllResult:
    return inference.pseudo_log_likelihood(get_model(spec), text)


# Attention maps and embedding parts, the only large results, are held by bytes (app.core.result_cache), shared by
# every run that asks rather than copied: ``st.cache_data`` unpickles a copy per call (2 x 75 MB at 512 tokens).
RESULTS = ByteBoundedCache()


def attention_both(
    spec: str, text: str, pair: str | None = None
) -> tuple[results.AttentionResult, results.AttentionResult]:
    """Both readings of a text, bidirectional and causal, from one forward pass of a batch of two: the attention
    page and GPT vs BERT show both. Read-only."""
    return RESULTS.get_or_make(
        ("attention", spec, text, pair), lambda: inference.attention_maps_both(get_model(spec), text, pair)
    )


def attention(spec: str, text: str, pair: str | None = None, causal: bool = False) -> results.AttentionResult:
    return attention_both(spec, text, pair)[int(causal)]


# Cached beside attention(): at 512 tokens the statistics take half a second, and a model
# view of six layers at 64 tokens as long; neither should be redone when an unrelated widget changes.
@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def head_statistics(spec: str, text: str, pair: str | None, causal: bool) -> dict:
    result = attention(spec, text, pair, causal)
    return attention_stats.head_statistics(result.attentions, result.special)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def head_change(before_spec: str, after_spec: str, text: str, pair: str | None):
    return attention_stats.head_change(
        attention(before_spec, text, pair, False).attentions, attention(after_spec, text, pair, False).attentions
    )


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def replaced_tokens(spec: str, text: str) -> results.ReplacedTokensResult:
    return inference.replaced_tokens(get_model(spec), text)


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def next_sentence(spec: str, first: str, second: str) -> results.NspResult:
    return inference.next_sentence(get_model(spec), first, second)


def embeddings(spec: str, text: str, pair: str | None = None) -> results.EmbeddingResult:
    """The five parts of the input representation (T x hidden each: 7.9 MB for BERT-Base at 512 tokens). Read-only."""
    return RESULTS.get_or_make(
        ("embeddings", spec, text, pair), lambda: inference.embedding_parts(get_model(spec), text, pair)
    )


@st.cache_data(max_entries=512, ttl=CACHE_TTL, show_spinner=False)
def tokenize(spec: str, text: str, pair: str | None = None):
    """The encoding of ``text`` (validated like every other call: empty text raises InputError)."""
    return inference.encode(get_model(spec), text, pair)
