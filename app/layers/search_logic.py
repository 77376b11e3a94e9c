"""Corpus search for the layers page: each model's index loaded once per process (built the first time, with the
page's progress bar), and a sentence's neighbours cached as small results.

An index is 0.2-0.5 GB of float16 vectors mapped from disk (``model.analysis.search``): the process keeps at most
``MAX_LOADED`` open; two sessions that ask for an index being built wait for that build instead of starting
their own.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from pathlib import Path

import streamlit as st

from app.core.models import get_model
from app.core.result_cache import CACHE_TTL
from model import inference
from model.analysis import search
from model.analysis.data import word_language

MAX_LOADED = 4
_loaded: OrderedDict[Path, search.SearchIndex] = OrderedDict()
_lock = threading.Lock()
_builds: dict[Path, threading.Lock] = {}


def corpus_language(text: str) -> str:
    """The corpus a sentence is searched in: Chinese when it has a Chinese character, else English."""
    return word_language(text)


def index_is_ready(spec: str, language: str) -> bool:
    """Whether the index is loaded or on disk, so that a search starts without a build."""
    bundle = get_model(spec)
    with _lock:
        if search.index_folder(bundle, language) in _loaded:
            return True
    return search.is_built(bundle, language)


def corpus_index(spec: str, language: str, on_progress=None) -> search.SearchIndex:
    """The model's index of ``language``'s corpus (``on_progress(done, total)`` hears only a build)."""
    bundle = get_model(spec)
    folder = search.index_folder(bundle, language)
    with _lock:
        if folder in _loaded:
            _loaded.move_to_end(folder)
            return _loaded[folder]
        build = _builds.setdefault(folder, threading.Lock())
    with build:
        with _lock:
            if folder in _loaded:
                return _loaded[folder]
        index = search.load_or_build(bundle, language, on_progress=on_progress)
        with _lock:
            _loaded[folder] = index
            while len(_loaded) > MAX_LOADED:
                _loaded.popitem(last=False)
    return index


@st.cache_data(max_entries=16, ttl=CACHE_TTL, show_spinner=False)
def query(spec: str, text: str) -> search.QueryTokens:
    return search.query_tokens(get_model(spec), text)


def sentence_tokens(spec: str, text: str) -> list[str]:
    """The tokens the reader picks from: the tokenizer's alone, so that a visit runs no forward pass."""
    return list(inference.encode(get_model(spec), text).tokens[1:-1])


def default_position(tokens: list[str]) -> int:
    """The token a page searches for when the reader has chosen none: the longest word-like one (a piece's ##
    not counted); of equals (every Chinese character), the one nearest the middle of the sentence."""
    words = [
        i for i, token in enumerate(tokens) if token not in ("[MASK]", "[UNK]") and any(c.isalnum() for c in token)
    ]
    middle = (len(tokens) - 1) / 2
    return max(words, key=lambda i: (len(tokens[i].removeprefix("##")), -abs(i - middle)), default=0)


@st.cache_data(max_entries=64, ttl=CACHE_TTL, show_spinner=False)
def neighbours(spec: str, language: str, text: str, position: int, metric: str) -> dict:
    """The nearest corpus tokens to token ``position`` of ``text`` at every layer, and what they share."""
    index = corpus_index(spec, language)
    found = query(spec, text)
    search.check_token(found, position)
    matches = search.search(index, found.vectors[:, position], metric)
    summary = search.summarise(index, matches, found.ids[position], position)
    return {
        "rows": [search.match_rows(index, matches, layer) for layer in range(index.layers)],
        "summary": [s.to_json() for s in summary],
        "agreement": index.meta.get("agreement"),
        "index": {key: index.meta[key] for key in ("tokens", "sentences", "tagged_tokens", "sources")},
    }


_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
_NO_SPACE_BEFORE = set(",.?!;:)%'-")
_NO_SPACE_AFTER = set("(-")
_CLITICS = {"s", "t", "re", "ll", "ve", "d", "m"}  # doesn ' t -> doesn't


def joined_pieces(tokens: list[str], position: int, mark) -> str:
    """The pieces as the sentence's words again, ``mark(piece, is_the_match)`` applied to each: a ``##`` piece joins
    the one before, Chinese characters and closing punctuation take no space."""
    out, before = "", ""
    for i, token in enumerate(tokens):
        continues = token.startswith("##") and len(token) > 2
        piece = token[2:] if continues else token
        tight = not out or continues or _CJK.match(piece) or _CJK.match(before) or piece in _NO_SPACE_BEFORE
        tight = tight or before in _NO_SPACE_AFTER or before == "'" and piece in _CLITICS
        out += ("" if tight else " ") + mark(piece, i == position)
        before = piece
    return out
