"""A pseudo-locale, as Android's and Chrome's en-XA: every English string with its letters accented and its vowels
doubled (about a third longer), its placeholders, code, special tokens and markup kept as they are. A page drawn in
it shows at a glance a string that does not come from the locale files (no accents), and a label too long for its
place (a third longer than English). The tests draw every page in it; ``BERT_LAB_PSEUDO_LOCALE=1`` gives it to the
app in place of English, to look at (``app.core.i18n``)."""

from __future__ import annotations

import re

ACCENTED = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "áƀçðéƒĝĥíĵķľɱñóþǫŕšťúṽŵẋýžÁƁÇÐÉƑĜĤÍĴĶĽṀÑÓÞǪŔŠŤÚṼŴẊÝŽ",
        strict=True,
    )
)
MARKS = frozenset(ACCENTED.values())
# What a translator leaves as it is: placeholders, code, BERT's special tokens, HTML tags and entities, link targets.
_KEPT = re.compile(r"\{[^{}]*\}|`[^`]*`|\[(?:MASK|CLS|SEP|PAD|UNK)\]|<[^<>]+>|&#?\w+;|\]\([^)]*\)|https?://\S+")


def pseudo(text: str) -> str:
    pieces, last = [], 0
    for kept in _KEPT.finditer(text):
        pieces += [_accented(text[last : kept.start()]), kept.group()]
        last = kept.end()
    return "".join([*pieces, _accented(text[last:])])


def _accented(text: str) -> str:
    return "".join(ACCENTED.get(c, c) * (2 if c in "aeiouAEIOU" else 1) for c in text)


def is_pseudo(text: str) -> bool:
    return any(c in MARKS for c in text)
