"""Multiple choice, in English and in Chinese: the task shape of SWAG, built from the pre-training corpus's text.

SWAG gives a sentence and four endings, one of which is what happened next. Here the sentence is one of a
document's running text, the right ending the sentence that follows it, and the three others come from elsewhere:
one from the same document (it shares the topic, so the topic alone does not pick the answer) and two from other
documents, each within ``LENGTH_RATIO`` of the right ending's length (length alone does not pick it either), and
each the one of its candidates that shares as many words with the context as the right ending does (``overlap``):
the ending that repeats the context's words is right no more often than chance would have it.

The test items come from the corpus's held-out documents (``model.data.corpus``: pre-training never reads them;
``build`` also checks every sentence against the shipped model's index of what it read and drops an item with one
it did); training and validation items come from the training documents, which pre-training did read (next-sentence
prediction saw their sentences in order), validation from a share of documents by hash. The sources are those of
running text; lists and single-sentence collections (Tatoeba, fortunes, help pages, WordNet) give no "next".

Built once by ``python -m model pair-data`` from the corpus cache into ``shipped/choice.jsonl.gz``; plain Python.
"""

from __future__ import annotations

import bisect
import functools
import gzip
import hashlib
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from .paraphrase import overlap

SHIPPED = Path(__file__).resolve().parent / "shipped" / "choice.jsonl.gz"
SOURCES = {
    "en": ("brown", "austen", "wiki", "sotu", "film-reviews-en", "conventions-en"),
    "zh": ("peoples-daily", "sanguo"),
}
CHARS = {"en": (30, 140), "zh": (10, 60)}  # a context's or an ending's length: a sentence, not a heading or a page
LENGTH_RATIO = 1.5  # a wrong ending is at most this much longer or shorter than the right one
SIZES = {"train": 3000, "validation": 500, "test": 600}
VALIDATION_PER_MILLE = 150  # training documents, by hash, that give validation items instead
CHOICES = 4
LABELS = ["1", "2", "3", "4"]  # the right ending's place among the four
OTHER_CANDIDATES = 200  # sentences of other documents drawn at random, of which the two nearest in overlap are kept
SEED = 0


class ChoiceExample(NamedTuple):
    """A context, ``CHOICES`` endings, and the index of the one that follows it."""

    context: str
    endings: tuple[str, ...]
    label: int


def _fits(sentence: str, lang: str) -> bool:
    low, high = CHARS[lang]
    return low <= len(sentence) <= high


def _similar_length(a: str, b: str) -> bool:
    return max(len(a), len(b)) <= LENGTH_RATIO * min(len(a), len(b))


def items_from(documents: list[list[str]], lang: str, rng: random.Random, limit: int, read=None) -> list[dict]:
    """Up to ``limit`` items (context, right ending, three wrong endings: one from the same document, not next to
    either, two from other documents) from ``documents`` (each a list of sentences), taken in a random order. An
    item whose sentences ``read`` (a model's ``TrainingSentences``) knows is left out."""

    def unread(s: str) -> bool:
        return read is None or not read.read_any(s, lang)

    pool = sorted((len(s), d, s) for d, doc in enumerate(documents) for s in doc if _fits(s, lang))
    lengths = [n for n, _, _ in pool]
    order = list(range(len(documents)))
    rng.shuffle(order)
    items = []
    for d in order:
        doc = documents[d]
        for i in range(len(doc) - 1):
            context, right = doc[i], doc[i + 1]
            if not (_fits(context, lang) and _fits(right, lang) and unread(context) and unread(right)):
                continue
            near = [s for j, s in enumerate(doc) if abs(j - i) > 2 and _fits(s, lang) and _similar_length(s, right)]
            near = [s for s in near if s not in (context, right) and unread(s)]
            low = bisect.bisect_left(lengths, len(right) / LENGTH_RATIO)
            high = bisect.bisect_right(lengths, len(right) * LENGTH_RATIO)
            if not near or high - low < 20:
                continue
            target = overlap(context, right, lang)
            wrong = [_nearest(near, context, target, lang)]
            others = {pool[rng.randrange(low, high)] for _ in range(OTHER_CANDIDATES)}
            others = sorted(s for _, e, s in others if e != d and s not in (context, right, *wrong) and unread(s))
            if len(others) < CHOICES - 2:
                continue
            for _ in range(CHOICES - 2):
                wrong.append(_nearest(others, context, target, lang))
                others.remove(wrong[-1])
            endings = [right, *wrong]
            rng.shuffle(endings)
            items.append({"context": context, "endings": endings, "label": endings.index(right)})
            if len(items) == limit:
                return items
    return items


def _nearest(options: list[str], context: str, target: float, lang: str) -> str:
    """The option whose overlap with ``context`` is nearest ``target`` (the right ending's), the first of a tie."""
    return min(options, key=lambda s: abs(overlap(context, s, lang) - target))


def _validation_document(document: list[str]) -> bool:
    digest = hashlib.sha1(document[0].encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % 1000 < VALIDATION_PER_MILLE


def _documents(path: Path, lang: str) -> list[list[str]]:
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record["lang"] == lang and record["source"] in SOURCES[lang]:
                docs.append(record["sentences"])
    return docs


def build(corpus_dir: Path, seed: int = SEED) -> dict:
    """Rebuild ``SHIPPED`` from the corpus cache (``train.jsonl``, ``heldout.jsonl``); returns its counts."""
    from ..checkpoint import EMBEDDED_DIR
    from . import sentence_index

    read = sentence_index.load(EMBEDDED_DIR)
    rng = random.Random(seed)
    records, counts = [], {}
    for lang in ("en", "zh"):
        train_docs = _documents(corpus_dir / "train.jsonl", lang)
        splits = {
            "train": [d for d in train_docs if not _validation_document(d)],
            "validation": [d for d in train_docs if _validation_document(d)],
            "test": _documents(corpus_dir / "heldout.jsonl", lang),
        }
        for side, docs in splits.items():
            items = items_from(docs, lang, rng, SIZES[side], read if side == "test" else None)
            counts[f"{lang} {side}"] = len(items)
            records += [{"lang": lang, "split": side, **item} for item in items]
    with gzip.open(SHIPPED, "wt", encoding="utf-8", compresslevel=9) as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    load.cache_clear()
    return counts


@functools.lru_cache(maxsize=2)
def load(lang: str) -> dict[str, tuple[ChoiceExample, ...]]:
    """The shipped items of ``lang`` by split: ``train``, ``validation``, ``test``."""
    out: dict[str, list[ChoiceExample]] = defaultdict(list)
    with gzip.open(SHIPPED, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["lang"] == lang:
                out[r["split"]].append(ChoiceExample(r["context"], tuple(r["endings"]), r["label"]))
    return {side: tuple(out[side]) for side in ("train", "validation", "test")}
