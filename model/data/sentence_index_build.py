"""Writes a model folder's hashed index of its training sentences (``sentence_index``) from the corpus cache:
``python -m model sentence-index``.

The training text is rebuilt as the corpus build forms it (``model.data.corpus``): the parsed documents of every
source the folder's ``runs.json`` names, deduplicated, split with the build's held-out seed and fraction, less the
sentences of ``excluded_sentences.txt`` when every run recorded that it left them out. Sources the runs did not
read cannot change it: deduplication keeps a sentence's first occurrence, later sources come later in the corpus's
order, and the held-out split is drawn per source.

Plain Python and numpy: no torch, no UI.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..tokenization import traditional_to_simplified
from .corpus import (
    CORPUS_VERSION,
    dedup_documents,
    drop_sentences,
    excluded_digest,
    read_excluded,
    source_documents,
    split_heldout,
)
from .fetch import default_cache_dir
from .sentence_index import DTYPE, INDEX_NAME, META_NAME, READ_AS_SIMPLIFIED, digest
from .sources import DEFAULT_SOURCES, SOURCES
from .text import sentence_key

HELDOUT_SEED, HELDOUT_FRACTION = 0, 0.02  # the corpus build's defaults, which pre-training uses


FOLD_RATIO = 20  # 著, read 591 times against 5,545 for 着, is a Simplified character too: kept as it is


def read_sources(runs: list[dict]) -> list[str]:
    """The corpus sources every run read, in the corpus's order (a run without a list read all of them)."""
    used = {s for run in runs for s in run.get("sources", DEFAULT_SOURCES)}
    return [s["id"] for s in SOURCES if s["id"] in used]


def read_exclusions(runs: list[dict]) -> tuple[list[str], str | None]:
    """The sentences every run left out of its training half, and their digest; none if a run left none out.

    Each run records the digest of ``excluded_sentences.txt`` it trained under; a run that records none predates
    the list and read those sentences. The list's sentences are only known as they are today, so a run whose
    digest differs from today's cannot be reproduced: that raises ValueError."""
    recorded = [run.get("excluded_sentences") for run in runs]
    if not recorded or any(d is None for d in recorded):
        return [], None
    excluded = read_excluded()
    current = excluded_digest(excluded)
    if set(recorded) != {current}:
        raise ValueError(
            f"the runs trained under excluded_sentences.txt digests {sorted(set(recorded))}, the file now has "
            f"{current}: check out the list they used to rebuild the index"
        )
    return excluded, current


def training_documents(sources: list[str], excluded: list[str], cache_dir: Path | None = None) -> list[dict]:
    """The training half of ``sources`` as the corpus build forms it: deduplicated, split (``HELDOUT_SEED``,
    ``HELDOUT_FRACTION``), without ``excluded``. Sources later in the corpus's order cannot change it."""
    cache = cache_dir or default_cache_dir()
    docs = dedup_documents(d for s in sources for d in source_documents(s, cache))
    train, _heldout = split_heldout(docs, HELDOUT_FRACTION, HELDOUT_SEED)
    return drop_sentences(train, excluded)[0] if excluded else train


def rarely_read_traditional(sentences: list[str]) -> str:
    """The Traditional characters the model read at least ``FOLD_RATIO`` times less often than their Simplified
    forms (OpenCC's table), which a page gives it in Simplified form (``BertTokenizer.fold_traditional``)."""
    counts = Counter(char for sentence in sentences for char in sentence)
    table = traditional_to_simplified()
    return "".join(a for a, b in sorted(table.items()) if counts[b] and counts[b] >= FOLD_RATIO * counts[a])


def build_index(
    folder: Path,
    *,
    cache_dir: Path | None = None,
    count_tokens: Callable[[list[str]], int] | None = None,
) -> dict:
    """Write ``folder``'s index of the sentences its ``runs.json`` says the model read; return its metadata.

    ``count_tokens`` (sentences -> WordPiece tokens with the folder's vocabulary) adds the token counts that the
    card's runs recorded, so a test can hold the index to the card."""
    folder = Path(folder)
    runs = json.loads((folder / "runs.json").read_text(encoding="utf-8"))
    sources = read_sources(runs)
    excluded, excluded_id = read_exclusions(runs)
    train = training_documents(sources, excluded, cache_dir)
    keys = {sentence_key(s) for d in train for s in d["sentences"]}
    keys.discard("")
    digests = np.array(sorted({digest(k) for k in keys}), dtype=DTYPE)
    (folder / INDEX_NAME).write_bytes(digests.tobytes())
    by_lang = {lang: [s for d in train if d["lang"] == lang for s in d["sentences"]] for lang in ("en", "zh")}
    # Sentences of today's exclusion list that the model read all the same (it trained before the list had them).
    kept = {s for d in drop_sentences(train, read_excluded())[0] for s in d["sentences"]}
    read_anyway = sorted({s for d in train for s in d["sentences"]} - kept)
    metadata = {
        "what": "the training sentences of the model in this folder, hashed (model/data/sentence_index_build.py)",
        "format": "sorted little-endian uint64: the first 8 bytes of BLAKE2b of each sentence's sentence_key, UTF-8",
        "rebuild": "python -m model sentence-index (reads the corpus cache; python -m model corpus builds it)",
        "corpus_version": CORPUS_VERSION,
        "sources": sources,
        "heldout_split": {"seed": HELDOUT_SEED, "fraction": HELDOUT_FRACTION},
        "excluded_sentences": excluded_id,
        "read_though_excluded_now": read_anyway,
        "documents": {lang: sum(1 for d in train if d["lang"] == lang) for lang in by_lang},
        "sentences": {lang: len(s) for lang, s in by_lang.items()},
        "keys": len(keys),
        "digests": len(digests),
        "bytes": len(digests) * DTYPE.itemsize,
    }
    metadata[READ_AS_SIMPLIFIED] = rarely_read_traditional(by_lang["zh"])
    if count_tokens is not None:
        metadata["train_tokens"] = {lang: count_tokens(s) for lang, s in by_lang.items()}
    (folder / META_NAME).write_text(json.dumps(metadata, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return metadata
