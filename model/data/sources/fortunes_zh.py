"""Chinese fortunes and classical poems."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_deb
from ..text import fortune_documents, normalize_zh, strip_ansi

SOURCE = {
    "id": "fortunes-zh",
    "lang": "zh",
    "name": "fortunes-zh: Chinese fortunes, 300 Tang poems, 100 Song poems",
    "licence": "GPL-3+",
    "obtained": "Debian fortunes-zh (apt-get download + dpkg-deb -x), ANSI colour escapes stripped",
}


def _clean_line(s: str) -> str | None:
    """A line without its footnote marks, or None for a title, an attribution, a URL or a manual's heading."""
    if (
        s.startswith("--")
        or re.match(r"^(表\s*)?\d+(\.\d+)+\.?\s", s)  # "12.4.4. 高级 gdb 命令": a manual's headings
        or re.match(r"^(题目|作者|词牌|出处)\s*[:：]", s)
        or re.fullmatch(r"《[^》]*》", s)
        or re.search(r"https?://|www\.", s)
        or re.fullmatch(r"\[\d+\].*", s)
    ):
        return None
    return re.sub(r"\[\d+\]", "", s)


def parse_fortunes_zh(text: str) -> Iterator[list[str]]:
    """One document per fortune (``%``-separated); colours, titles, attributions, URLs and footnote marks dropped."""
    return fortune_documents(normalize_zh(strip_ansi(text)), "zh", _clean_line)


def documents(cache: Path) -> Iterator[list[str]]:
    folder = fetch_deb("fortunes-zh", cache) / "usr/share/games/fortunes"
    for name in ("chinese", "tang300", "song100"):
        yield from parse_fortunes_zh((folder / name).read_text(encoding="utf-8", errors="replace"))
