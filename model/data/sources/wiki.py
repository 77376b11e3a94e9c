"""An English Wikipedia sample, wiki markup cleaned."""

from __future__ import annotations

import bz2
import html
import re
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from ..fetch import FetchError, fetch_pypi
from ..text import paragraph_sentences

SOURCE = {
    "id": "wiki",
    "lang": "en",
    "name": "English Wikipedia sample (gensim's test dump, articles A-)",
    "licence": "CC BY-SA 3.0",
    "obtained": "pip download gensim==4.4.0 --no-deps, test_data/enwiki-latest-pages-articles1.xml-*.bz2; "
    "wiki markup cleaned here",
}


_WIKI_STOP_SECTIONS = re.compile(
    r"^(references|see also|external links|notes|further reading|bibliography|sources|footnotes|citations)$",
    re.IGNORECASE,
)


_WIKI_DROP_NAMESPACES = re.compile(
    r"^\s*:?\s*(file|image|category|media|wikipedia|wp|template|help|portal|special|talk|user|[a-z]{2,3}(-[a-z]+)?)\s*:",
    re.IGNORECASE,
)


def _remove_nested(text: str, open_: str, close: str) -> str:
    """Remove balanced ``open_ ... close`` spans, innermost first (templates nest)."""
    pattern = re.compile(
        re.escape(open_) + r"(?:(?!" + re.escape(open_) + r")(?!" + re.escape(close) + r").)*?" + re.escape(close),
        re.DOTALL,
    )
    while True:
        new = pattern.sub("", text)
        if new == text:
            return new
        text = new


def _remove_tables(text: str) -> str:
    out, depth = [], 0
    for line in text.split("\n"):
        s = line.lstrip()
        if s.startswith("{|"):
            depth += 1
            continue
        if depth and s.startswith("|}"):
            depth -= 1
            continue
        if not depth:
            out.append(line)
    return "\n".join(out)


def clean_wiki_markup(text: str) -> str:
    """MediaWiki source to plain paragraphs separated by blank lines (our own small ``filter_wiki``).

    Drops comments, references, templates, tables, files and categories, headings and everything from a
    "References"/"See also"/"External links" heading on, list and indented lines; keeps link labels and the
    text of external links; removes bold/italic quotes and HTML tags.
    """
    text = html.unescape(text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    text = re.sub(r"<ref[^>]*/>", "", text, flags=re.IGNORECASE)
    text = re.sub(r"<ref[^>]*>.*?</ref\s*>", "", text, flags=re.DOTALL | re.IGNORECASE)
    text = re.sub(
        r"<(math|gallery|timeline|source|syntaxhighlight|score|chem|code|pre|imagemap|nowiki|table)\b[^>]*>.*?</\1\s*>",
        "",
        text,
        flags=re.DOTALL | re.IGNORECASE,
    )
    text = _remove_tables(text)
    # dash templates stand for punctuation ("1775{{ndash}}1783"); every other template is dropped
    text = re.sub(r"\{\{\s*(?:spaced )?(?:ndash|snd|spnd|sndash)\s*\}\}", " – ", text, flags=re.IGNORECASE)
    text = re.sub(r"\{\{\s*(?:mdash|spaced mdash|dash)\s*\}\}", " — ", text, flags=re.IGNORECASE)
    text = re.sub(r"(?<=\d) – (?=\d)", "–", text)
    text = _remove_nested(text, "{{", "}}")
    text = _remove_nested(text, "{|", "|}")

    def link(m: re.Match) -> str:
        inner = m.group(1)
        if _WIKI_DROP_NAMESPACES.match(inner):
            return ""
        return inner.split("|")[-1]

    link_re = re.compile(r"\[\[([^\[\]]*)\]\]")
    while True:  # innermost first, so a file caption's links resolve before the file link goes
        new = link_re.sub(link, text)
        if new == text:
            break
        text = new
    text = re.sub(r"\[(?:https?|ftp)://[^\s\]]+\s+([^\]]*)\]", r"\1", text)
    text = re.sub(r"\[(?:https?|ftp)://[^\]]*\]", "", text)
    text = re.sub(r"'{2,}", "", text)
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.IGNORECASE)
    text = re.sub(r"</?[A-Za-z][^>]*>", "", text)
    text = re.sub(r"__[A-Z]+__", "", text)

    paragraphs: list[str] = []
    current: list[str] = []
    for line in text.split("\n"):
        s = line.strip()
        heading = re.fullmatch(r"=+\s*(.*?)\s*=+", s)
        if heading or not s or s[0] in "*#:;|!{}" or s.startswith(("[[", "]]")):
            if current:
                paragraphs.append(" ".join(current))
                current = []
            if heading and _WIKI_STOP_SECTIONS.match(heading.group(1)):
                break
            continue
        current.append(s)
    if current:
        paragraphs.append(" ".join(current))
    cleaned = []
    for p in paragraphs:
        p = re.sub(r"\(\s*[,;]?\s*\)", "", p)  # "( )" and "(; )" left where templates were
        p = re.sub(r"\(\s*[,;]\s*", "(", p)
        p = re.sub(r"\s+([,.;:!?])", r"\1", p)
        p = re.sub(r"\s{2,}", " ", p).strip()
        if p:
            cleaned.append(p)
    return "\n\n".join(cleaned)


def parse_wiki(path: Path) -> Iterator[list[str]]:
    """One document per main-namespace article of a MediaWiki XML dump (.bz2); redirects skipped."""
    with bz2.open(path, "rb") as fh:
        title = ns = None
        for _event, elem in ElementTree.iterparse(fh, events=("end",)):
            tag = elem.tag.rsplit("}", 1)[-1]
            if tag == "title":
                title = elem.text
            elif tag == "ns":
                ns = elem.text
            elif tag == "text":
                body = elem.text or ""
                if ns == "0" and title and not body.lstrip().lower().startswith("#redirect"):
                    sentences = paragraph_sentences(clean_wiki_markup(body).split("\n\n"), "en")
                    if sentences:
                        yield sentences
            if tag == "page":
                elem.clear()


def documents(cache: Path) -> Iterator[list[str]]:
    pattern = re.compile(r"gensim/test/test_data/enwiki-latest-pages-articles1\.xml-.*-shortened\.bz2$")
    root = fetch_pypi("gensim==4.4.0", cache, members=lambda n: bool(pattern.search(n)), only_binary=True)
    found = sorted(root.glob("gensim/test/test_data/enwiki-latest-pages-articles1.xml-*.bz2"))
    if not found:
        raise FetchError("gensim wheel holds no enwiki test dump")
    return parse_wiki(found[0])
