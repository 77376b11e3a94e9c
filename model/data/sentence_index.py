"""Which sentences a model pre-trained on, as a compact hashed index that ships beside its weights.

The pre-training corpus is a cache that ``python -m model corpus`` builds (tens of MB, fetched from the package
registries); a test on a fresh clone has none. To ask "did the shipped model read this sentence?" there, the model
folder carries ``training_sentences.u64``: every sentence of the training half it read, normalised by
``sentence_key`` (lower case; English and Chinese punctuation and spacing reduced to single spaces between words,
as the corpus build's ``excluded_sentences.txt`` compares them) and hashed to the first 8 bytes of BLAKE2b, sorted,
as little-endian unsigned 64-bit integers. ``training_sentences.json`` beside it says how it was built: the corpus
version, the sources (those of every run in ``runs.json``), the held-out split, the counts, and the WordPiece token
counts of the text, which match the counts the last run recorded when the text is the text it read.

With N stored digests a sentence the model never read is reported as read with probability N / 2^64 (about 2e-14
for 360,000 sentences); a [MASK] query makes some 25,000 lookups, so a whole test run stays below 1e-6.

A query may hold one [MASK]: is there a training sentence equal to this one with the [MASK] filled by one word
(English) or one character (Chinese)? Every whole-word token of the model's vocabulary, or every single character
of it, is tried: the blanks a [MASK] stands for are the vocabulary's tokens. Two [MASK]s would be 25,000 squared
lookups; ``contains`` refuses them (the corpus's ``SentenceIndex`` answers them where the corpus is built).

``sentence_index_build`` writes the index. This module stays without the corpus builder, because the model card
(and through it the app) reads its file names. Plain Python and numpy: no torch, no UI.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .text import is_cjk_char, sentence_key, split_sentences

INDEX_NAME = "training_sentences.u64"
META_NAME = "training_sentences.json"
READ_AS_SIMPLIFIED = "traditional_read_as_simplified"  # in META_NAME: see sentence_index_build.rarely_read_traditional
MASK = "[MASK]"
DTYPE = np.dtype("<u8")
_NON_WORD = re.compile(r"[\W_]+")  # what sentence_key turns into one space
_WORD = re.compile(r"[^\W_]+")


def digest(key: str) -> int:
    """The 8-byte BLAKE2b digest of a sentence key, as an integer."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "little")


def sentence_digest(sentence: str) -> int:
    return digest(sentence_key(sentence))


class TrainingSentences:
    """The sorted digests of a model's training sentences, and the vocabulary that fills a [MASK]."""

    def __init__(self, digests: np.ndarray, vocab: Iterable[str], metadata: dict | None = None):
        self.digests = np.asarray(digests, dtype=DTYPE)
        self.metadata = metadata or {}
        # Whole words fill an English blank, single characters a Chinese one (vocab.txt is lower-case already).
        words = {t.lower() for t in vocab if _WORD.fullmatch(t) and not t.startswith("##")}
        self.en_fills = sorted(w for w in words if not any(is_cjk_char(c) for c in w))
        self.zh_fills = sorted(w for w in words if len(w) == 1)

    def __len__(self) -> int:
        return len(self.digests)

    def _found(self, queries: np.ndarray) -> np.ndarray:
        if not len(self.digests):
            return np.zeros(len(queries), dtype=bool)
        at = np.searchsorted(self.digests, queries)
        return self.digests[np.minimum(at, len(self.digests) - 1)] == queries

    def contains(self, sentence: str) -> bool:
        """Whether a training sentence has ``sentence``'s key; a [MASK] stands for one word or character."""
        return bool(self.fills(sentence))

    __contains__ = contains

    def read_any(self, text: str, lang: str) -> bool:
        """Whether ``text`` or any of its sentences, split and normalised as the corpus splits text, was read: a
        held-out review or passage is unread only if every sentence of it is."""
        return self.contains(text) or any(self.contains(s) for s in split_sentences(text, lang))

    def fills(self, sentence: str) -> list[str]:
        """The words (characters) that, put in ``sentence``'s one [MASK], give a training sentence; without a
        [MASK], ``[""]`` when the sentence is one, else ``[]``."""
        masks = sentence.count(MASK)
        if masks == 0:
            return [""] if self._found(np.array([sentence_digest(sentence)], dtype=DTYPE))[0] else []
        if masks > 1:
            raise ValueError(f"the index answers one [MASK] at most, not {masks}: {sentence!r}")
        before, after = sentence.split(MASK)
        chinese = any(is_cjk_char(c) for c in sentence)
        if not chinese:  # an English blank is a word of its own, as the corpus's SentenceIndex reads it
            before, after = before + " ", " " + after
        # sentence_key(before + fill + after) for a fill that is one run of word characters:
        left = _NON_WORD.sub(" ", before.lower()).lstrip()
        right = _NON_WORD.sub(" ", after.lower()).rstrip()
        if chinese:  # no space beside a Chinese blank: "所有 [MASK] 都" is "所有X都", as SentenceIndex reads it
            left = left.rstrip() if any(is_cjk_char(c) for c in left) else left
            right = right.lstrip() if any(is_cjk_char(c) for c in right) else right
        candidates = self.zh_fills if chinese else self.en_fills
        queries = np.fromiter((digest(left + f + right) for f in candidates), dtype=DTYPE, count=len(candidates))
        return [f for f, hit in zip(candidates, self._found(queries)) if hit]


def read_as_simplified(folder: Path | None) -> str:
    """The Traditional characters the model in ``folder`` rarely read, which it is given in Simplified form; ""
    where the folder has no record (a hub model, a folder without an index)."""
    path = Path(folder) / META_NAME if folder is not None else None
    if path is None or not path.is_file():
        return ""
    return json.loads(path.read_text(encoding="utf-8")).get(READ_AS_SIMPLIFIED, "")


@functools.cache
def shipped() -> TrainingSentences:
    """The index of the shipped model (``model/embedded``, ``model.checkpoint.EMBEDDED_DIR``): what it read."""
    return load(Path(__file__).resolve().parents[1] / "embedded")


def load(folder: Path) -> TrainingSentences:
    """A model folder's index (``INDEX_NAME``, ``META_NAME`` and its ``vocab.txt``); FileNotFoundError if none."""
    folder = Path(folder)
    digests = np.frombuffer((folder / INDEX_NAME).read_bytes(), dtype=DTYPE)
    metadata = json.loads((folder / META_NAME).read_text(encoding="utf-8"))
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return TrainingSentences(digests, vocab, metadata)
