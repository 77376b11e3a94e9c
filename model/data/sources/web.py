"""The World English Bible, read from the SWORD zText module."""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

from ..fetch import FetchError, fetch_deb
from ..text import split_sentences

SOURCE = {
    "id": "web",
    "lang": "en",
    "name": "World English Bible (2015, with Deuterocanon)",
    "licence": "public domain",
    "obtained": "Debian sword-text-web (apt-get download + dpkg-deb -x), SWORD zText module read directly, "
    "so the diatheke binary is not needed",
}


def _sword_ztext_entries(module: Path) -> Iterator[str]:
    """Every verse-index entry of a SWORD zText module (OSIS markup), in canonical order, OT then NT."""
    for testament in ("ot", "nt"):
        bzs = (module / f"{testament}.bzs").read_bytes()
        bzz = (module / f"{testament}.bzz").read_bytes()
        bzv = (module / f"{testament}.bzv").read_bytes()
        blocks: dict[int, bytes] = {}
        for i in range(len(bzv) // 10):
            block, offset, size = struct.unpack_from("<IIH", bzv, i * 10)
            if size == 0:
                continue
            if block not in blocks:
                start, csize, _usize = struct.unpack_from("<III", bzs, block * 12)
                blocks = {block: zlib.decompress(bzz[start : start + csize])}  # keep one book in memory
            yield blocks[block][offset : offset + size].decode("utf-8", "replace")


def osis_to_text(osis: str) -> str:
    """OSIS verse markup to text: footnotes and headings removed (a space left in their place), tags stripped."""
    osis = re.sub(r"<note\b.*?</note>", " ", osis, flags=re.DOTALL)
    osis = re.sub(r"<title\b.*?</title>", " ", osis, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", "", osis)
    text = re.sub(r"\s+([,.;:!?’”)])", r"\1", text)  # a footnote before punctuation left a space
    return re.sub(r"\s+", " ", text).strip()


def parse_web(module: Path) -> Iterator[list[str]]:
    """One document per Bible chapter; book introductions and the preface skipped."""
    chapter: list[str] | None = None
    for entry in _sword_ztext_entries(module):
        if 'type="book"' in entry or 'type="front"' in entry or 'type="introduction"' in entry:
            continue
        if re.search(r"<chapter\b[^>]*\bsID=", entry):  # a chapter's start (its end is <chapter eID=.../>)
            if chapter:
                yield split_sentences(" ".join(chapter), "en")
            chapter = []
        if chapter is None:
            continue
        text = osis_to_text(entry)
        if text:
            chapter.append(text)
    if chapter:
        yield split_sentences(" ".join(chapter), "en")


def documents(cache: Path) -> Iterator[list[str]]:
    root = fetch_deb("sword-text-web", cache)
    modules = sorted((root / "usr/share/sword/modules/texts/ztext").glob("engWEB*"))
    if not modules:
        raise FetchError("sword-text-web holds no engWEB zText module")
    return parse_web(modules[0])
