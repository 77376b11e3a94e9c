"""Jane Austen's novels, read from the R package's serialized data."""

from __future__ import annotations

import gzip
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

from ..fetch import FetchError, fetch_deb
from ..text import blocks, join_wrapped_lines, split_sentences

SOURCE = {
    "id": "austen",
    "lang": "en",
    "name": "Jane Austen's six completed novels",
    "licence": "texts public domain; R package janeaustenr MIT",
    "obtained": "Debian r-cran-janeaustenr (apt-get download + dpkg-deb -x), data/Rdata.rdb read directly",
}


class _RVector(list):
    """An R vector or list, with its attributes (``names``) in ``attrs``."""

    attrs: dict = {}


def _r_unserialize(data: bytes):
    """A minimal reader for R's XDR serialization: enough for character vectors and the lists holding them."""
    pos = 0
    refs: list = []

    def i32() -> int:
        nonlocal pos
        (v,) = struct.unpack_from(">i", data, pos)
        pos += 4
        return v

    def item():
        nonlocal pos
        flags = i32()
        kind = flags & 0xFF
        has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if kind in (254, 253, 242, 241, 252, 251, 247):  # NULL, environments, markers
            return None
        if kind == 255:  # reference
            idx = flags >> 8 or i32()
            return refs[idx - 1]
        if kind == 1:  # symbol
            sym = item()
            refs.append(sym)
            return sym
        if kind in (2, 3, 5, 6, 17):  # pairlist-like: (tag, value) pairs
            pairs = []
            while True:
                if has_attr:
                    item()
                tag = item() if has_tag else None
                pairs.append((tag, item()))
                flags = i32()
                kind = flags & 0xFF
                if kind == 254:
                    return pairs
                if kind not in (2, 3, 5, 6, 17):
                    pos -= 4
                    pairs.append((None, item()))
                    return pairs
                has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        if kind == 9:  # CHARSXP
            n = i32()
            if n == -1:
                return None
            s = data[pos : pos + n].decode("utf-8", "replace")
            pos += n
            return s
        if kind in (10, 13):  # logical, integer
            n = i32()
            value = list(struct.unpack_from(f">{n}i", data, pos))
            pos += 4 * n
        elif kind == 14:  # double
            n = i32()
            value = list(struct.unpack_from(f">{n}d", data, pos))
            pos += 8 * n
        elif kind in (16, 19, 20):  # character vector, list, expression
            n = i32()
            value = [item() for _ in range(n)]
        elif kind == 4:  # environment
            i32()
            env: dict = {}
            refs.append(env)
            for key in ("enclos", "frame", "hashtab", "attributes"):
                env[key] = item()
            return env
        else:
            raise ValueError(f"R object type {kind} not supported")
        value = _RVector(value)
        if has_attr:
            value.attrs = {tag: v for tag, v in item() or []}
        return value

    if data[:2] != b"X\n":
        raise ValueError("not an XDR R serialization")
    pos = 2
    version = i32()
    i32(), i32()  # writer's and minimal reader's R versions
    if version == 3:
        n = i32()  # length of the native encoding's name, which is skipped
        pos += n
    return item()


def read_rdb(base: Path) -> dict[str, object]:
    """Every object of an R lazy-load database ``base.rdx`` + ``base.rdb``, as R's ``lazyLoad`` would see it.

    The .rdx index is a gzip'd serialized ``list(variables=, references=, compressed=)`` whose ``variables``
    maps each name to ``c(offset, length)`` in the .rdb; each .rdb record is a 4-byte length + zlib data.
    """
    index = _r_unserialize(gzip.decompress(base.with_suffix(".rdx").read_bytes()))
    parts = dict(zip(index.attrs.get("names", []), index))
    variables = parts["variables"]
    if int(parts["compressed"][0]) != 1:
        raise ValueError(f"{base}.rdb: only zlib-compressed (type 1) databases are supported")
    blob = base.with_suffix(".rdb").read_bytes()
    out: dict[str, object] = {}
    for name, (offset, length) in zip(variables.attrs.get("names", []), variables):
        chunk = blob[int(offset) : int(offset) + int(length)]
        out[name] = _r_unserialize(zlib.decompress(chunk[4:]))
    return out


def parse_austen(books: dict[str, list[str]]) -> Iterator[list[str]]:
    """One document per chapter; hard-wrapped lines joined into paragraphs; ``_emphasis_`` underscores removed."""
    for lines in books.values():
        chapter: list[str] | None = None
        for block in blocks(lines + [""]):
            first = block[0].strip()
            if re.match(r"^(CHAPTER|Chapter)\s+[IVXLC\d]+\b", first):
                if chapter:
                    yield chapter
                chapter = []
                block = block[1:]
                if not block:
                    continue
            if chapter is None or re.match(r"^(VOLUME|Volume)\s+[IVX\d]+", first) or first in ("THE END", "FINIS"):
                continue
            if first.startswith("["):  # editors' notes: "[End volume one of this edition.", "[To Mrs. Weston.]"
                continue
            text = join_wrapped_lines(block)
            text = re.sub(r"_(\S(?:[^_]*\S)?)_", r"\1", text)
            chapter.extend(split_sentences(text, "en"))
        if chapter:
            yield chapter


def documents(cache: Path) -> Iterator[list[str]]:
    root = fetch_deb("r-cran-janeaustenr", cache)
    base = root / "usr/lib/R/site-library/janeaustenr/data/Rdata"
    books = {k: v for k, v in read_rdb(base).items() if isinstance(v, list) and v and isinstance(v[0], str)}
    if not books:
        raise FetchError(f"no character vectors in {base}.rdb")
    return parse_austen(books)
