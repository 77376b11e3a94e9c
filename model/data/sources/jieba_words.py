"""Chinese words, listed: jieba's frequency dictionary as short lists of common words (飞机、机场、雨伞。).

Running text teaches which words follow which; it teaches the inside of a word only as often as the word occurs. A
character masked inside a common word (飞[MASK] → 机) is what the everyday cloze asks most in Chinese, and a list
of words, each once, puts every common word's characters side by side without the classical texts' habits (飞马).
Opt-in (``pretrain --source-weight jieba-words=W``), so that it can be measured on and off.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from ..fetch import installed_or_fetched
from ..text import is_cjk_char

SOURCE = {
    "id": "jieba-words",
    "lang": "zh",
    "name": "jieba's word-frequency dictionary: common words of 2-4 characters as lists, six words a sentence",
    "licence": "MIT (the jieba package and its dictionary)",
    "obtained": "PyPI jieba==0.42.1 (already a dependency), jieba/dict.txt: words of 2-4 Chinese characters with "
    "a frequency of at least 100, in a fixed shuffled order",
    "standalone_sentences": True,  # neighbouring lists are unrelated: no next-sentence label from them
    "opt_in": True,  # only in a run that names it in --source-weight
}
MIN_FREQUENCY = 100
WORDS_PER_SENTENCE = 6
SENTENCES_PER_DOCUMENT = 8


def common_words(lines: list[str]) -> list[str]:
    """Words of 2-4 Chinese characters at ``MIN_FREQUENCY`` or more, most frequent first (ties in file order)."""
    found = []
    for line in lines:
        parts = line.split()
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        word, frequency = parts[0], int(parts[1])
        if 2 <= len(word) <= 4 and frequency >= MIN_FREQUENCY and all(is_cjk_char(c) for c in word):
            found.append((frequency, word))
    found.sort(key=lambda item: -item[0])  # stable: equal frequencies keep the file's order
    return [word for _, word in found]


def word_lists(words: list[str], seed: int = 0) -> Iterator[list[str]]:
    """Documents of ``SENTENCES_PER_DOCUMENT`` sentences, each ``WORDS_PER_SENTENCE`` words joined by 、 and ended
    by 。, the words in a fixed random order so that a list's neighbours are unrelated."""
    order = list(words)
    random.Random(seed).shuffle(order)
    sentences = ["、".join(order[i : i + WORDS_PER_SENTENCE]) + "。" for i in range(0, len(order), WORDS_PER_SENTENCE)]
    for i in range(0, len(sentences), SENTENCES_PER_DOCUMENT):
        yield sentences[i : i + SENTENCES_PER_DOCUMENT]


def documents(cache: Path) -> Iterator[list[str]]:
    folder = installed_or_fetched("jieba", "jieba==0.42.1", cache)
    lines = (folder / "dict.txt").read_text(encoding="utf-8").splitlines()
    yield from word_lists(common_words(lines))
