"""Chinese fortunes and classical poems."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import fetch_deb
from ..text import blocks, join_wrapped_lines, normalize_zh, paragraph_sentences, strip_ansi

SOURCE = {
    "id": "fortunes-zh",
    "lang": "zh",
    "name": "fortunes-zh: Chinese fortunes, 300 Tang poems, 100 Song poems",
    "licence": "GPL-3+",
    "obtained": "Debian fortunes-zh (apt-get download + dpkg-deb -x), ANSI colour escapes stripped",
}


def parse_fortunes_zh(text: str) -> Iterator[list[str]]:
    """One document per fortune (``%``-separated); colours, titles, attributions, URLs and footnote marks dropped."""
    text = normalize_zh(strip_ansi(text))
    for fortune in re.split(r"\n%\n", text):
        paragraphs = []
        for block in blocks(fortune.splitlines()):
            lines = []
            for ln in block:
                s = ln.strip()
                if (
                    s.startswith("--")
                    or re.match(r"^(表\s*)?\d+(\.\d+)+\.?\s", s)  # "12.4.4. 高级 gdb 命令": a manual's headings
                    or re.match(r"^(题目|作者|词牌|出处)\s*[:：]", s)
                    or re.fullmatch(r"《[^》]*》", s)
                    or re.search(r"https?://|www\.", s)
                    or re.fullmatch(r"\[\d+\].*", s)
                ):
                    continue
                lines.append(re.sub(r"\[\d+\]", "", s))
            if lines:
                paragraphs.append(join_wrapped_lines(lines))
        sentences = paragraph_sentences(paragraphs, "zh")
        if sentences:
            yield sentences


def documents(cache: Path) -> Iterator[list[str]]:
    folder = fetch_deb("fortunes-zh", cache) / "usr/share/games/fortunes"
    for name in ("chinese", "tang300", "song100"):
        yield from parse_fortunes_zh((folder / name).read_text(encoding="utf-8", errors="replace"))
