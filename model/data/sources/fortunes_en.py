"""English fortunes (BSD fortune's database, Debian's package): short sayings, jokes and quotations.

Debian keeps the offensive fortunes in another package (fortunes-off), not fetched here. Of this package's files
the ones with ASCII drawings, programming jargon, Star Trek and Zippy dialogue, and the files whose humour turns
on ethnicity, the sexes, drugs or politics are left out as well: what remains is everyday English a class can read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_deb
from ..text import fortune_documents

FILES = (
    "cookie", "definitions", "education", "food", "humorists", "kids", "law", "love",
    "medicine", "miscellaneous", "news", "people", "pets", "platitudes", "science", "songs-poems", "sports",
    "wisdom", "work",
)  # fmt: skip
LEFT_OUT = (
    "art", "ascii-art", "computers", "debian", "linux", "linuxcookie", "perl", "magic", "startrek", "zippy", "knghtbrd",
    "translate-me", "disclaimer", "goedel", "paradoxum", "tao", "pratchett", "ethnic", "men-women", "drugs",
    "politics",
)  # fmt: skip

SOURCE = {
    "id": "fortunes-en",
    "lang": "en",
    "name": "English fortunes (BSD fortune database), everyday files only, one document per fortune",
    "licence": "BSD (Debian fortunes package); quotations belong to their authors",
    "obtained": "Debian fortunes (apt-get download + dpkg-deb -x), usr/share/games/fortunes/*.u8 of "
    + ", ".join(FILES)
    + "; attributions removed",
    "standalone_sentences": True,  # a fortune has a sentence or two; consecutive fortunes are unrelated
}


def _prose(line: str) -> bool:
    """Not a banner ("=== NOTE ===") or a piece of a drawing: no run of a drawing character, and at least half of
    what is not a space is letters."""
    visible = [c for c in line if not c.isspace()]
    banner = re.search(r"([=*#~_+<>|/\\])\1\1", line)
    return bool(visible) and not banner and sum(c.isalpha() for c in visible) * 2 >= len(visible)


def parse_fortunes_en(text: str) -> Iterator[list[str]]:
    """One document per fortune (``%``-separated); attributions ("-- Mark Twain") and lines that are mostly not
    letters dropped, wrapped lines joined."""
    text = re.sub(r".\x08", "", text)  # overstrike: "_\bx" underlines x on a terminal
    return fortune_documents(text, "en", lambda line: line if not line.startswith("--") and _prose(line) else None)


def documents(cache: Path) -> Iterator[list[str]]:
    folder = fetch_deb("fortunes", cache) / "usr/share/games/fortunes"
    for name in FILES:
        yield from parse_fortunes_en((folder / f"{name}.u8").read_text(encoding="utf-8", errors="replace"))
