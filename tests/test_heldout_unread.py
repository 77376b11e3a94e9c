"""Held out means never read: no sentence of any held-out split is one the shipped model read in pre-training.

Every split a page scores a model on or lets a student explore as "text the model never saw" is checked here against
the shipped model's hashed index of its training sentences (``model/data/sentence_index.py``): the fine-tuning tasks'
test splits, the NSP lab's samples, the layers lab's probe sentences, the corpus-search pool and the sentence-vectors
pool. The one split that is partly read is the sentence-vectors pool's Chinese side (Tatoeba's Chinese sentences were
read as text, never beside their English); its English side is checked, and the page and the card say so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from model.data import sentence_index
from model.data.tasks import load_task
from model.data.text import split_sentences

ROOT = Path(__file__).resolve().parent.parent
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _task(name: str) -> list[str]:
    task = load_task(name)
    if task.kind == "span":
        return [e.passage for e in task.heldout]
    if task.kind == "token":
        return ["".join(e.tokens) for e in task.heldout]
    return [e.text for e in task.heldout]


def _nsp_samples() -> list[str]:
    samples = json.loads((ROOT / "app" / "nsp" / "nsp_samples.json").read_text(encoding="utf-8"))
    return [s for document in samples["documents"] for s in document["sentences"]]


def _probe(task: str) -> list[str]:
    from model.analysis.data import load_probe_data

    return [s.text for s in load_probe_data(task).sentences]


def _search_pool(language: str) -> list[str]:
    from model.analysis.search_pool import pool_sentences

    return [s.text for s in pool_sentences(language)]


def _sentence_vectors_english() -> list[str]:
    from model.data.translation_pairs import load_pool

    return [en for en, _ in load_pool()]


SPLITS = {
    "qa-zh test": lambda: _task("qa-zh"),
    "qa-en test": lambda: _task("qa-en"),
    "ner-zh test": lambda: _task("ner-zh"),
    "sentiment-zh test": lambda: _task("sentiment-zh"),
    "topics-en test": lambda: _task("topics-en"),
    "NSP lab samples": _nsp_samples,
    "pos-en probe": lambda: _probe("pos-en"),
    "pos-zh probe": lambda: _probe("pos-zh"),
    "ner-zh probe": lambda: _probe("ner-zh"),
    "corpus-search pool en": lambda: _search_pool("en"),
    "corpus-search pool zh": lambda: _search_pool("zh"),
    "sentence-vectors pool en": _sentence_vectors_english,
}


@pytest.mark.parametrize("split", sorted(SPLITS))
def test_no_held_out_sentence_was_read_by_the_shipped_model(split):
    read = sentence_index.shipped()
    texts = SPLITS[split]()
    sentences = {s for text in texts for s in split_sentences(text, "zh" if _CJK.search(text) else "en")}
    assert len(sentences) >= 100, f"{split}: too few sentences to hold anything out"
    hits = sorted(s for s in sentences if read.contains(s))
    assert not hits, f"{split}: {len(hits)} of {len(sentences)} sentences were read in pre-training: {hits[:5]}"
