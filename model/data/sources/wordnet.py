"""WordNet's example sentences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_deb
from ..text import tidy_sentences

SOURCE = {
    "id": "wordnet",
    "lang": "en",
    "name": "WordNet 3.0 example sentences",
    "licence": "WordNet 3.0 licence (free to use, copy and distribute)",
    "obtained": "Debian wordnet-base (apt-get download + dpkg-deb -x), data.{noun,verb,adj,adv}",
}


def wordnet_examples(line: str) -> list[str]:
    """The quoted example sentences of one WordNet ``data.*`` line (after the ``|`` gloss marker)."""
    if line.startswith("  ") or " | " not in line:
        return []
    gloss = line.split(" | ", 1)[1]
    return [e.strip() for e in re.findall(r'"([^"]+)"', gloss) if e.strip()]


def parse_wordnet(folder: Path) -> Iterator[list[str]]:
    """One document per synset that has examples: its example sentences (related usages of one sense)."""
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").read_text(encoding="utf-8", errors="replace").splitlines():
            examples = tidy_sentences(wordnet_examples(line), "en")
            if examples:
                yield examples


def documents(cache: Path) -> Iterator[list[str]]:
    return parse_wordnet(fetch_deb("wordnet-base", cache) / "usr/share/wordnet")
