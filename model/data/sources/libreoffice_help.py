"""LibreOffice's help pages: modern instructional prose, in English and in Chinese, one document per page.

The pages are HTML: only the text of their paragraphs and list items is kept (no headings, tables, menus, notes
or examples), and the BASIC programming guide is left out (code, not prose).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

from ..fetch import fetch_deb
from ..text import normalize_zh, paragraph_sentences

PACKAGES = {"en": ("libreoffice-help-en-us", "en-US"), "zh": ("libreoffice-help-zh-cn", "zh-CN")}
PROSE_CLASSES = {"paragraph", "listitem"}
SKIPPED_MODULES = {"sbasic"}


class _Paragraphs(HTMLParser):
    """The text of each ``<p class="paragraph|listitem">``, inline markup (menu names, links) included."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._open: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if self._open is not None:
            self._depth += tag == "p"
        elif tag == "p" and dict(attrs).get("class") in PROSE_CLASSES:
            self._open, self._depth = [], 0

    def handle_endtag(self, tag):
        if self._open is None or tag != "p":
            return
        if self._depth:
            self._depth -= 1
            return
        self.paragraphs.append("".join(self._open))
        self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)


def page_paragraphs(html: str) -> list[str]:
    parser = _Paragraphs()
    parser.feed(html)
    return parser.paragraphs


def parse_help(root: Path, lang: str) -> Iterator[list[str]]:
    """One document per help page, in path order."""
    for path in sorted((root / "text").rglob("*.html")):
        if SKIPPED_MODULES & set(path.relative_to(root).parts):
            continue
        paragraphs = page_paragraphs(path.read_text(encoding="utf-8", errors="replace"))
        if lang == "zh":
            paragraphs = [normalize_zh(p) for p in paragraphs]
        sentences = paragraph_sentences(paragraphs, lang)
        if sentences:
            yield sentences


def _source(lang: str) -> dict:
    package, folder = PACKAGES[lang]
    return {
        "id": f"libreoffice-help-{lang}",
        "lang": lang,
        "name": f"LibreOffice 7.4 help ({'English' if lang == 'en' else 'Chinese'}), one document per page, "
        "paragraphs and list items only, the BASIC guide left out",
        "licence": "MPL-2.0",
        "obtained": f"Debian {package} (apt-get download + dpkg-deb -x), usr/share/libreoffice/help/{folder}/text",
    }


def _documents(lang: str, cache: Path) -> Iterator[list[str]]:
    package, folder = PACKAGES[lang]
    return parse_help(fetch_deb(package, cache) / "usr" / "share" / "libreoffice" / "help" / folder, lang)


# Two records with a source module's two names, one per language.
english = SimpleNamespace(SOURCE=_source("en"), documents=partial(_documents, "en"))
chinese = SimpleNamespace(SOURCE=_source("zh"), documents=partial(_documents, "zh"))
