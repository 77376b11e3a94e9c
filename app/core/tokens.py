"""Tokens as the pages show them: which positions a reader or BERT may mask, each token's surface in the text, and
the reader's text made safe for a Markdown slot."""

from __future__ import annotations

import html
import re

from model.tokenization import Encoding


def candidate_flags(enc: Encoding, mask_token_id: int) -> list[bool]:
    """Positions BERT may choose: every wordpiece but [CLS], [SEP], [PAD] and a [MASK] the user typed.

    [UNK] stays a candidate, as in the original pre-training data (it is a real position of the text).
    """
    return [not special and token_id != mask_token_id for special, token_id in zip(enc.special, enc.ids)]


def token_surface(text: str, offsets: list[tuple[int, int]]) -> list[str]:
    """The characters of ``text`` behind each token ("" for [CLS] and [SEP])."""
    return [text[start:end] for start, end in offsets]


_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:$>])")


def escape_markdown(text: str) -> str:
    """User text for a Markdown slot (captions, pill labels): HTML escaped, then every Markdown special
    backslash-escaped, so ``**bold**``, ``<b>x</b>``, ``$x$`` or ``:red[x]`` appear literally."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(text, quote=False))
