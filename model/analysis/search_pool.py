"""The text corpus search looks in: held-out sentences, never training text, with a part of speech per word
where a tagged source or a tagger gives one.

Per language, two kinds of sentence, shuffled together (seed 0) so that a smaller index keeps both:

* tagged held-out sentences, the layers lab's probe sentences (``model.analysis.data``): Brown's documents that
  the pre-training corpus holds out (universal parts of speech), and People's Daily's (its own tags, by first
  letter);
* modern held-out text, the sentences of ``model/training/modern_sample.jsonl`` (Tatoeba, State of the Union,
  e-mail and LibreOffice help, from the held-out split of each source). English ones carry no tag (no tagger
  ships with the app); Chinese ones are cut into words and tagged by jieba, its tags mapped onto People's
  Daily's letters.

Plain Python: no torch, no UI.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass
from pathlib import Path

from ..data import sentence_index
from ..data.text import split_sentences
from .data import load_probe_data, pd_coarse

MODERN_SAMPLE = Path(__file__).resolve().parent.parent / "training" / "modern_sample.jsonl"
TAGGED_TASK = {"en": "pos-en", "zh": "pos-zh"}
LANGUAGES = tuple(TAGGED_TASK)
# jieba's tags that People's Daily spells otherwise: punctuation is "w" there, and a Latin-script word is "x"
# (other), not "e" (interjection).
_JIEBA_TO_PD = {"x": "w", "eng": "x"}


@dataclass(frozen=True)
class PoolSentence:
    """A sentence as words (the model reads each word's pieces), a tag per word ("" untagged), its source."""

    text: str
    words: tuple[str, ...]
    tags: tuple[str, ...]
    source: str


def modern_sentences(language: str) -> list[tuple[str, str]]:
    """(sentence, source) of the shipped modern held-out sample, each sentence once, in file order."""
    seen: dict[str, str] = {}
    with open(MODERN_SAMPLE, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["lang"] != language:
                continue
            for part in (row["a"], row["b"]):
                for sentence in split_sentences(part, language):
                    seen.setdefault(sentence.strip(), row["source"])
    return [(s, source) for s, source in seen.items() if s]


def _jieba_words(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    import logging

    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    pairs = [(w, f) for w, f in jieba.posseg.cut(text) if w.strip()]
    return tuple(w for w, _ in pairs), tuple(pd_coarse(_JIEBA_TO_PD.get(f, f)) for _, f in pairs)


@functools.lru_cache(maxsize=2)
def pool_sentences(language: str, cache_dir: Path | None = None) -> tuple[PoolSentence, ...]:
    """Every sentence the index may hold, in the order it takes them (seed 0 shuffle of both kinds)."""
    if language not in TAGGED_TASK:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    probe = load_probe_data(TAGGED_TASK[language], cache_dir)
    source = "brown" if language == "en" else "peoples-daily"
    pool = [PoolSentence(s.text, s.words, s.tags, source) for s in probe.sentences]
    read = sentence_index.shipped()
    for text, origin in modern_sentences(language):
        if read.read_any(text, language):
            continue  # a held-out pair can repeat a short sentence that training read ("Click OK.", "为什么？")
        if language == "en":
            words = tuple(text.split())
            tags = ("",) * len(words)
        else:
            words, tags = _jieba_words(text)
        if words:
            pool.append(PoolSentence(text, words, tags, origin))
    random.Random(0).shuffle(pool)
    return tuple(pool)
